r"""In-place ops (``add_``, ``mul_``, ``zero_``...) and the version counter (chapter 12).

Every tensor carries a version counter that each in-place op increments (views and
``detach()`` share their base's counter). When an op saves a tensor for its backward,
it notes the version; if the tensor has changed by the time backward needs it,
backward refuses rather than compute a wrong gradient. torch does the same.

While gradients are recorded, an in-place op on a leaf that requires grad, or on a
view of one, is refused (its gradient would be lost), and on a non-leaf it is recorded
in the graph like the out-of-place op (``y.mul_(2)`` gets ``grad_fn=<MulBackward0>``).
Either way the tensor's own array is overwritten, so its views and ``detach()``
aliases see the new numbers; an in-place op on a view also rewrites its base's graph
(:mod:`minigrad.views`). Under ``no_grad``, as in an optimizer step, the numbers change
in place and nothing is recorded. As torch, the result must keep the tensor's dtype:
``int_tensor.add_(1.5)`` is refused.
"""

import numpy as np

from minigrad import views
from minigrad.autograd import forward_ad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import GRAD_ENABLED
from minigrad.dtypes import result_type, torch_name
from minigrad.ops import activations, arithmetic, rounding
from minigrad.ops.checks import alpha_operand, check_overlap

__all__ = ["InplaceMethods", "LEAF_INPLACE"]

LEAF_INPLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation. "
    "Fix: change it inside `with minigrad.no_grad():` after backward(), as "
    "optimizer.step() does (for a plain tensor, not a module's parameter, w = w + 1 "
    "also works: it builds a new tensor).")


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details. Fix: q = p.clone(), then "
    "change q.")


class InplaceMethods:
    """The in-place methods of ``Tensor``."""

    __slots__ = ()

    def _inplace(self, op, other, numpy_op, true_divide=False, cast=False):
        if self._is_inference and not GRAD_ENABLED.inference:
            raise RuntimeError(INFERENCE_INPLACE)
        other_data = getattr(other, "_data", other)
        check_overlap(self._data, other_data)
        shape = np.shape(other_data)
        if shape and shape != self._data.shape:
            _check_shape(self._data, other_data)
        if not cast:
            _check_cast(self._data.dtype, result_type(self._data, other_data, true_divide))
        other_grad = hasattr(other, "grad_fn") and other._requires_grad
        if forward_ad.LEVEL[0] is not None and (
                self._fw_tangent is not None or getattr(other, "_fw_tangent", None) is not None):
            raise NotImplementedError(
                "minigrad's forward mode does not follow in-place ops on dual tensors. Fix: "
                "use the out-of-place op (x = x + y) inside dual_level().")
        base = self._base
        if GRAD_ENABLED.enabled and (self._requires_grad or other_grad or (
                base is not None and base._requires_grad)):
            if self.grad_fn is None and self._requires_grad:
                raise RuntimeError(LEAF_INPLACE)
            views.check_view(self)
            views.write(self, op(self, other), other)
            return self
        numpy_op(self._data, other_data, out=self._data, casting="unsafe")
        self._version_counter[0] += 1
        return self

    def add_(self, other, alpha=1):
        return self._inplace(arithmetic.add, alpha_operand(self, other, alpha), np.add)

    def sub_(self, other, alpha=1):
        other = alpha_operand(self, other, alpha, subtract=True)
        return self._inplace(arithmetic.sub, other, np.subtract)

    def mul_(self, other):
        return self._inplace(arithmetic.mul, other, np.multiply)

    def div_(self, other):
        return self._inplace(arithmetic.div, other, np.divide, true_divide=True)

    def floor_divide_(self, other):
        return self._inplace(rounding.floor_divide, other, _floor_divide)

    def __ifloordiv__(self, other):
        return self.floor_divide_(other)

    def relu_(self):
        """``relu`` in place, recorded as ``ReluBackward0`` (which saves its output: the
        tensor itself, so a later in-place change of it is caught in backward)."""
        if self._data.dtype.kind == "b":
            activations.relu(self)  # torch's error for bools
        return self._inplace(_relu, None, _relu_numpy, cast=True)

    def floor_(self):
        return self._rounding(rounding.floor)

    def ceil_(self):
        return self._rounding(rounding.ceil)

    def trunc_(self):
        return self._rounding(rounding.trunc)

    def frac_(self):
        return self._rounding(rounding.frac)

    def round_(self, decimals=None):
        return self._rounding(lambda t: rounding.round(t, decimals))

    def _rounding(self, op):
        """A rounding op in place: recorded as the op itself (``FloorBackward0``...)."""
        if self._data.dtype.kind in "biu":
            op(self)  # torch's errors for bools (and ints for frac); ints stay as they are
        return self._inplace(lambda t, _: op(t), None, _numbers_of(op), cast=True)

    # ``w -= lr * w.grad`` changes w in place, as in torch (not ``w = w - ...``).
    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def zero_(self):
        return self._inplace(_zero, 0.0, _fill_zero, cast=True)

    def fill_(self, value):
        if GRAD_ENABLED.enabled and self._requires_grad:
            return self.zero_().add_(value)
        return self._inplace(None, value, _fill, cast=True)


def _check_shape(data, other):
    """torch's errors for an in-place op whose other operand does not fit."""
    error = arithmetic.broadcast_error(data, other)
    if error is not None:
        raise error
    target = np.broadcast_shapes(data.shape, np.shape(other))
    if target != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape "
            f"{list(target)}. Fix: an in-place op cannot change the tensor's shape; use the "
            "out-of-place op (x = x + y).")


class Zero(rounding.ZeroDerivative, Function):
    """``zero_()`` recorded: zeros (not ``x * 0``, which is nan at inf), gradient 0."""

    @staticmethod
    def forward(ctx, a, value):
        return np.zeros_like(a)


def _zero(tensor, value):
    return Zero.apply(tensor, value)


def _check_cast(dtype, result):
    """torch's refusal to store a float result in an int tensor (or an int in a bool)."""
    if "bif".index(result.kind) > "bif".index("i" if dtype.kind == "u" else dtype.kind):
        raise RuntimeError(
            f"result type {torch_name(result)} can't be cast to the desired output type "
            f"{torch_name(dtype)}. Fix: convert the tensor first (t = t.float()), or use "
            "the out-of-place op (t = t + 1.5).")


def _fill_zero(data, other, out, casting=None):
    out.fill(0)


def _fill(data, value, out, casting=None):
    np.copyto(out, value, casting="unsafe")


def _floor_divide(data, other, out, casting=None):
    rounding.check_floor_divide(data, other)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.floor_divide(data, other, out=out, casting=casting)


def _numbers_of(op):
    """The numpy version of an op for ``_inplace``'s unrecorded path."""
    def numbers(data, other, out, casting=None):
        from minigrad.tensors import make
        np.copyto(out, op(make(data, None))._data, casting="unsafe")
    return numbers


def _relu(tensor, _):
    return activations.relu(tensor)


def _relu_numpy(data, _, out, casting=None):
    np.copyto(out, np.where(data < 0, np.zeros((), data.dtype), data))
