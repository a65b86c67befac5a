r"""Reductions: ``sum``, ``mean``, ``max`` over all elements or along ``dim`` (chapter 05).

Every element of the input contributes once to a sum, so its gradient is the
gradient of the result, copied back along the reduced dimensions:
:math:`\partial L / \partial x_{ij} = \partial L / \partial s_i` for
:math:`s_i = \sum_j x_{ij}`; the mean divides that by the number of elements averaged.
``max`` sends the gradient to where the maximum was: along ``dim``, to the index it
returns; over the whole tensor, shared evenly between tied maxima (as torch does; a
NaN counts as the maximum, so its gradient goes to the NaNs).
"""

import math
from collections import namedtuple
from types import SimpleNamespace

import numpy as np

from minigrad.autograd.function import Function, constant, linear_jvp
from minigrad.ops import batching
from minigrad.ops.checks import check_unique_dims
from minigrad.ops.shape import dim_index

__all__ = ["sum", "mean", "max"]


def _axes(dim, ndim):
    """``dim`` (int, tuple or None) as a sorted tuple of non-negative axes; an empty
    tuple means every axis, as in torch."""
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    if dim is None or not dims:
        return tuple(range(ndim))
    if not ndim:  # a 0-d tensor accepts dim 0 or -1 and stays as it is
        check_unique_dims([dim_index(d, ndim) for d in dims])
        return None
    axes = [dim_index(d, ndim) for d in dims]
    check_unique_dims(axes)
    return tuple(sorted(axes))


def _expand(grad_output, axes, keepdim, shape):
    """Bring a reduced gradient back to ``shape`` (a read-only broadcast view)."""
    if not keepdim and axes is not None and shape:
        grad_output = np.expand_dims(grad_output, axes)
    return np.broadcast_to(grad_output, shape)


def _expand_tensor(grad_output, axes, keepdim, shape):
    """``_expand`` in minigrad's ops, recorded (``create_graph=True``)."""
    if axes is None:
        grad_output = grad_output.reshape((1,) * len(shape))
    elif not keepdim:
        for axis in axes:  # sorted: each lands where it was
            grad_output = grad_output.unsqueeze(axis)
    return grad_output + constant(np.zeros(shape, dtype=grad_output._data.dtype))


class Sum(Function):
    vmap = batching.Rule(batching.reduction)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        ctx.meta = (axes, keepdim, a.shape)
        return np.sum(a, axis=axes, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        return _expand(grad_output, *ctx.meta), None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return _expand_tensor(grad_output, *ctx.meta), None, None

    jvp = staticmethod(linear_jvp)


class SumDim(Sum):
    backward_name = "SumBackward1"


class Mean(Function):
    vmap = batching.Rule(batching.reduction)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        ctx.meta = (axes, keepdim, a.shape)
        return np.mean(a, axis=axes, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        axes, keepdim, shape = ctx.meta
        count = math.prod(shape if axes is None else [shape[axis] for axis in axes])
        return _expand(grad_output / count, axes, keepdim, shape), None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        axes, keepdim, shape = ctx.meta
        count = math.prod(shape if axes is None else [shape[axis] for axis in axes])
        return _expand_tensor(grad_output / count, axes, keepdim, shape), None, None

    jvp = staticmethod(linear_jvp)


class MeanDim(Mean):
    backward_name = "MeanBackward1"


class Max(Function):
    """Maximum of all elements; ties share the gradient evenly."""

    backward_name = "MaxBackward1"

    vmap = batching.Rule(batching.whole)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        out = np.max(a)
        ctx.save_for_backward(a, out)  # the output too: an in-place change of it is caught
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, out = ctx.saved_tensors
        mask = np.isnan(a) if np.isnan(out) else a == out  # torch: NaN is the max
        return np.where(mask, (grad_output / mask.sum()).astype(a.dtype), 0)

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        a, out = ctx.saved_tensors
        mask = np.isnan(a._data) if np.isnan(out._data) else a._data == out._data
        return grad_output * constant(mask / mask.sum(), a._data.dtype)

    @staticmethod
    def differentiable_jvp(ctx, ta):  # nested forward levels: on tensors
        a, out = ctx.inputs[0]._data, ctx.result._data
        mask = np.isnan(a) if np.isnan(out) else a == out
        return (ta * constant(mask / mask.sum(), a.dtype)).sum()

    @staticmethod
    def jvp(ctx, ta):
        a, out = ctx.inputs[0], ctx.result
        mask = np.isnan(a) if np.isnan(out) else a == out
        return (ta * mask).sum() / mask.sum()


class MaxDim(Function):
    """Maximum along ``dim``, at the ``indices`` found by argmax."""

    backward_name = "MaxBackward0"
    pick = staticmethod(np.argmax)  # MinDim's is argmin

    vmap = batching.Rule(batching.max_dim)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dim, keepdim, indices):
        ctx.meta = (dim, keepdim, a.shape, a.dtype)
        ctx.indices = indices
        values = np.take_along_axis(a, np.expand_dims(indices, dim), axis=dim)
        return values if keepdim else np.squeeze(values, axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        dim, keepdim, shape, dtype = ctx.meta
        grad = np.zeros(shape, dtype=grad_output.dtype)
        g = grad_output if keepdim else np.expand_dims(grad_output, dim)
        np.put_along_axis(grad, np.expand_dims(ctx.indices, dim), g, axis=dim)
        return grad, None, None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        dim, keepdim, shape, dtype = ctx.meta
        onehot = np.zeros(shape, dtype=grad_output._data.dtype)
        np.put_along_axis(onehot, np.expand_dims(ctx.indices, dim), 1, axis=dim)
        g = grad_output if keepdim else grad_output.unsqueeze(dim)
        return g * constant(onehot), None, None, None

    jvp = staticmethod(linear_jvp)  # at the indices forward found: linear in the input


_Max = namedtuple("max", ["values", "indices"])
_Max.__doc__ = "``max(t, dim)``: values and indices, as torch's ``torch.return_types.max``."
_Max.__repr__ = lambda self: (f"minigrad.return_types.max(\nvalues={self.values!r},"
                              f"\nindices={self.indices!r})")
return_types = SimpleNamespace(max=_Max)


def sum(a, dim=None, keepdim=False):  # noqa: A001 - torch.sum
    if dim is None:
        return Sum.apply(a, None, False)
    return SumDim.apply(a, _axes(dim, a._data.ndim), keepdim)


def mean(a, dim=None, keepdim=False):
    if a._data.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be "
                           "either a floating point or complex dtype. Fix: t.float().mean()")
    if dim is None:
        return Mean.apply(a, None, False)
    return MeanDim.apply(a, _axes(dim, a._data.ndim), keepdim)


def max(a, dim=None, keepdim=False):  # noqa: A001 - torch.max
    """``max(t)`` is a tensor; ``max(t, dim)`` the named pair ``(values, indices)``."""
    from minigrad.ops.extrema import extreme  # min's module, which builds on Max

    return extreme(a, dim, keepdim, "max", Max, MaxDim, return_types.max, np.argmax)
