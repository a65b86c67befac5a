r"""``clamp`` with *tensor* bounds (chapter 11): ``x.clamp(min=low, max=high)`` where the
bounds are tensors that broadcast with ``x`` and may require grad themselves.

Each output element is ``x``, ``min`` or ``max``, and the gradient goes to the one it
was, as torch's ``clamp_backward`` and ``clamp_backward_min_max``:

.. math::
    \frac{\partial L}{\partial x} = g\,[\text{min} \le x \le \text{max}], \quad
    \frac{\partial L}{\partial \text{min}} = g\,[x < \text{min} < \text{max}], \quad
    \frac{\partial L}{\partial \text{max}} = g\,[x > \text{max} \ \lor\ \text{max} < \text{min}]

(with one bound only, :math:`[x < \text{min}]` or :math:`[x > \text{max}]`). Where the
bounds cross, every element is ``max`` and its gradient goes there. Nodes as torch's:
``ClampBackward0`` for ``clamp``, ``ClampMinBackward1``/``ClampMaxBackward1`` for
``clamp_min``/``clamp_max`` with a tensor.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching
from minigrad.ops.arithmetic import broadcast_error
from minigrad.ops.selection import Where

__all__ = ["ClampTensor", "ClampMinTensor", "ClampMaxTensor", "clamp_tensors"]


def _masks(a, low, high):
    """Where the gradient goes: to ``x``, to ``min``, to ``max`` (None: no such bound)."""
    to_x = np.ones(np.broadcast_shapes(*[np.shape(v) for v in (a, low, high)
                                          if v is not None]), dtype=bool)
    if low is not None:
        to_x = to_x & (a >= low)
    if high is not None:
        to_x = to_x & (a <= high)
    to_low = to_high = None
    if low is not None:
        to_low = (a < low) & (low < high) if high is not None else a < low
    if high is not None:
        to_high = (a > high) | (high < low) if low is not None else a > high
    return to_x, to_low, to_high


class ClampTensor(Function):
    backward_name = "ClampBackward0"
    which = (0, 1, 2)  # forward's inputs among (x, min, max)

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, low, high):
        return _forward(ctx, a, low, high)

    @staticmethod
    def backward(ctx, grad_output):
        masks = _masks(*ctx.saved_tensors)
        return tuple(np.where(masks[i], grad_output, 0) if need and masks[i] is not None
                     else None for i, need in zip(ctx.which, ctx.needs_input_grad, strict=True))

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        masks = _masks(*[None if v is None else v._data for v in ctx.saved_tensors])
        dtype = grad_output._data.dtype
        return tuple(Where.apply(masks[i], grad_output, 0.0, dtype)
                     if need and masks[i] is not None else None
                     for i, need in zip(ctx.which, ctx.needs_input_grad, strict=True))

    @staticmethod
    def jvp(ctx, *tangents):
        placed = [None, None, None]
        for i, value in zip(ctx.which, ctx.inputs, strict=True):
            placed[i] = value
        masks = _masks(*placed)
        total = 0
        for i, tangent in zip(ctx.which, tangents, strict=True):
            if tangent is not None and masks[i] is not None:
                total = total + np.where(masks[i], tangent, 0)
        return total


class ClampMinTensor(ClampTensor):
    backward_name = "ClampMinBackward1"
    which = (0, 1)

    @staticmethod
    def forward(ctx, a, low):
        return _forward(ctx, a, low, None)


class ClampMaxTensor(ClampTensor):
    backward_name = "ClampMaxBackward1"
    which = (0, 2)

    @staticmethod
    def forward(ctx, a, high):
        return _forward(ctx, a, None, high)


def _forward(ctx, a, low, high):
    ctx.save_for_backward(a, low, high)
    out = a if low is None else np.maximum(a, low)
    return out if high is None else np.minimum(out, high)


def clamp_tensors(op, a, *bounds):
    """Run ``op`` (one of the classes above) after torch's broadcasting check."""
    shapes = [b._data for b in bounds if b is not None]
    for other in shapes:
        error = broadcast_error(a._data, other)
        if error is not None:
            raise error
    return op.apply(a, *bounds)
