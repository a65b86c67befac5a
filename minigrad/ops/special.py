r"""More elementwise functions of one tensor, each with its derivative (chapters 05-07):

.. math::
    \frac{d}{dx} x^{-1/2} = -\tfrac12 x^{-3/2}, \quad
    \frac{d}{dx} \ln(1 + x) = \frac{1}{1 + x}, \quad
    \frac{d}{dx} (e^x - 1) = e^x, \quad
    \frac{d}{dx} \log_2 x = \frac{1}{x \ln 2}, \quad
    \frac{d}{dx} \log_{10} x = \frac{1}{x \ln 10}, \quad
    \frac{d}{dx} 2^x = 2^x \ln 2, \quad
    \frac{d}{dx} \operatorname{erf} x = \tfrac{2}{\sqrt\pi} e^{-x^2} .

``log1p`` and ``expm1`` are accurate near 0, where ``log(1 + x)`` loses digits. Each op
is a :class:`Unary`: a numpy function, what it saves (input or output, as torch) and its
``derivative`` written with operators, so the same line serves backward on arrays, a
recorded backward on tensors (double backward) and the tangent of forward mode. As torch,
an int or bool tensor gives a float32 result; ``square`` is ``pow(x, 2)`` (torch's
``PowBackward0``) and keeps an int tensor's dtype.
"""

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching
from minigrad.ops.activations import _floating

__all__ = ["Unary", "call", "square", "rsqrt", "log1p", "expm1", "log2", "log10", "exp2",
           "erf"]


def call(name, x):
    """``np.<name>(x)`` on an array, ``x.<name>()`` on a tensor (a recorded backward)."""
    return getattr(x, name)() if hasattr(x, "grad_fn") else getattr(np, name)(x)


class Unary:
    """An elementwise op (a mixin before ``Function``): ``numpy_op`` forward,
    ``derivative(saved)`` for every mode."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)
    saves_output = False  # torch saves the result (tan, rsqrt, ...) or the input
    numpy_op = None

    @staticmethod
    def derivative(saved):
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, a):
        with np.errstate(all="ignore"):  # nan and inf outside the domain, as torch
            out = np.asarray(cls.numpy_op(a))
        ctx.save_for_backward(out if cls.saves_output else a)
        return out

    @classmethod
    def backward(cls, ctx, grad_output):
        (saved,) = ctx.saved_tensors
        with np.errstate(all="ignore"):
            return grad_output * cls.derivative(saved)

    @classmethod
    def jvp(cls, ctx, tangent):
        with np.errstate(all="ignore"):
            return tangent * cls.derivative(ctx.result if cls.saves_output else ctx.inputs[0])


class Rsqrt(Unary, Function):
    saves_output = True

    @staticmethod
    def numpy_op(a):
        return 1 / np.sqrt(a)

    @staticmethod
    def derivative(out):
        return -0.5 * (out * out * out)


class Log1P(Unary, Function):
    numpy_op = staticmethod(np.log1p)

    @staticmethod
    def derivative(a):
        return 1 / (a + 1)


class Expm1(Unary, Function):
    numpy_op = staticmethod(np.expm1)
    saves_output = True

    @staticmethod
    def derivative(out):
        return out + 1


class Log2(Unary, Function):
    numpy_op = staticmethod(np.log2)

    @staticmethod
    def derivative(a):
        return 1 / (a * math.log(2))


class Log10(Unary, Function):
    numpy_op = staticmethod(np.log10)

    @staticmethod
    def derivative(a):
        return 1 / (a * math.log(10))


class Exp2(Unary, Function):
    numpy_op = staticmethod(np.exp2)
    saves_output = True

    @staticmethod
    def derivative(out):
        return out * math.log(2)


def _erf(a):
    """erf elementwise, in the array's dtype (math.erf is exact to the last bit or so)."""
    flat = [math.erf(v) for v in np.asarray(a, dtype=np.float64).ravel().tolist()]
    return np.array(flat, dtype=a.dtype).reshape(a.shape)


class Erf(Unary, Function):
    numpy_op = staticmethod(_erf)

    @staticmethod
    def derivative(a):
        return call("exp", -(a * a)) * (2 / math.sqrt(math.pi))


def square(input):  # noqa: A002 - torch's argument name
    """``input ** 2``: torch's ``square`` is ``pow`` (its node ``PowBackward0``)."""
    if input._data.dtype.kind == "b":
        return input.long() ** 2
    return input ** 2


def rsqrt(input):  # noqa: A002 - torch's argument name
    return Rsqrt.apply(_floating(input))


def log1p(input):  # noqa: A002 - torch's argument name
    return Log1P.apply(_floating(input))


def expm1(input):  # noqa: A002 - torch's argument name
    return Expm1.apply(_floating(input))


def log2(input):  # noqa: A002 - torch's argument name
    return Log2.apply(_floating(input))


def log10(input):  # noqa: A002 - torch's argument name
    return Log10.apply(_floating(input))


def exp2(input):  # noqa: A002 - torch's argument name
    return Exp2.apply(_floating(input))


def erf(input):  # noqa: A002 - torch's argument name
    return Erf.apply(_floating(input))
