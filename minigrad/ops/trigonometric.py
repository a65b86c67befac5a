r"""The rest of the trigonometric family (``sin`` and ``cos`` are in ``trig.py``), chapter
05's table of derivatives:

.. math::
    \frac{d}{dx} \tan x = 1 + \tan^2 x, \quad
    \frac{d}{dx} \arctan x = \frac{1}{1 + x^2}, \quad
    \frac{d}{dx} \arcsin x = \frac{1}{\sqrt{1 - x^2}}, \quad
    \frac{d}{dx} \arccos x = \frac{-1}{\sqrt{1 - x^2}}, \quad
    \frac{d}{dx} \sinh x = \cosh x, \quad \frac{d}{dx} \cosh x = \sinh x .

Each a :class:`~minigrad.ops.special.Unary` (one derivative for backward, double backward
and forward mode); ``tan`` saves its output, the others their input, as torch. Outside
the domain (``asin(2)``) the value is NaN, as torch's.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.activations import _floating
from minigrad.ops.special import Unary, call

__all__ = ["tan", "atan", "asin", "acos", "sinh", "cosh"]


class Tan(Unary, Function):
    numpy_op = staticmethod(np.tan)
    saves_output = True

    @staticmethod
    def derivative(out):
        return 1 + out * out


class Atan(Unary, Function):
    numpy_op = staticmethod(np.arctan)

    @staticmethod
    def derivative(a):
        return 1 / (a * a + 1)


class Asin(Unary, Function):
    numpy_op = staticmethod(np.arcsin)

    @staticmethod
    def derivative(a):
        return (1 - a * a) ** -0.5


class Acos(Unary, Function):
    numpy_op = staticmethod(np.arccos)

    @staticmethod
    def derivative(a):
        return -((1 - a * a) ** -0.5)


class Sinh(Unary, Function):
    numpy_op = staticmethod(np.sinh)

    @staticmethod
    def derivative(a):
        return call("cosh", a)


class Cosh(Unary, Function):
    numpy_op = staticmethod(np.cosh)

    @staticmethod
    def derivative(a):
        return call("sinh", a)


def tan(input):  # noqa: A002 - torch's argument name
    return Tan.apply(_floating(input))


def atan(input):  # noqa: A002 - torch's argument name
    return Atan.apply(_floating(input))


def asin(input):  # noqa: A002 - torch's argument name
    return Asin.apply(_floating(input))


def acos(input):  # noqa: A002 - torch's argument name
    return Acos.apply(_floating(input))


def sinh(input):  # noqa: A002 - torch's argument name
    return Sinh.apply(_floating(input))


def cosh(input):  # noqa: A002 - torch's argument name
    return Cosh.apply(_floating(input))
