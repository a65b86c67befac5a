r"""Elementwise arithmetic with broadcasting: ``+ - * / **`` and negation (chapter 05).

Each backward returns gradients in the shape of the (broadcast) result; the engine sums
them back to each input's shape (``engine.sum_to_shape``). The local derivatives:

.. math::
    \frac{\partial (a b)}{\partial a} = b, \quad
    \frac{\partial (a / b)}{\partial b} = -\frac{a}{b^2}, \quad
    \frac{\partial a^p}{\partial a} = p\, a^{p-1}, \quad
    \frac{\partial a^b}{\partial b} = a^b \ln a .

A Python number stays a number (no tensor is made for it), so ``x * 2`` keeps
``x``'s dtype, as in torch. Mixed dtypes follow torch's promotion
(:func:`minigrad.dtypes.result_type`), not numpy's: an operand of another dtype is
converted first (an int one to float32 for ``int_tensor * 2.5``; one that requires
grad through a ``ToCopy`` node, so its gradient comes back in its own dtype).

At zero, ``a ** b`` follows torch: :math:`\partial a^b / \partial a = 0` where
:math:`b = 0`, and :math:`\partial a^b / \partial b = 0` where :math:`a = 0,\ b \ge 0`
(not numpy's ``0 * inf = nan`` or ``log 0 = -inf``).
"""

import math

import numpy as np

from minigrad.autograd.function import Function, constant, zeros_if_none
from minigrad.ops import batching
from minigrad.ops.promotion import check_int_power, int_power, promote

__all__ = ["add", "sub", "rsub", "mul", "div", "rdiv", "neg", "pow", "rpow", "broadcast_error"]


class Add(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return zeros_if_none(ta, a) + zeros_if_none(tb, np.asarray(b))


class Sub(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, -grad_output

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return zeros_if_none(ta, a) - zeros_if_none(tb, np.asarray(b))


class Rsub(Function):
    """``number - tensor``; the tensor comes first, as in torch's ``RsubBackward1``."""

    backward_name = "RsubBackward1"

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, number):
        return number - a

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output, None

    @staticmethod
    def jvp(ctx, ta, _):
        return -ta


class Mul(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)
    _pack_order = (1, 0)  # torch saves other, then self (saved_tensors_hooks see it)

    @staticmethod
    def forward(ctx, a, b):
        # As torch: keep b only if a needs a gradient and a only if b does, so a later
        # in-place change of a constant operand is no error.
        need_a, need_b = ctx.needs_input_grad or (False, False)
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad_output * b if need_a else None), (grad_output * a if need_b else None)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return (0 if ta is None else ta * b) + (0 if tb is None else a * tb)


class Div(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        need_b = (ctx.needs_input_grad or (False, False))[1]
        ctx.save_for_backward(a if need_b else None, b)
        return a / b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_output / b if need_a else None
        grad_b = -grad_output * a / (b * b) if need_b else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, ta, tb):
        _, b = ctx.inputs
        return ((0 if ta is None else ta) - (0 if tb is None else ctx.result * tb)) / b


class Reciprocal(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        out = 1.0 / a
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return -grad_output * out * out

    @staticmethod
    def jvp(ctx, ta):
        return -ctx.result * ctx.result * ta


class Neg(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output

    @staticmethod
    def jvp(ctx, ta):
        return -ta


class Pow(Function):
    """``tensor ** number``."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        if exponent == -0.5:  # torch's rsqrt: -inf at -0.0 and nan at -inf, as 1 / sqrt
            with np.errstate(divide="ignore", invalid="ignore"):
                return 1 / np.sqrt(a)
        return a ** exponent

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        p = ctx.exponent
        if p == 0:
            return np.zeros_like(grad_output), None
        with np.errstate(divide="ignore", invalid="ignore"):  # torch's a ** -0.5 is rsqrt:
            power = 1 / np.sqrt(a) if p == 0.5 else a ** (p - 1)  # -inf at -0.0, as torch
            return grad_output * p * power, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        p = ctx.exponent
        if p == 0:
            return grad_output * constant(np.zeros(a._data.shape, a._data.dtype)), None
        return grad_output * p * a ** (p - 1), None

    @staticmethod
    def jvp(ctx, ta, _):
        p = ctx.exponent
        if p == 0:
            return np.zeros_like(ctx.result)
        with np.errstate(divide="ignore", invalid="ignore"):
            return p * ctx.inputs[0] ** (p - 1) * ta


class PowTensor(Function):
    """``tensor ** tensor``."""

    backward_name = "PowBackward1"

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        out = _c_power(a, b) if a.dtype.kind == "f" else int_power(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a and getattr(ctx, "bool_exponent", False):  # torch's computes b - 1
            _check_bool_sub(True, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            if need_a:  # torch: 0 where b == 0, even at a == 0
                grad_a = np.where(b == 0, 0, grad_output * b * _c_power(a, b - 1))
            if need_b:  # torch: 0 where a == 0 and b >= 0
                grad_b = grad_output * np.where((a == 0) & (b >= 0), 0, out * np.log(a))
        return grad_a, grad_b

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        dtype = a._data.dtype
        if need_a:  # 0 where b == 0, as torch
            grad_a = grad_output * b * a ** (b - 1) * constant(b._data != 0, dtype)
        if need_b:  # 0 where a == 0 and b >= 0; log of 1 there, so no nan
            off = (a._data == 0) & (b._data >= 0)
            safe = a * constant(~off, dtype) + constant(off, dtype)
            grad_b = grad_output * out * safe.log() * constant(~off, dtype)
        return grad_a, grad_b

    @staticmethod
    def differentiable_jvp(ctx, ta, tb):  # nested forward levels: on tensors
        from minigrad.ops.selection import Where

        x, y = ctx.inputs
        dtype = ctx.result._data.dtype
        with np.errstate(divide="ignore", invalid="ignore"):
            d = 0 if ta is None else Where.apply(y._data == 0, 0.0, y * x ** (y - 1) * ta,
                                                 dtype)
            e = 0 if tb is None else Where.apply((x._data == 0) & (y._data >= 0), 0.0,
                                                 ctx.result * x.log(), dtype) * tb
        return d + e

    @staticmethod
    def jvp(ctx, ta, tb):
        x, y = ctx.inputs
        with np.errstate(divide="ignore", invalid="ignore"):
            d = 0 if ta is None else np.where(y == 0, 0, y * x ** (y - 1) * ta)
            e = 0 if tb is None else np.where((x == 0) & (y >= 0), 0,
                                              ctx.result * np.log(x)) * tb
        return d + e


def _c_power(a, b):
    """``a ** b`` elementwise as C's ``pow`` (torch's, for a tensor exponent): numpy
    takes a faster path for a broadcast operand that gives nan for ``(-inf) ** 0.5``."""
    if a.shape != b.shape:
        a, b = (np.array(x) for x in np.broadcast_arrays(a, b))
    return np.power(a, b)


class RPow(Function):
    """``number ** tensor``."""

    backward_name = "PowBackward2"

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, b, base):
        out = base ** b
        ctx.save_for_backward(out, b)  # b too, as torch: an in-place change of it is caught
        ctx.base = base
        return out

    @staticmethod
    def backward(ctx, grad_output):
        out, b = ctx.saved_tensors
        if ctx.base == 0:  # torch: 0 where the exponent is >= 0 (0 ** x is flat there)
            with np.errstate(divide="ignore", invalid="ignore"):
                return grad_output * np.where(b >= 0, 0, out * -np.inf), None
        return grad_output * out * np.log(ctx.base), None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        out, b = ctx.saved_tensors
        if ctx.base == 0:  # 0 or -inf: constant pieces
            with np.errstate(invalid="ignore"):
                return grad_output * constant(np.where(b._data >= 0, 0, -np.inf)), None
        return grad_output * out * math.log(ctx.base), None

    @staticmethod
    def jvp(ctx, tb, _):
        if ctx.base == 0:
            with np.errstate(invalid="ignore"):
                return np.where(ctx.inputs[0] >= 0, 0, ctx.result * -np.inf) * tb
        return ctx.result * math.log(ctx.base) * tb


def broadcast_error(a, b):
    """torch's message for shapes that do not broadcast, or None if they do."""
    shape_a, shape_b = np.shape(a), np.shape(b)
    n = max(len(shape_a), len(shape_b))
    sa, sb = (1,) * (n - len(shape_a)) + shape_a, (1,) * (n - len(shape_b)) + shape_b
    for i in range(n - 1, -1, -1):
        if sa[i] != sb[i] and 1 not in (sa[i], sb[i]):
            return RuntimeError(
                f"The size of tensor a ({sa[i]}) must match the size of tensor b ({sb[i]}) "
                f"at non-singleton dimension {i}. Fix: shapes {list(shape_a)} and "
                f"{list(shape_b)} do not broadcast; reshape one, e.g. with unsqueeze(), so "
                "every dimension is equal or 1 (counted from the last).")
    return None


def _binary(op, a, b, true_divide=False):
    a, b = promote(a, b, true_divide)
    try:
        return op.apply(a, b)
    except ValueError:
        error = broadcast_error(getattr(a, "_data", a), getattr(b, "_data", b))
        if error is None:
            raise
        raise error from None


def add(a, b):
    return _binary(Add, a, b)


def sub(a, b):
    _check_bool_sub(a, b)
    return _binary(Sub, a, b)


def rsub(a, number):
    _check_bool_sub(a, number)
    a, number = promote(a, number)
    return Rsub.apply(a, number)


def _check_bool_sub(a, b):
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead. Fix: "
                           "or convert first, a.long() - b.long().")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead. Fix: or convert first, t.long().")


def _is_bool(x):
    dtype = getattr(getattr(x, "_data", x), "dtype", None)
    return isinstance(x, bool) or dtype == np.bool_


def mul(a, b):
    return _binary(Mul, a, b)


def div(a, b):
    return _binary(Div, a, b, true_divide=True)


def rdiv(a, number):
    """``number / tensor``: as torch, ``number * reciprocal(tensor)``."""
    a, number = promote(a, number, true_divide=True)
    return Mul.apply(reciprocal(a), number)


def reciprocal(a):
    a, _ = promote(a, 1, true_divide=True)  # an int tensor: float32, as torch
    return Reciprocal.apply(a)


def neg(a):
    if _is_bool(a):
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead. Fix: or convert first, -t.long().")
    return Neg.apply(a)


def pow(a, exponent):  # noqa: A001 - torch.pow
    if _is_bool(a) and _is_bool(exponent):
        error = broadcast_error(a._data, getattr(exponent, "_data", exponent))
        if error is not None:  # shapes first, as torch
            raise error
        raise NotImplementedError('"pow" not implemented for \'Bool\'. Fix: convert first, '
                                  "t.long() ** e.")
    if isinstance(exponent, int | float):
        check_int_power(a, exponent)
        a, exponent = promote(a, exponent)
        return Pow.apply(a, exponent)
    check_int_power(a, exponent)
    out = _binary(PowTensor, a, exponent)
    if out.grad_fn is not None and _is_bool(exponent):
        out.grad_fn.bool_exponent = True
    return out


def rpow(a, base):
    a, base = promote(a, base)
    return RPow.apply(a, base)
