r"""Ops that move numbers without changing them (chapter 05): ``reshape``/``view``,
``transpose``/``t()``/``T``, ``unsqueeze``/``squeeze``, and dtype conversion.

Each element of the output is one element of the input, so the backward moves the
gradient back the same way: reshape it to the input's shape, swap the same axes,
squeeze the added dimension. ``float()``/``double()`` cast the gradient back to the
input's dtype. ``clone()`` copies; its gradient passes through.
"""

import operator

import numpy as np

from minigrad.autograd.function import Function, constant, linear_jvp
from minigrad.dtypes import from_numpy
from minigrad.ops import batching

__all__ = ["dim_index", "reshape", "view", "transpose", "t", "permute_all", "unsqueeze", "squeeze",
           "to_dtype", "clone"]


class View(Function):
    """``reshape`` and ``view``: the same numbers in a new shape."""

    is_view = True

    vmap = batching.Rule(batching.view)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a.shape
        return a.reshape(shape)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.reshape(ctx.in_shape), None

    jvp = staticmethod(linear_jvp)


class Transpose(Function):
    is_view = True

    vmap = batching.Rule(batching.transpose)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return np.swapaxes(a, dim0, dim1)

    @staticmethod
    def backward(ctx, grad_output):
        return np.swapaxes(grad_output, *ctx.dims), None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return grad_output.transpose(*ctx.dims), None, None

    jvp = staticmethod(linear_jvp)


class T(Transpose):
    """``t()``: transpose of a matrix (a vector or a scalar is returned as is)."""


class Permute(Function):
    """``.T``: all dimensions reversed; ``permute(dims)``/``movedim``: reordered."""

    is_view = True
    dims = None

    vmap = batching.Rule(batching.permute)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dims=None):
        if dims is None:
            return a.T
        ctx.dims = dims
        return np.transpose(a, dims)

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.dims is None:
            return grad_output.T
        return np.transpose(grad_output, np.argsort(ctx.dims)), None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        if ctx.dims is None:
            return grad_output.T
        return grad_output.permute(*np.argsort(ctx.dims).tolist()), None

    jvp = staticmethod(linear_jvp)


class Unsqueeze(Function):
    is_view = True

    vmap = batching.Rule(batching.unsqueeze)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return np.expand_dims(a, dim)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.squeeze(ctx.dim), None  # an array's method and a tensor's

    jvp = staticmethod(linear_jvp)


class Squeeze(Function):
    """``squeeze()``: drop every dimension of size 1."""

    is_view = True

    vmap = batching.Rule(batching.squeeze)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axes):
        ctx.in_shape = a.shape
        out = np.squeeze(a, axis=axes)
        return a.view() if out is a else out  # nothing squeezed: still a view, as torch

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.reshape(ctx.in_shape), None

    jvp = staticmethod(linear_jvp)


class SqueezeDim(Squeeze):
    """``squeeze(dim)``: drop that dimension if its size is 1."""

    backward_name = "SqueezeBackward1"


class ToCopy(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.in_dtype = a.dtype
        return a.astype(dtype)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.astype(ctx.in_dtype), None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return grad_output.to(from_numpy(ctx.in_dtype)), None

    jvp = staticmethod(linear_jvp)


class Clone(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

    jvp = staticmethod(linear_jvp)


def dim_index(dim, ndim):
    """``dim`` as a non-negative axis of a tensor with ``ndim`` dimensions, as torch checks."""
    low, high = -max(ndim, 1), max(ndim, 1) - 1
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim}). Fix: dim counts from 0, or from -1 for the last.")
    return dim % max(ndim, 1)


def _dims(args):
    """``f(2, 3)`` or ``f((2, 3))``: the sizes as one tuple."""
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple | list) else args


def _sizes(name, shape, numel):
    """``shape`` as ints, checked as torch's ``infer_size``: whole numbers, at most one
    -1 (inferred, unless the tensor is empty and it could be anything), none below -1,
    multiplying to ``numel``."""
    sizes, inferred, known = [], None, 1
    for i, size in enumerate(shape):
        if isinstance(size, bool) or not hasattr(size, "__index__"):
            raise TypeError(f"{name}(): argument 'shape' (position 1) must be tuple of ints, "
                            f"but found element of type {type(size).__name__} at pos {i}. "
                            "Fix: sizes are ints, e.g. t.reshape(2, int(n / 2)).")
        size = operator.index(size)
        if size == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred. Fix: give every "
                                   "size but one, e.g. t.reshape(-1, 3).")
            inferred = i
        elif size < 0:
            raise RuntimeError(f"invalid shape dimension {size} at index {i} of shape "
                               f"{list(shape)}. Fix: sizes are positive, or -1 for one "
                               "inferred size.")
        else:
            known *= size
        sizes.append(size)
    if numel == known or inferred is not None and known > 0 and numel % known == 0:
        if inferred is not None and known == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {sizes} "
                               "because the unspecified dimension size -1 can be any value "
                               "and is ambiguous. Fix: give that size instead of -1.")
        return tuple(sizes)
    raise RuntimeError(f"shape '{sizes}' is invalid for input of size {numel}. Fix: the "
                       "sizes must multiply to the number of elements; one of them may be "
                       "-1.")


def reshape(a, *shape, name="reshape"):
    if not shape:
        raise TypeError(f"{name}() missing 1 required positional arguments: \"shape\". Fix: "
                        f"give the new sizes, t.{name}(2, 3) or t.{name}(-1).")
    return View.apply(a, _sizes(name, _dims(shape), a._data.size))


def view(a, *shape):
    """``reshape`` that never copies: refused, as torch, where it would have to."""
    out = reshape(a, *shape, name="view")
    if a._data.size and not np.shares_memory(out._data, a._data):
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead. Fix: t.reshape(...) copies when it "
                           "must.")
    return out


def transpose(a, dim0, dim1):
    ndim = a._data.ndim
    dim0, dim1 = dim_index(dim0, ndim), dim_index(dim1, ndim)
    if ndim == 0:  # a 0-d tensor: itself, as a view
        return View.apply(a, ())
    return Transpose.apply(a, dim0, dim1)


def t(a):
    if a._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{a._data.ndim}D. Fix: use transpose(dim0, dim1).")
    if a._data.ndim < 2:  # a vector or a 0-d tensor: itself, as a view
        return View.apply(a, a._data.shape)
    return T.apply(a, 0, 1)


def permute_all(a):
    return Permute.apply(a)


def unsqueeze(a, dim):
    return Unsqueeze.apply(a, dim_index(dim, a._data.ndim + 1))


def squeeze(a, dim=None):
    if dim is None:
        return Squeeze.apply(a, None)
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    axes = tuple(dim_index(d, a._data.ndim) for d in dims)
    axes = tuple(d for d in axes if a._data.ndim and a._data.shape[d] == 1)
    return SqueezeDim.apply(a, axes)


def to_dtype(a, dtype):
    """A copy in ``dtype``; to an int or bool dtype it leaves the graph, as in torch."""
    if a._data.dtype == dtype:
        return a
    if dtype.kind != "f":
        return constant(a._data.astype(dtype))
    return ToCopy.apply(a, dtype)


def clone(a):
    return Clone.apply(a)
