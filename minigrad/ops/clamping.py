r"""``clamp(min, max)`` and its halves ``clamp_min``, ``clamp_max`` (chapters 07 and 11).

.. math::
    \text{clamp}(x) = \min(\max(x, \text{min}), \text{max}), \qquad
    \frac{\partial L}{\partial x} = \begin{cases} g & \text{min} \le x \le \text{max} \\
                                                  0 & \text{otherwise.} \end{cases}

The gradient passes *at* the boundary too (``x == min`` gets ``g``, as torch's
``clamp_backward``), not at NaN, and it is selected with ``where`` (an ``inf`` from
upstream outside the range gives 0, not NaN). With ``min > max`` every element is
``max`` and no gradient passes, as torch. With number bounds the dtype is torch's
promotion of the tensor with them (an int tensor clamped to 0.5 is float32); tensor
bounds, which get gradients too, are in :mod:`minigrad.ops.clamp_tensor`.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.dtypes import result_type
from minigrad.ops import batching
from minigrad.ops.clamp_tensor import ClampMaxTensor, ClampMinTensor, ClampTensor, clamp_tensors
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

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

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
        mask = _inside(a._data, *ctx.bounds)
        return Where.apply(mask, grad_output, 0.0, grad_output._data.dtype), None, None

    @staticmethod
    def differentiable_jvp(ctx, tangent, *bounds):  # nested forward levels: on tensors
        a, *limits = ctx.inputs
        low, high = _pair(ctx, limits[0]) if isinstance(ctx, _OneBound) else limits
        return Where.apply(_inside(a._data, low, high), tangent, 0.0, a._data.dtype)

    @staticmethod
    def jvp(ctx, tangent, t_low, t_high):
        a, low, high = ctx.inputs
        return np.where(_inside(a, low, high), tangent, 0)


def _pair(ctx, bound):
    """(low, high) of a one-bound node: ``clamp_min``'s bound is the low one."""
    return (bound, None) if ctx.low_side else (None, bound)


class _OneBound:
    """What ``clamp_min`` and ``clamp_max`` share: ``Clamp`` with one bound, the input's
    gradient only (a mixin, so it is not a node of its own)."""

    backward_name = None  # ClampMinBackward0 / ClampMaxBackward0, as torch
    low_side = True

    @staticmethod
    def forward(ctx, a, bound):
        return Clamp.forward(ctx, a, *_pair(ctx, bound))

    @staticmethod
    def backward(ctx, grad_output):
        return Clamp.backward(ctx, grad_output)[:2]

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return Clamp.differentiable_backward(ctx, grad_output)[:2]

    @staticmethod
    def jvp(ctx, tangent, t_bound):
        return np.where(_inside(ctx.inputs[0], *_pair(ctx, ctx.inputs[1])), tangent, 0)


class ClampMin(_OneBound, Clamp):
    low_side = True


class ClampMax(_OneBound, Clamp):
    low_side = False


def _is_tensor(bound):
    return hasattr(bound, "grad_fn")


def _number(bound):
    return bound.item() if isinstance(bound, np.generic) else bound


def _converted(a, *bounds):
    """``a`` in torch's result dtype for a tensor clamped to these numbers."""
    numbers = [b for b in bounds if b is not None]
    floats = [b for b in numbers if isinstance(b, float)]
    ints = [b for b in numbers if not isinstance(b, bool) and isinstance(b, int)]
    typical = floats[0] if floats else ints[0] if ints else numbers[0]
    return _to(a, result_type(a._data, typical))


def _promoted(*items):
    """Tensors (some None) converted to the dtype torch gives them together: tensors with
    dimensions first, 0-d ones only raising the category (as ``result_type``)."""
    present = [t for t in items if t is not None]
    groups = []
    for shape in ((0,), ()):
        dtypes = [t._data.dtype for t in present if bool(t._data.ndim) == bool(shape)]
        if dtypes:
            target = dtypes[0]
            for d in dtypes[1:]:
                target = result_type(np.empty(shape, target), np.empty(shape, d))
            groups.append(np.empty(shape, target))
    target = result_type(*groups) if len(groups) == 2 else groups[0].dtype
    return [None if t is None else _to(t, target) for t in items]


def _mixed(name, bounds):
    kinds = ", ".join(["Tensor"] + [type(b).__name__ if not _is_tensor(b) else "Tensor"
                                    for b in bounds])
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({kinds}), but expected (Tensor input, Tensor min = None, Tensor max "
                     "= None) or (Tensor input, Number min = None, Number max = None). Fix: "
                     "make both bounds numbers or both tensors.")


def clamp(input, min=None, max=None):  # noqa: A001, A002 - torch's names
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None. "
                           "Fix: give a lower bound, an upper bound or both.")
    tensor_bounds = [_is_tensor(b) for b in (min, max) if b is not None]
    if any(tensor_bounds):
        if not all(tensor_bounds):
            raise _mixed("clamp", (min, max))
        return clamp_tensors(ClampTensor, *_promoted(input, min, max))
    low, high = _number(min), _number(max)
    return Clamp.apply(_converted(input, low, high), low, high)


def clamp_min(input, min):  # noqa: A001, A002 - torch's names
    if _is_tensor(min):
        return clamp_tensors(ClampMinTensor, *_promoted(input, min))
    low = _number(min)
    return ClampMin.apply(_converted(input, low), low)


def clamp_max(input, max):  # noqa: A001, A002 - torch's names
    if _is_tensor(max):
        return clamp_tensors(ClampMaxTensor, *_promoted(input, max))
    high = _number(max)
    return ClampMax.apply(_converted(input, high), high)
