r"""Ops that reorder or cut a tensor along a dimension (chapter 05's views and copies):
``flip``, ``roll``, ``narrow``, ``split`` and ``chunk``.

``flip`` and ``roll`` are permutations of the elements, so their backward is the inverse
permutation (``flip`` again, ``roll`` by ``-shifts``). ``narrow`` is a slice,
``t[..., start:start + length]`` (torch's ``SliceBackward0``); ``split`` and ``chunk``
cut a tensor into slices (each piece's node is torch's ``SplitBackward0``, or
``SplitWithSizesBackward0`` for a list of sizes), views of the input whose gradients
land in their own part of it.
"""

import numpy as np

from minigrad.autograd.function import Function, linear_jvp
from minigrad.ops import batching
from minigrad.ops.indexing import Slice
from minigrad.ops.shape import dim_index

__all__ = ["flip", "roll", "narrow", "split", "chunk"]


def _dims_rule(cls, info, in_dims, a, first, dims):
    """``flip``/``roll`` along given dims: the same dims, one further on."""
    if dims is None:  # roll of the flattened sample
        return batching._batched().fallback(cls, info, in_dims, [a, first, dims])
    return cls.apply(a, first, tuple(d + 1 for d in dims)), 0


class Flip(Function):
    vmap = batching.Rule(_dims_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, _, dims):
        ctx.dims = dims
        return np.flip(a, dims).copy()  # a copy, as torch's flip

    @staticmethod
    def backward(ctx, grad_output):
        if hasattr(grad_output, "grad_fn"):
            return Flip.apply(grad_output, None, ctx.dims), None, None
        return np.flip(grad_output, ctx.dims), None, None

    jvp = staticmethod(linear_jvp)


class Roll(Function):
    vmap = batching.Rule(_dims_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.meta = (shifts, dims)
        return np.roll(a, shifts, dims)

    @staticmethod
    def backward(ctx, grad_output):
        shifts, dims = ctx.meta
        back = tuple(-s for s in shifts) if isinstance(shifts, tuple) else -shifts
        if hasattr(grad_output, "grad_fn"):
            return Roll.apply(grad_output, back, dims), None, None
        return np.roll(grad_output, back, dims), None, None

    jvp = staticmethod(linear_jvp)


class Split(Slice):
    """One piece of ``split(int)``/``chunk``: a slice with torch's node name."""

    backward_name = "SplitBackward0"


class SplitWithSizes(Slice):
    backward_name = "SplitWithSizesBackward0"


def _tuple(x):
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def flip(input, dims):  # noqa: A002 - torch's argument name
    ndim = input._data.ndim
    dims = tuple(dim_index(d, ndim) for d in _tuple(dims))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims. Fix: "
                           "name each dimension once.")
    return Flip.apply(input, None, dims if ndim else ())


def roll(input, shifts, dims=None):  # noqa: A002 - torch's argument name
    shifts = _tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0. Fix: give one dim per shift.")
        return Roll.apply(input, shifts[0], None)
    dims = _tuple(dims)
    if len(dims) != len(shifts):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}. Fix: give one dim per shift.")
    dims = tuple(dim_index(d, input._data.ndim) for d in dims)
    return Roll.apply(input, shifts, dims)


def _key(ndim, dim, start, stop):
    return (slice(None),) * dim + (slice(start, stop),)


def narrow(input, dim, start, length):  # noqa: A002 - torch's argument name
    if not input._data.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor. Fix: narrow a "
                           "tensor with at least one dimension.")
    dim = dim_index(dim, input._data.ndim)
    size = input._data.shape[dim]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start}). Fix: start counts from 0 (or -1 for the last).")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}). Fix: keep start + length within the dimension.")
    return input[_key(input._data.ndim, dim, start, start + length)]


def split(tensor, split_size_or_sections, dim=0):
    if not tensor._data.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor. Fix: split a "
                           "tensor with at least one dimension.")
    dim = dim_index(dim, tensor._data.ndim)
    size = tensor._data.shape[dim]
    if isinstance(split_size_or_sections, tuple | list):
        sections = [int(s) for s in split_size_or_sections]
        if sum(sections) != size or any(s < 0 for s in sections):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sections}. Fix: sizes that add up to {size}.")
        node = SplitWithSizes
    else:
        step = int(split_size_or_sections)
        if step < 0 or (step == 0 and size):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}. Fix: a split size of 1 or more.")
        sections = [min(step, size - i) for i in range(0, size, step)] if step else [0]
        node = Split
    pieces, start = [], 0
    for s in sections:
        pieces.append(node.apply(tensor, _key(tensor._data.ndim, dim, start, start + s)))
        start += s
    return tuple(pieces)


def chunk(input, chunks, dim=0):  # noqa: A002 - torch's argument name
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: "
                           f"{chunks}. Fix: ask for 1 or more chunks.")
    if not input._data.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor. Fix: chunk a "
                           "tensor with at least one dimension.")
    size = input._data.shape[dim_index(dim, input._data.ndim)]
    return split(input, max(-(-size // chunks), 1) if size else 1, dim)
