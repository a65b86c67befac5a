"""The ``Tensor`` methods of torch's everyday ops added after chapter 05's list (a mixin
of :class:`~minigrad.ops.methods.TensorMethods`): each a thin call into its op module
(``special``, ``trigonometric``, ``binary``, ``maxima``, ...), with torch's argument
names and defaults. A method taking a second tensor refuses a number as torch does."""

from minigrad.ops import binary, maxima, special, trigonometric
from minigrad.ops.checks import tensor_arguments

__all__ = ["OpMethods"]


def _unary(module, name):
    function = getattr(module, name)

    def method(self):
        return function(self)

    method.__name__ = name
    return method


def _binary(name, function):
    checked = tensor_arguments(name, "other")(lambda other: other)

    def method(self, other):
        checked(other)
        return function(self, other)

    method.__name__ = name
    return method


class OpMethods:
    __slots__ = ()

    square = _unary(special, "square")
    rsqrt = _unary(special, "rsqrt")
    log1p = _unary(special, "log1p")
    expm1 = _unary(special, "expm1")
    log2 = _unary(special, "log2")
    exp2 = _unary(special, "exp2")
    erf = _unary(special, "erf")
    tan = _unary(trigonometric, "tan")
    atan = _unary(trigonometric, "atan")
    asin = _unary(trigonometric, "asin")
    acos = _unary(trigonometric, "acos")
    sinh = _unary(trigonometric, "sinh")
    cosh = _unary(trigonometric, "cosh")
    arctan, arcsin, arccos = atan, asin, acos  # torch's aliases

    maximum = _binary("maximum", binary.maximum)
    minimum = _binary("minimum", binary.minimum)
    atan2 = _binary("atan2", binary.atan2)
    arctan2 = atan2
    logaddexp = _binary("logaddexp", binary.logaddexp)

    def lerp(self, end, weight):
        return binary.lerp(self, end, weight)

    def amax(self, dim=(), keepdim=False):
        return maxima.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return maxima.amin(self, dim, keepdim)

    def logsumexp(self, dim, keepdim=False):
        return maxima.logsumexp(self, dim, keepdim)
