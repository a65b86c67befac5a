r"""``stack`` and ``cat`` (alias ``concat``, ``concatenate``): many tensors joined into
one (chapters 06-07).

``cat`` lays the tensors end to end along an existing dimension, ``stack`` along a new
one. Each element of the result comes from exactly one input, so the backward *splits*
the gradient: input :math:`k` gets the slice of :math:`\partial L / \partial
\text{out}` where it was put. The slicing is plain indexing, so the same backward runs
on numpy arrays and on tensors (``create_graph=True``). Mixed dtypes are promoted as
torch does (an int tensor joined to a float one becomes float); as torch's ``cat``, a
1-d empty tensor (``tensor([])``) is skipped whatever the others' shape.
"""

import numpy as np

from minigrad import tensors as tensor_module
from minigrad.autograd.function import Function, constant
from minigrad.dtypes import result_type
from minigrad.ops import batching
from minigrad.ops.promotion import _to
from minigrad.ops.shape import dim_index

__all__ = ["stack", "cat", "concat", "concatenate", "unbind"]


def _along(dim, index):
    """The key that picks ``index`` (an int or a slice) along axis ``dim``."""
    return (slice(None),) * dim + (index,)


class Stack(Function):
    """``Stack.apply(*tensors, dim)``: the dimension last, after the tensors."""

    vmap = batching.Rule(batching.join)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, *args):
        *arrays, ctx.dim = args
        return np.stack(arrays, axis=ctx.dim)

    @staticmethod
    def backward(ctx, grad_output):
        n = grad_output.shape[ctx.dim]
        return (*[grad_output[_along(ctx.dim, i)] for i in range(n)], None)

    @staticmethod
    def differentiable_jvp(ctx, *tangents):  # nested forward levels: on tensors
        *items, dim = ctx.inputs
        return Stack.apply(*[constant(np.zeros(a._data.shape, a._data.dtype)) if t is None
                             else t for a, t in zip(items, tangents[:-1], strict=True)], dim)

    @staticmethod
    def jvp(ctx, *tangents):
        *arrays, dim = ctx.inputs
        return np.stack([np.zeros_like(a) if t is None else t
                         for a, t in zip(arrays, tangents[:-1], strict=True)], axis=dim)


class Cat(Function):
    """``Cat.apply(*tensors, dim)``: the dimension last, after the tensors."""

    vmap = batching.Rule(batching.join)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, *args):
        *arrays, dim = args
        ctx.dim = dim
        ctx.sizes = [None if _skipped(a) else a.shape[dim] for a in arrays]
        kept = [a for a in arrays if not _skipped(a)]
        return np.concatenate(kept or arrays[:1], axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        grads, start = [], 0
        for size in ctx.sizes:
            if size is None:  # a skipped empty tensor: an empty gradient
                grads.append(grad_output.reshape(-1)[0:0])
                continue
            grads.append(grad_output[_along(ctx.dim, slice(start, start + size))])
            start += size
        return (*grads, None)

    @staticmethod
    def differentiable_jvp(ctx, *tangents):  # nested forward levels: on tensors
        *items, dim = ctx.inputs
        return Cat.apply(*[constant(np.zeros(a._data.shape, a._data.dtype)) if t is None
                           else t for a, t in zip(items, tangents[:-1], strict=True)], dim)

    @staticmethod
    def jvp(ctx, *tangents):
        *arrays, dim = ctx.inputs
        return np.concatenate([np.zeros_like(a) if t is None else t
                               for a, t in zip(arrays, tangents[:-1], strict=True)
                               if not _skipped(a)], axis=dim)


def _skipped(array):
    """torch's legacy rule: a 1-d tensor with no elements is left out of ``cat``."""
    return array.ndim == 1 and array.size == 0


def _checked(tensor_list, function):
    """The tensors, each promoted to the dtype torch gives them together."""
    if isinstance(tensor_list, tensor_module.Tensor) or not isinstance(tensor_list, list | tuple):
        raise TypeError(f"{function}(): argument 'tensors' (position 1) must be tuple of "
                        f"Tensors, not {type(tensor_list).__name__}. Fix: pass a list, "
                        f"{function}([a, b]).")
    for i, t in enumerate(tensor_list):
        if not isinstance(t, tensor_module.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}. Fix: make it a tensor first, "
                            "minigrad.tensor(value).")
    target = None
    for t in tensor_list:
        target = t._data.dtype if target is None else result_type(
            np.empty((0,) * t._data.ndim, target), t._data)
    return [_to(t, target) for t in tensor_list]


def stack(tensors, dim=0):
    """The tensors, all of one shape, along a new dimension ``dim``."""
    items = _checked(tensors, "stack")
    if not items:
        raise RuntimeError("stack expects a non-empty TensorList. Fix: pass at least one "
                           "tensor.")
    first = items[0]._data.shape
    for i, t in enumerate(items):
        if t._data.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(t._data.shape)} at entry "
                               f"{i}. Fix: reshape them to one shape first.")
    return Stack.apply(*items, dim_index(dim, len(first) + 1))


def cat(tensors, dim=0, *, axis=None):
    """The tensors end to end along ``dim``; their other sizes must match."""
    dim = dim if axis is None else axis
    if isinstance(tensors, list | tuple) and not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors. Fix: pass at "
                         "least one tensor.")
    items = _checked(tensors, "cat")
    for i, t in enumerate(items):
        if not t._data.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated. Fix: use stack, or unsqueeze(0) each first.")
    kept = [(i, t._data.shape) for i, t in enumerate(items) if not _skipped(t._data)]
    if not kept:  # only empty 1-d tensors: an empty one
        return Cat.apply(*items, 0)
    first = kept[0][1]
    axis = dim_index(dim, len(first))
    for i, shape in kept:
        if len(shape) != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{len(first)} and {len(shape)}. Fix: unsqueeze or reshape "
                               "so all have as many dimensions.")
        for d, (want, got) in enumerate(zip(first, shape, strict=True)):
            if d != axis and want != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {axis}. Expected size "
                    f"{want} but got size {got} for tensor number {i} in the list. Fix: "
                    "the tensors may differ only along dim.")
    return Cat.apply(*items, axis)


def concat(tensors, dim=0, *, axis=None):
    return cat(tensors, dim, axis=axis)


def concatenate(tensors, axis=0):
    return cat(tensors, axis)


def unbind(input, dim=0):  # noqa: A002 - torch's argument name
    """``torch.unbind``: the slices along ``dim``, a tuple of tensors (stack's inverse)."""
    dim = dim_index(dim, input._data.ndim)
    return tuple(input[_along(dim, i)] for i in range(input._data.shape[dim]))
