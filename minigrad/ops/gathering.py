r"""Picking elements by index or by mask (chapter 05's indexing, in torch's functions):
``gather``, ``index_select`` and ``masked_fill``.

``gather(input, dim, index)`` takes ``out[i][j] = input[i][index[i][j]]`` (for ``dim=1``);
``index_select(input, dim, index)`` takes whole slices. Both are advanced indexing with a
computed key, so their backward adds each gradient back where its element came from
(``np.add.at``: an index met twice gets the sum), as ``t[key]``'s does; only the node's
name differs (``GatherBackward0``, ``IndexSelectBackward0``). ``masked_fill(mask,
value)`` puts ``value`` where ``mask`` is True: the input's gradient is zero there, and a
0-d tensor ``value`` (``MaskedFillBackward1``) gets the sum of the gradient under the mask.
"""

import numpy as np

from minigrad.autograd.function import Function, constant
from minigrad.dtypes import torch_name
from minigrad.ops import batching
from minigrad.ops.indexing import Index
from minigrad.ops.shape import dim_index

__all__ = ["gather", "index_select", "masked_fill"]


class Gather(Index):
    backward_name = "GatherBackward0"


class IndexSelect(Index):
    backward_name = "IndexSelectBackward0"


def _index_array(index, name):
    if not hasattr(index, "grad_fn"):
        raise TypeError(f"{name}(): argument 'index' (position 3) must be Tensor, not "
                        f"{type(index).__name__}. Fix: make it a tensor first, "
                        "minigrad.tensor([0, 2]).")
    from minigrad._functorch.batched import BatchedTensor

    if isinstance(index, BatchedTensor):
        raise NotImplementedError(f"minigrad: {name}() with an index batched by vmap is not "
                                  "supported. Fix: map over the input only, or loop over "
                                  "the indices.")
    data = index._data
    kind = "int32/int64" if name == "gather" else "int32 or int64"
    if data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype {kind} for index. Fix: make "
                           "the index a long tensor, index.long().")
    return data.astype(np.int64)


def gather(input, dim, index, *, sparse_grad=False):  # noqa: A002 - torch's argument name
    data, idx = input._data, _index_array(index, "gather")
    dim = dim_index(dim, data.ndim)
    if idx.ndim != data.ndim and not (idx.ndim <= 1 and data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor. Fix: keep the index's dimensions, index.unsqueeze(...).")
    for d, (n, m) in enumerate(zip(idx.shape, data.shape, strict=False)):
        if d != dim and n > m:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(idx.shape)} to be no larger than self "
                               f"{list(data.shape)} apart from dimension {dim}. Fix: the "
                               "index may be smaller than the input, not larger.")
    size = data.shape[dim] if data.ndim else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx.max() if idx.max() >= size else idx.min()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{size}. Fix: indices along dim go from 0 to {size - 1}.")
    if not data.ndim:
        return Gather.apply(input.reshape(1), (idx.reshape(-1),)).reshape(idx.shape)
    key = list(np.indices(idx.shape, sparse=True))
    key[dim] = idx
    return Gather.apply(input, tuple(key))


def index_select(input, dim, index):  # noqa: A002 - torch's argument name
    idx = _index_array(index, "index_select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector. Fix: flatten "
                         "the index, index.reshape(-1).")
    dim = dim_index(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self. Fix: indices go from 0 to "
                         f"{size - 1} along dim {dim}.")
    if not input._data.ndim:
        return IndexSelect.apply(input.reshape(1), (idx.reshape(-1),)).reshape(())
    return IndexSelect.apply(input, (slice(None),) * dim + (idx.reshape(-1),))


class MaskedFill(Function):
    """``where(mask, value, input)``; ``value`` a number, or a 0-d tensor (``...1``)."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.value_is_tensor = isinstance(value, np.ndarray)
        if ctx.value_is_tensor:
            ctx.backward_name = "MaskedFillBackward1"
        ctx.mask = np.broadcast_to(mask, np.broadcast_shapes(a.shape, mask.shape))
        return np.where(ctx.mask, np.asarray(value, dtype=a.dtype), a)

    @staticmethod
    def backward(ctx, grad_output):
        keep, fill = ~ctx.mask, ctx.mask
        if hasattr(grad_output, "grad_fn"):
            keep, fill = constant(keep), constant(fill)
        value_grad = (grad_output * fill).sum() if ctx.value_is_tensor else None
        return grad_output * keep, None, value_grad

    @staticmethod
    def jvp(ctx, ta, tmask, tvalue):
        keep, fill = ~ctx.mask, ctx.mask
        if hasattr(ta if ta is not None else tvalue, "grad_fn"):
            keep, fill = constant(keep), constant(fill)
        out = 0 if ta is None else ta * keep
        return out if tvalue is None else out + tvalue * fill


def masked_fill(input, mask, value):  # noqa: A002 - torch's argument name
    from minigrad.ops.arithmetic import broadcast_error

    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with "
                           f"dtype {torch_name(mask._data.dtype).lower()}. Fix: compare to "
                           "make a bool mask, t > 0.")
    if hasattr(value, "grad_fn"):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value._data.ndim} dimension(s). Fix: fill "
                               "with a number or a 0-d tensor, v.reshape(()).")
        if value._data.dtype != input._data.dtype:
            value = value.to(input.dtype)
    error = broadcast_error(input._data, mask._data)
    if error is not None:
        raise error
    return MaskedFill.apply(input, mask, value)
