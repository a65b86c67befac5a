"""The ``Tensor`` methods of torch's everyday ops added after chapter 05's list (a
mixin of ``TensorMethods``): each a thin call into its op module
(``special``, ``trigonometric``, ``binary``, ``maxima``, ``tiling``, ``reorder``,
``triangular``, ``gathering``, ``products``, ``cumulative``, ``predicates``,
``sorting``), with torch's argument names and defaults. A method taking a second
tensor refuses a number as torch does."""

from minigrad.ops import (
    binary,
    cumulative,
    gathering,
    maxima,
    predicates,
    products,
    reorder,
    sorting,
    special,
    tiling,
    triangular,
    trigonometric,
)
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


def _required(given, name, argument):
    if not given:
        raise TypeError(f"{name}() missing 1 required positional arguments: \"{argument}\". "
                        f"Fix: pass the {argument}, as t.{name}(2, 3).")


class OpMethods:
    __slots__ = ()

    square = _unary(special, "square")
    rsqrt = _unary(special, "rsqrt")
    log1p = _unary(special, "log1p")
    expm1 = _unary(special, "expm1")
    log2 = _unary(special, "log2")
    log10 = _unary(special, "log10")
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

    def expand(self, *sizes):
        _required(sizes, "expand", "size")
        return tiling.expand(self, *sizes)

    def expand_as(self, other):
        return tiling.expand_as(self, other)

    def repeat(self, *repeats):
        _required(repeats, "repeat", "repeats")
        return tiling.repeat(self, *repeats)

    def flip(self, *dims):
        _required(dims, "flip", "dims")
        return reorder.flip(self, dims[0] if len(dims) == 1 else dims)

    def roll(self, shifts, dims=None):
        return reorder.roll(self, shifts, dims)

    def narrow(self, dim, start, length):
        return reorder.narrow(self, dim, start, length)

    def split(self, split_size, dim=0):
        return reorder.split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        return reorder.chunk(self, chunks, dim)

    def tril(self, diagonal=0):
        return triangular.tril(self, diagonal)

    def triu(self, diagonal=0):
        return triangular.triu(self, diagonal)

    trace = _unary(triangular, "trace")

    def gather(self, dim, index):
        return gathering.gather(self, dim, index)

    def index_select(self, dim, index):
        return gathering.index_select(self, dim, index)

    def masked_fill(self, mask, value):
        return gathering.masked_fill(self, mask, value)

    def bmm(self, mat2):
        return products.bmm(self, mat2)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return products.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def outer(self, vec2):
        return products.outer(self, vec2)

    def cumsum(self, dim, *, dtype=None):
        return cumulative.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        return cumulative.cumprod(self, dim, dtype=dtype)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return cumulative.prod(self, dim, keepdim, dtype=dtype)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        return cumulative.diff(self, n, dim, prepend, append)

    isnan = _unary(predicates, "isnan")
    isinf = _unary(predicates, "isinf")
    logical_not = _unary(predicates, "logical_not")

    def count_nonzero(self, dim=None):
        return predicates.count_nonzero(self, dim)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return predicates.nan_to_num(self, nan, posinf, neginf)

    def sort(self, dim=-1, descending=False, stable=False):
        return sorting.sort(self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return sorting.argsort(self, dim, descending, stable)

    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's name
        return sorting.topk(self, k, dim, largest, sorted)
