"""The math methods of ``Tensor``, each a thin call into an op module (chapter 05).

Kept apart from ``tensors.py`` so that file holds autograd's state and rules, and this
one the list of what a tensor can compute. Python numbers pass through as numbers;
lists and numpy arrays become tensors that do not require grad.
"""

import numpy as np

from minigrad.autograd.function import constant
from minigrad.ops import activations, arithmetic, indexing, matmul, reductions, rounding
from minigrad.ops import shape as shape_ops
from minigrad.ops.checks import alpha_operand
from minigrad.ops.more_methods import OpMethods
from minigrad.ops.variance import var as reductions_var

__all__ = ["TensorMethods"]


def _operand(other, op="+"):
    """A tensor or a number as is; a numpy array as a tensor of its dtype (as torch);
    anything else (None, a list, a string) is torch's TypeError."""
    if isinstance(other, np.generic):  # np.float64 is a float: a number, as in torch
        return other.item()
    if isinstance(other, TensorMethods) or isinstance(other, int | float):
        return other
    if isinstance(other, np.ndarray) and other.dtype.kind in "biuf":
        from minigrad.factories import tensor

        return tensor(other)
    raise TypeError(f"unsupported operand type(s) for {op}: 'Tensor' and "
                    f"'{type(other).__name__}'. Fix: combine a tensor with a tensor or a "
                    "number; make a list a tensor first, minigrad.tensor([1.0, 2.0]).")


def _compare(op, symbol):
    """``t < other``: elementwise with a tensor, a number or an array; with anything else
    (None, a list, a string) ``==`` is False and ``!=`` True, as torch, and an order
    refused with Python's TypeError."""

    def method(self, other):
        if not isinstance(other, TensorMethods | int | float | np.ndarray | np.generic):
            if symbol in ("==", "!="):
                return NotImplemented  # Python compares identities: False / True
            raise TypeError(f"'{symbol}' not supported between instances of 'Tensor' and "
                            f"'{type(other).__name__}'. Fix: compare with a tensor or a "
                            "number.")
        try:
            return constant(op(self._data, getattr(other, "_data", other)))
        except ValueError:
            error = arithmetic.broadcast_error(self._data, getattr(other, "_data", other))
            if error is None:
                raise
            raise error from None

    return method


class TensorMethods(OpMethods):
    """Operators and math methods; every result is built by an op's ``apply``."""

    __slots__ = ()

    def __add__(self, other):
        return arithmetic.add(self, _operand(other, "+"))

    __radd__ = __add__

    def __sub__(self, other):
        return arithmetic.sub(self, _operand(other, "-"))

    def __rsub__(self, other):
        other = _operand(other, "-")
        if isinstance(other, TensorMethods):
            return arithmetic.sub(other, self)
        return arithmetic.rsub(self, other)

    def __mul__(self, other):
        return arithmetic.mul(self, _operand(other, "*"))

    __rmul__ = __mul__

    def __truediv__(self, other):
        return arithmetic.div(self, _operand(other, "/"))

    def __rtruediv__(self, other):
        other = _operand(other, "/")
        if isinstance(other, TensorMethods):
            return arithmetic.div(other, self)
        return arithmetic.rdiv(self, other)

    def __floordiv__(self, other):
        return rounding.floor_divide(self, _operand(other, "//"))

    def __rfloordiv__(self, other):
        other = _operand(other, "//")
        if isinstance(other, TensorMethods):
            return rounding.floor_divide(other, self)
        return rounding.rfloordiv(self, other)

    def floor_divide(self, other):
        return self // other

    def round(self, decimals=None):  # noqa: A003 - torch's name
        return rounding.round(self, decimals)

    def floor(self):
        return rounding.floor(self)

    def ceil(self):
        return rounding.ceil(self)

    def trunc(self):
        return rounding.trunc(self)

    def frac(self):
        return rounding.frac(self)

    def __pow__(self, exponent):
        return arithmetic.pow(self, _operand(exponent, "**"))

    def __rpow__(self, base):
        base = _operand(base, "**")
        if isinstance(base, TensorMethods):
            return arithmetic.pow(base, self)
        return arithmetic.rpow(self, base)

    def __neg__(self):
        return arithmetic.neg(self)

    def __matmul__(self, other):
        if isinstance(other, int | float):
            return NotImplemented  # TypeError, as torch: use * for a number
        return matmul.matmul(self, _operand(other, "@"))

    def __rmatmul__(self, other):
        if isinstance(other, int | float):
            return NotImplemented
        return matmul.matmul(_operand(other, "@"), self)

    def matmul(self, other):
        return matmul.matmul(self, other)

    def mm(self, other):
        return matmul.mm(self, other)

    def pow(self, exponent):
        return self ** exponent

    def add(self, other, alpha=1):
        return self + alpha_operand(self, _operand(other), alpha)

    def sub(self, other, alpha=1):
        return self - alpha_operand(self, _operand(other), alpha, subtract=True)

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def neg(self):
        return -self

    def reciprocal(self):
        return arithmetic.reciprocal(self)

    __lt__ = _compare(np.less, "<")
    __le__ = _compare(np.less_equal, "<=")
    __gt__ = _compare(np.greater, ">")
    __ge__ = _compare(np.greater_equal, ">=")
    __eq__ = _compare(np.equal, "==")
    __ne__ = _compare(np.not_equal, "!=")

    def sum(self, dim=None, keepdim=False, *, keepdims=None):  # keepdims: torch's alias
        return reductions.sum(self, dim, keepdim if keepdims is None else keepdims)

    def mean(self, dim=None, keepdim=False, *, keepdims=None):  # keepdims: torch's alias
        return reductions.mean(self, dim, keepdim if keepdims is None else keepdims)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None, keepdims=None):
        keepdim = keepdim if keepdims is None else keepdims
        return reductions_var(self, dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None, keepdims=None):
        keepdim = keepdim if keepdims is None else keepdims
        return reductions_var(self, dim, unbiased, keepdim, correction) ** 0.5

    def max(self, dim=None, keepdim=False, *, keepdims=None):  # keepdims: torch's alias
        return reductions.max(self, dim, keepdim if keepdims is None else keepdims)

    def nelement(self):
        return int(self._data.size)

    def softmax(self, dim, dtype=None):
        from minigrad.ops.softmax import softmax

        return softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        from minigrad.ops.softmax import log_softmax

        return log_softmax(self, dim, dtype)

    def exp(self):
        return activations.exp(self)

    def log(self):
        return activations.log(self)

    def tanh(self):
        return activations.tanh(self)

    def sigmoid(self):
        return activations.sigmoid(self)

    def relu(self):
        return activations.relu(self)

    def reshape(self, *shape):
        return shape_ops.reshape(self, *shape)

    def view(self, *shape):
        return shape_ops.view(self, *shape)

    def transpose(self, dim0, dim1):
        return shape_ops.transpose(self, dim0, dim1)

    def t(self):
        return shape_ops.t(self)

    @property
    def T(self):  # noqa: N802 - torch's name
        return shape_ops.permute_all(self)

    def unsqueeze(self, dim):
        return shape_ops.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return shape_ops.squeeze(self, dim)

    def unbind(self, dim=0):
        from minigrad.ops.joining import unbind

        return unbind(self, dim)

    def flatten(self, start_dim=0, end_dim=-1):
        """Dimensions ``start_dim`` to ``end_dim`` merged into one (a 0-d tensor: one
        element); as torch, the tensor itself when nothing merges."""
        ndim = self._data.ndim
        start, end = shape_ops.dim_index(start_dim, ndim), shape_ops.dim_index(end_dim, ndim)
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after "
                               "end_dim. Fix: give the first dimension to merge first, as "
                               "x.flatten(1, 2).")
        if ndim == 0:
            return shape_ops.reshape(self, 1)
        if start == end:
            return self
        shape = self._data.shape
        merged = int(np.prod(shape[start:end + 1]))
        return shape_ops.reshape(self, (*shape[:start], merged, *shape[end + 1:]))

    def clone(self):
        return shape_ops.clone(self)

    def float(self):
        return shape_ops.to_dtype(self, np.dtype(np.float32))

    def double(self):
        return shape_ops.to_dtype(self, np.dtype(np.float64))

    def long(self):
        return shape_ops.to_dtype(self, np.dtype(np.int64))

    def int(self):
        return shape_ops.to_dtype(self, np.dtype(np.int32))

    def __getitem__(self, key):
        return indexing.index(self, key)

    def __setitem__(self, key, value):
        indexing.setitem(self, key, value)

    def cuda(self, device=None):
        raise RuntimeError("minigrad runs on the CPU only. Fix: drop .cuda() / .to('cuda'); "
                           "every tensor is on 'cpu'.")

    def all(self, dim=None, keepdim=False):
        return constant(np.all(self._data, axis=dim, keepdims=keepdim))

    def any(self, dim=None, keepdim=False):
        return constant(np.any(self._data, axis=dim, keepdims=keepdim))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        from minigrad.ops.random_fill import normal_

        return normal_(self, mean, std, generator=generator)

    def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
        from minigrad.ops.random_fill import uniform_

        return uniform_(self, kwargs.pop("from", from_), to, generator=generator)

    def random_(self, from_=None, to=None, *, generator=None, **kwargs):
        from minigrad.ops.random_fill import random_

        return random_(self, kwargs.pop("from", from_), to, generator=generator)

    def min(self, dim=None, keepdim=False, *, keepdims=None):  # keepdims: torch's alias
        from minigrad.ops.extrema import min as min_

        return min_(self, dim, keepdim if keepdims is None else keepdims)

    def argmin(self, dim=None, keepdim=False):
        from minigrad.ops.extrema import argmin

        return argmin(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        from minigrad.ops.extrema import arg_extreme

        return arg_extreme(self, dim, keepdim, "argmax", np.argmax)

