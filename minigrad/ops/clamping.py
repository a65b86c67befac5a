r"""``clamp(min, max)`` and its halves ``clamp_min``, ``clamp_max`` (chapters 07 and 11).

.. math::
    \text{clamp}(x) = \min(\max(x, \text{min}), \text{max}), \qquad
    \frac{\partial L}{\partial x} = \begin{cases} g & \text{min} \le x \le \text{max} \\
                                                  0 & \text{otherwise.} \end{cases}

The gradient passes *at* the boundary too (``x == min`` gets ``g``, as torch's
``clamp_backward``), not at NaN, and it is selected with ``where`` (an ``inf`` from
upstream outside the range gives 0, not NaN). With ``min > max`` every element is
``max`` and no gradient passes, as torch. The bounds here are numbers; the dtype is
torch's promotion of the tensor with them (an int tensor clamped to 0.5 is float32).
"""

import numpy as np

from minigrad.dtypes import result_type
from minigrad.function import Function
from minigrad.ops.promotion import _to
from minigrad.ops.selection import Where

__all__ = ["clamp", "clamp_min", "clamp_max"]


def _inside(a, low, high):
    """Where the gradient passes: ``low <= a <= high`` (False at NaN)."""
    mask = np.ones(a.shape, dtype=bool)
    if low is not None:
        mask &= a >= low
    if high is not None:
        mask &= a <= high
    return mask


class Clamp(Function):
    """``clamp(min, max)`` with number bounds (either may be None)."""

    backward_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save_for_backward(a)
        ctx.bounds = (low, high)
        out = a if low is None else np.maximum(a, low)
        out = out if high is None else np.minimum(out, high)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return np.where(_inside(a, *ctx.bounds), grad_output, 0), None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        mask = _inside(a.data, *ctx.bounds)
        return Where.apply(mask, grad_output, 0.0, grad_output.data.dtype), None, None

    @staticmethod
    def jvp(ctx, tangent, t_low, t_high):
        a, low, high = ctx.inputs
        return np.where(_inside(a, low, high), tangent, 0)


class ClampMin(Clamp):
    backward_name = None  # ClampMinBackward0, as torch

    @staticmethod
    def forward(ctx, a, low):
        return Clamp.forward(ctx, a, low, None)

    @staticmethod
    def backward(ctx, grad_output):
        return Clamp.backward(ctx, grad_output)[:2]

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return Clamp.differentiable_backward(ctx, grad_output)[:2]

    @staticmethod
    def jvp(ctx, tangent, t_low):
        return np.where(_inside(ctx.inputs[0], ctx.inputs[1], None), tangent, 0)


class ClampMax(Clamp):
    backward_name = None  # ClampMaxBackward0

    @staticmethod
    def forward(ctx, a, high):
        return Clamp.forward(ctx, a, None, high)

    @staticmethod
    def backward(ctx, grad_output):
        return Clamp.backward(ctx, grad_output)[:2]

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return Clamp.differentiable_backward(ctx, grad_output)[:2]

    @staticmethod
    def jvp(ctx, tangent, t_high):
        return np.where(_inside(ctx.inputs[0], None, ctx.inputs[1]), tangent, 0)


def _number(bound, name):
    if bound is None or isinstance(bound, int | float):
        return bound
    if isinstance(bound, np.generic) or (hasattr(bound, "grad_fn") and not bound.data.ndim
                                         and not bound._requires_grad):
        return bound.item()
    raise NotImplementedError(
        f"minigrad's clamp takes numbers for '{name}', not {type(bound).__name__} (torch also "
        "takes tensors, with a gradient for them). Fix: pass a number, or use "
        "minigrad.where(x < low, low, x) for a tensor bound.")


def _converted(a, *bounds):
    """``a`` in torch's result dtype for a tensor clamped to these numbers."""
    numbers = [b for b in bounds if b is not None]
    floats = [b for b in numbers if isinstance(b, float)]
    ints = [b for b in numbers if not isinstance(b, bool) and isinstance(b, int)]
    typical = floats[0] if floats else ints[0] if ints else numbers[0]
    return _to(a, result_type(a.data, typical))


def clamp(input, min=None, max=None):  # noqa: A001, A002 - torch's names
    low, high = _number(min, "min"), _number(max, "max")
    if low is None and high is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None. "
                           "Fix: give a lower bound, an upper bound or both.")
    return Clamp.apply(_converted(input, low, high), low, high)


def clamp_min(input, min):  # noqa: A001, A002 - torch's names
    low = _number(min, "min")
    return ClampMin.apply(_converted(input, low), low)


def clamp_max(input, max):  # noqa: A001, A002 - torch's names
    high = _number(max, "max")
    return ClampMax.apply(_converted(input, high), high)
