r"""Rounding ops: ``//`` (``floor_divide``) and ``round`` (chapter 12's non-differentiable
corners; chapter 05 lists the operators).

``a // b`` is :math:`\lfloor a / b \rfloor` with Python's (and torch's) rule for signs,
in torch's promoted dtype: two int tensors stay int, an int and a float give the float's
dtype (``int_tensor // 2.5`` is float32). As torch, an integer division by zero is an
error and two bools are refused. torch has no derivative for it: the result of an input
that requires grad requires grad too, with a node whose backward refuses
("derivative for aten::floor_divide is not implemented"). Use ``torch.div(a, b,
rounding_mode="floor")``'s gradient in torch, or ``(a / b).floor()`` treated as a step
function, if a gradient is wanted.

``floor``, ``ceil`` and ``trunc`` round down, up and toward zero (an int tensor is
returned as it is, a bool one refused, as torch); like ``round`` they are step functions
with a zero gradient (``FloorBackward0``...). ``frac`` is :math:`x - \mathrm{trunc}(x)`
(sign kept, as torch), a sawtooth whose gradient is 1 (``FracBackward0``); torch
refuses it for ints.

``round`` rounds half to even, as torch and numpy; ``round(decimals=d)`` computes
:math:`\mathrm{rint}(x \cdot 10^d) / 10^d` (for :math:`d < 0`,
:math:`\mathrm{rint}(x / 10^{-d}) \cdot 10^{-d}`) in the tensor's own dtype, as torch's
kernel. A step function: its gradient is zero almost everywhere, and torch's
``RoundBackward0`` (``RoundBackward1`` with ``decimals``) returns zeros.
"""

import numpy as np

from minigrad.autograd.function import Function, constant
from minigrad.dtypes import torch_name
from minigrad.ops import batching
from minigrad.ops.promotion import promote

__all__ = ["floor_divide", "rfloordiv", "round", "floor", "ceil", "trunc", "frac",
           "check_floor_divide"]


class FloorDivide(Function):
    """Forward only: torch registers no derivative for ``floor_divide``."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    def name(self):
        return "torch::autograd::NotImplemented"  # torch's node for a missing derivative

    def __repr__(self):
        return "<NotImplemented object>"

    @staticmethod
    def forward(ctx, a, b):
        check_floor_divide(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):  # float / 0: inf, nan
            return np.floor_divide(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("derivative for aten::floor_divide is not implemented. Fix: "
                           "compute it without recording (under minigrad.no_grad(), or "
                           "on a.detach()), since // is a step function with no gradient.")

    differentiable_backward = backward

    @staticmethod
    def jvp(ctx, ta, tb):
        raise NotImplementedError("Trying to use forward AD with aten::floor_divide that "
                                  "does not support it. Fix: compute it on the primal "
                                  "(unpack_dual(x).primal // b): it has no derivative.")


def check_floor_divide(a, b):
    """torch's refusals: two bools; an integer division by zero."""
    da, db = np.asarray(a), np.asarray(b)
    if da.dtype.kind == "b" and db.dtype.kind == "b":
        raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'. Fix: "
                                  "convert first, a.long() // b.long().")
    if da.dtype.kind in "iub" and db.dtype.kind in "iub" and (db == 0).any():
        raise RuntimeError("ZeroDivisionError. Fix: integer // 0 has no value; divide by "
                           "non-zero numbers, or make the tensor float (x.double() // 0 is "
                           "inf).")


def floor_divide(a, b):
    """``a // b`` (``a`` a tensor, ``b`` a tensor or a number)."""
    from minigrad.ops.arithmetic import broadcast_error

    a, b = promote(a, b)
    try:
        return FloorDivide.apply(a, b)
    except ValueError:
        error = broadcast_error(a._data, getattr(b, "_data", b))
        if error is None:
            raise
        raise error from None


def rfloordiv(a, number):
    """``number // a``: the number in a's promoted dtype, then as :func:`floor_divide`."""
    a, number = promote(a, number)
    return FloorDivide.apply(constant(np.asarray(number, dtype=a._data.dtype)), a)


class ZeroDerivative:
    """The derivative of a piecewise-constant op (round, and ``zero_()`` in
    minigrad/inplace.py): 0 in backward, in double backward and in forward mode (a mixin,
    so it is not a node of its own)."""

    @staticmethod
    def backward(ctx, grad_output):
        return np.zeros_like(grad_output), None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        data = grad_output._data
        return grad_output * constant(np.zeros(data.shape, data.dtype)), None

    @staticmethod
    def jvp(ctx, ta, _):
        return np.zeros_like(ctx.result)


class Round(ZeroDerivative, Function):
    """``round``; forward's ``decimals`` is None for torch's ``round()`` overload."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, decimals):
        if decimals is not None:
            ctx.backward_name = "RoundBackward1"
        if a.dtype.kind in "iu":
            if decimals is not None:
                raise NotImplementedError(
                    f"\"round_cpu\" not implemented for '{torch_name(a.dtype)}'. Fix: make "
                    "the tensor float first, t.double().round(decimals=...).")
            return a.copy()
        if not decimals:
            return np.rint(a)
        scale = a.dtype.type(10.0 ** abs(decimals))
        return np.rint(a / scale) * scale if decimals < 0 else np.rint(a * scale) / scale



def round(a, decimals=None):  # noqa: A001 - torch's name
    if a._data.dtype.kind == "b":
        raise NotImplementedError("\"round_vml_cpu\" not implemented for 'Bool'. Fix: "
                                  "a bool tensor is already whole numbers; convert it, "
                                  "t.long(), if you need numbers.")
    return Round.apply(a, decimals)


def _refuse_bools(a, kernel):
    if a._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'. Fix: a bool "
                                  "tensor is already whole numbers; convert it, t.long(), "
                                  "if you need numbers.")


class _Step(ZeroDerivative):
    """``floor``, ``ceil``, ``trunc`` (a mixin): ``numpy_op`` on floats, ints returned as
    they are; zero derivatives."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)
    numpy_op = None

    @classmethod
    def forward(cls, ctx, a, _):  # a second input, so ZeroDerivative's rules fit
        return a.copy() if a.dtype.kind in "iu" else cls.numpy_op(a)


class Floor(_Step, Function):
    numpy_op = staticmethod(np.floor)


class Ceil(_Step, Function):
    numpy_op = staticmethod(np.ceil)


class Trunc(_Step, Function):
    numpy_op = staticmethod(np.trunc)


class Frac(Function):
    """``x - trunc(x)``: gradient 1 everywhere (torch's ``FracBackward0``)."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        with np.errstate(invalid="ignore"):  # inf - inf: nan, as torch
            return a - np.trunc(a)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

    differentiable_backward = backward

    @staticmethod
    def jvp(ctx, ta):
        return ta


def floor(a):
    _refuse_bools(a, "floor_vml_cpu")
    return Floor.apply(a, None)


def ceil(a):
    _refuse_bools(a, "ceil_vml_cpu")
    return Ceil.apply(a, None)


def trunc(a):
    _refuse_bools(a, "trunc_vml_cpu")
    return Trunc.apply(a, None)


def frac(a):
    if a._data.dtype.kind in "biu":
        raise NotImplementedError(
            f"\"frac_cpu\" not implemented for '{torch_name(a._data.dtype)}'. Fix: make the "
            "tensor float first (t.double().frac()); an integer's fractional part is 0.")
    return Frac.apply(a)
