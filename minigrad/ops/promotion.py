r"""torch's type promotion, applied to an op's operands before it runs (chapter 05).

numpy and torch disagree on mixed dtypes: numpy makes ``int64 * 2.5`` and ``int64 *
float32`` float64, torch float32; numpy makes ``float32 + 0-d float64`` float64,
torch float32. :func:`minigrad.dtypes.result_type` has torch's rule; :func:`promote`
converts each operand to that dtype. An int or bool tensor never requires grad, so it
is converted outside the graph; a float tensor that requires grad goes through a
``ToCopy`` node, so its gradient comes back in its own dtype.
"""

import numpy as np

from minigrad.autograd.function import constant
from minigrad.dtypes import result_type
from minigrad.ops.shape import to_dtype

__all__ = ["promote", "check_int_power", "int_power"]


def promote(a, b, true_divide=False):
    """Both operands converted to torch's result dtype (numbers stay numbers)."""
    da = getattr(a, "_data", a)
    db = getattr(b, "_data", b)
    if (type(db) is np.ndarray and type(da) is np.ndarray and da.dtype == db.dtype
            and (da.dtype.kind == "f" or not true_divide)):
        return a, b  # the common case: one dtype
    target = result_type(da, db, true_divide)
    return _to(a, target), _to(b, target)


def _to(x, target):
    if not hasattr(x, "grad_fn") or x._data.dtype == target:
        return x
    if x._requires_grad:
        converted = to_dtype(x, target)
        converted._version_counter = x._version_counter  # torch saves x: changes are caught
        return converted
    converted = constant(x._data.astype(target))
    converted._version_counter = x._version_counter  # as torch saves x: changes are caught
    return converted


def check_int_power(a, exponent):
    """torch refuses an integer to a negative integer *number* (numpy raises ValueError);
    a tensor of exponents is done elementwise by :func:`int_power`."""
    if isinstance(exponent, int) and exponent < 0 and a._data.dtype.kind in "iub":
        raise RuntimeError("Integers to negative integer powers are not allowed. Fix: "
                           "make the base float first, t.float() ** -1.")


def int_power(a, b):
    """``a ** b`` for int arrays as torch: ``1 ** -n = 1``, ``(-1) ** -n = ±1``, else 0."""
    with np.errstate(all="ignore"):
        positive = a ** np.maximum(b, 0)
    odd = np.where(b % 2 == 0, 1, -1)
    negative = np.where(a == 1, 1, np.where(a == -1, odd, 0))
    return np.where(b < 0, negative, positive).astype(positive.dtype)
