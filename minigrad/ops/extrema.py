r"""``min`` and ``argmin`` (chapter 05's reductions, the mirror of ``max``): over all
elements (ties share the gradient evenly, NaN counts as the minimum, torch's
``MinBackward1``) or along ``dim`` (the named pair ``(values, indices)``, the gradient
to the index returned, ``MinBackward0``). The nodes are ``max``'s with the argmin for the
argmax; inside ``vmap`` the indices come from each sample, as the values do.
"""

from collections import namedtuple

import numpy as np

from minigrad.autograd.function import constant
from minigrad.ops.reductions import Max, MaxDim, return_types
from minigrad.ops.shape import dim_index

__all__ = ["min", "argmin", "indices_along", "extreme", "arg_extreme"]


class Min(Max):
    """Minimum of all elements; ties share the gradient evenly."""

    backward_name = "MinBackward1"

    @staticmethod
    def forward(ctx, a):
        out = np.min(a)
        ctx.save_for_backward(a, out)  # the output too: an in-place change of it is caught
        return out


class MinDim(MaxDim):
    """Minimum along ``dim``, at the ``indices`` found by argmin."""

    backward_name = "MinBackward0"
    pick = staticmethod(np.argmin)


_Min = namedtuple("min", ["values", "indices"])
_Min.__doc__ = "``min(t, dim)``: values and indices, as torch's ``torch.return_types.min``."
_Min.__repr__ = lambda self: (f"minigrad.return_types.min(\nvalues={self.values!r},"
                              f"\nindices={self.indices!r})")
return_types.min = _Min


def indices_along(a, dim, keepdim, pick):
    """``(indices array for the node, indices tensor for the user)``: inside vmap the
    tensor is the batched argmax/argmin of each sample (the array is not used: the
    batching rule finds its own)."""
    indices = np.asarray(pick(a._data, axis=dim))  # 0-d for a vector: an array
    from minigrad._functorch.batched import BatchedTensor

    if isinstance(a, BatchedTensor):
        name = "argmax" if pick is np.argmax else "argmin"
        return indices, getattr(a, name)(dim, keepdim)
    return indices, constant(indices if not keepdim else np.expand_dims(indices, dim))


_WORDS = {"max": ("maximum", "largest"), "min": ("minimum", "smallest")}


def extreme(a, dim, keepdim, name, whole, along, pair, pick):
    """``max``/``min`` (``name``): over all elements (the node ``whole``) or along ``dim``
    (the node ``along``, the named ``pair`` of values and the indices ``pick`` finds)."""
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               f"input.numel() == 0. Fix: an empty tensor has no "
                               f"{_WORDS[name][0]}; check its size first.")
        return whole.apply(a)
    dim = dim_index(dim, a._data.ndim)
    if a._data.ndim == 0:  # a 0-d tensor: itself, at index 0
        values = along.apply(a.reshape(1), 0, False, np.zeros((), np.int64))
        return pair(values, constant(np.zeros((), np.int64)))
    if a._data.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size. Fix: "
                         f"{name} over an empty dimension has no value.")
    indices, user = indices_along(a, dim, keepdim, pick)
    return pair(along.apply(a, dim, keepdim, indices), user)


def arg_extreme(a, dim, keepdim, name, pick):
    """``argmax``/``argmin`` (``name``): the index of the largest/smallest element (of the
    flattened tensor without ``dim``)."""
    if a._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input. Fix: t.long().{name}()")
    if dim is None and not a._data.size:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                         f"input.numel() == 0. Fix: an empty tensor has no "
                         f"{_WORDS[name[3:]][1]} element.")
    if dim is not None and a._data.ndim and not a._data.shape[dim]:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size. "
                         "Fix: reduce over a dimension that is not empty.")
    return constant(pick(a._data, axis=dim, keepdims=keepdim))


def min(a, dim=None, keepdim=False):  # noqa: A001 - torch.min
    """``min(t)`` is a tensor; ``min(t, dim)`` the named pair ``(values, indices)``."""
    return extreme(a, dim, keepdim, "min", Min, MinDim, _Min, np.argmin)


def argmin(a, dim=None, keepdim=False):
    """The index of the smallest element (of the flattened tensor without ``dim``)."""
    return arg_extreme(a, dim, keepdim, "argmin", np.argmin)
