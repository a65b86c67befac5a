r"""``expand`` and ``repeat``: one tensor's numbers laid out over a larger shape (chapter
05's broadcasting, made explicit).

``expand`` is a view: every copy is the same memory, so its gradient is the sum of the
copies' gradients, :math:`\partial L / \partial x = \sum_{\text{copies}} \partial L /
\partial y` -- exactly the sum that undoes broadcasting, which the engine does for every
node (``engine.sum_to_shape``). ``repeat`` copies the numbers (``np.tile``); its backward
folds each repeated dimension into a (repeat, size) pair and sums over the repeats.
"""

import numpy as np

from minigrad.autograd.function import Function, linear_jvp
from minigrad.ops import batching
from minigrad.ops.maxima import _sum

__all__ = ["expand", "expand_as", "repeat"]


def _sizes(sizes):
    """``f(2, 3)`` or ``f((2, 3))``: the sizes as one tuple of ints."""
    if len(sizes) == 1 and isinstance(sizes[0], tuple | list):
        sizes = sizes[0]
    return tuple(int(s) for s in sizes)


def _expand_rule(cls, info, in_dims, a, shape):
    """Per sample: the sample's new leading dims go after the batch dim."""
    batch, rest = a._data.shape[0], a._data.shape[1:]
    a = a.reshape((batch,) + (1,) * (len(shape) - len(rest)) + rest)
    return cls.apply(a, (batch,) + shape), 0


def _repeat_rule(cls, info, in_dims, a, repeats):
    batch, rest = a._data.shape[0], a._data.shape[1:]
    a = a.reshape((batch,) + (1,) * (len(repeats) - len(rest)) + rest)
    return cls.apply(a, (1,) + repeats), 0


class Expand(Function):
    is_view = True
    vmap = batching.Rule(_expand_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, shape):
        return np.broadcast_to(a, shape)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None  # the engine sums it back to the input's shape

    jvp = staticmethod(linear_jvp)


class Repeat(Function):
    vmap = batching.Rule(_repeat_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, repeats):
        ctx.in_shape = a.shape
        return np.tile(a, repeats)

    @staticmethod
    def backward(ctx, grad_output):
        shape = ctx.in_shape
        n = len(grad_output.shape)
        padded = (1,) * (n - len(shape)) + tuple(shape)
        repeats = tuple(out // s if s else 0 for out, s in zip(grad_output.shape, padded,
                                                              strict=True))
        folded = grad_output.reshape(tuple(x for pair in zip(repeats, padded, strict=True)
                                           for x in pair))
        summed = _sum(folded, tuple(range(0, 2 * n, 2)), False)
        return summed.reshape(shape), None

    jvp = staticmethod(linear_jvp)


def expand(input, *sizes):  # noqa: A002 - torch's argument name
    sizes = _sizes(sizes)
    shape = input._data.shape
    if len(sizes) < len(shape):
        kind = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
                "bool": "Bool"}.get(str(input._data.dtype), "")
        raise RuntimeError(f"expand(torch.{kind}Tensor{{{list(shape)}}}, size={list(sizes)}): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(shape)}). Fix: "
                           "give one size per dimension (-1 keeps one), new ones in front.")
    lead = len(sizes) - len(shape)
    target = []
    for i, size in enumerate(sizes):
        old = shape[i - lead] if i >= lead else None
        if size == -1:
            if old is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}. Fix: give new "
                                   "leading dimensions a size.")
            size = old
        if old is not None and old != 1 and old != size:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the "
                               f"existing size ({old}) at non-singleton dimension {i}.  Target "
                               f"sizes: {list(sizes)}.  Tensor sizes: {list(shape)}. Fix: only "
                               "dimensions of size 1 expand; use repeat() to copy others.")
        target.append(size)
    return Expand.apply(input, tuple(target))


def expand_as(input, other):  # noqa: A002 - torch's argument name
    return expand(input, tuple(other.shape))


def repeat(input, *repeats):  # noqa: A002 - torch's argument name
    repeats = _sizes(repeats)
    if len(repeats) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor. Fix: give one count per dimension, "
                           "t.repeat(2, 1) for a matrix.")
    if any(r < 0 for r in repeats):
        padded = (1,) * (len(repeats) - input._data.ndim) + input._data.shape
        sizes = [r * s for r, s in zip(repeats, padded, strict=True)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{sizes}. Fix: repeat counts are 0 or more.")
    return Repeat.apply(input, repeats)
