r"""How a checked result is shown in a check table or an exercise table (every chapter).

The value column of :func:`minigrad.course.compare.check` shows the numbers the text
talks about:

- a single number with six significant digits (``6``, ``0.0603``, ``1e-10``);
- a vector or small matrix (up to :data:`LIMIT` elements) in full, rounded as torch
  prints a tensor, with the trailing zeros trimmed: ``[4, 3]``, ``[0.5, -0.3333]``,
  ``[[1, 2], [3, 4]]``, ``[1e-05, 2.5e+03]`` (scientific notation when the magnitudes
  differ by more than 1000x, as torch switches to it);
- a bigger array as its range, ``min -1.234, max 5.678`` (``all 0`` when every element
  is the same), plus the count of NaNs if it holds any;
- booleans as ``True`` / ``False``, never ``1`` / ``0``.

In an array, an element below 1e-12 of the largest is rounding noise and shows as ``0``.

A shape is shown as a tuple: ``()``, ``(3,)``, ``(2, 3)``. In HTML (what JupyterLab
shows) each row of a matrix starts a new line.
"""

import html
import math

import numpy as np

__all__ = ["LIMIT", "shape_text", "value_text", "value_html", "is_boolean"]

LIMIT = 12  # arrays up to this many elements are shown in full
PRECISION = 4  # decimals, as torch prints a tensor
NOISE = 1e-12  # an element below this fraction of the largest is shown as 0


def shape_text(shape):
    """``(2, 3)``, ``(3,)`` or ``()``: the shape of the value, as a tuple."""
    return str(tuple(int(n) for n in shape))


def is_boolean(x):
    """Whether ``x`` (a number, a list, an array or a tensor) holds booleans."""
    if isinstance(x, bool | np.bool_):
        return True
    dtype = getattr(x, "dtype", None)
    if dtype is not None:
        return str(dtype) in ("bool", "torch.bool", "minigrad.bool")
    if isinstance(x, list | tuple) and x:
        try:
            return np.asarray(x).dtype == np.bool_
        except (TypeError, ValueError, RuntimeError):  # e.g. tensors requiring grad
            return False
    return False


def _scalar(v):
    """One number alone: six significant digits (stable across machines)."""
    return f"{v:.6g}" if math.isfinite(v) else str(v)


class _Style:
    """One rounding for all the elements shown, chosen as torch's ``_Formatter`` does:
    integers as integers, four decimals, or scientific notation when the nonzero
    magnitudes span more than 1000x or leave [1e-4, 1e8] (integers switch only above 1e8).
    """

    def __init__(self, values):
        finite = values[np.isfinite(values) & (values != 0)]
        self.int_mode, self.sci_mode = True, False
        if finite.size:
            low, high = np.abs(finite).min(), np.abs(finite).max()
            self.int_mode = bool(np.all(finite == np.round(finite)))
            self.sci_mode = bool(high > 1e8 or (not self.int_mode and (
                high / low > 1000.0 or low < 1e-4)))

    def __call__(self, v):
        if not math.isfinite(v):
            return str(v)
        if v == 0:
            return "0"
        if self.sci_mode:
            mantissa, exponent = f"{v:.{PRECISION}e}".split("e")
            return f"{_trim(mantissa)}e{exponent}"
        if self.int_mode:
            return f"{v:.0f}"
        text = _trim(f"{v:.{PRECISION}f}")
        return "0" if text == "-0" else text


def _trim(text):
    return text.rstrip("0").rstrip(".") if "." in text else text


def _without_noise(arr):
    """``arr`` with the elements below :data:`NOISE` times its largest set to 0: rounding
    noise (``2.8e-17`` next to ``4``) would otherwise switch every element to scientific
    notation, and change with the last bits of a BLAS routine."""
    finite = np.abs(arr[np.isfinite(arr)])
    if not finite.size:
        return arr
    return np.where(np.abs(arr) <= NOISE * finite.max(), 0.0, arr)


def _nested(values, fmt):
    if values.ndim == 0:
        return fmt(values.item())
    return "[" + ", ".join(_nested(row, fmt) for row in values) + "]"


def value_text(arr, boolean=False, limit=LIMIT):
    """The value of a float64 array as shown in a table (see the module's docstring).

    ``boolean`` says the array came from booleans; ``limit`` is the largest number of
    elements shown in full.
    """
    arr = np.asarray(arr, dtype=np.float64)
    if boolean:
        if arr.size <= limit:
            return _nested(arr, lambda v: str(bool(v)) if not math.isnan(v) else "nan")
        return f"{int(np.count_nonzero(arr))} True of {arr.size}"
    if arr.ndim == 0:
        return _scalar(float(arr))
    if arr.size == 0:
        return "[]"
    arr = _without_noise(arr)
    if arr.size <= limit:
        return _nested(arr, _Style(arr))
    nan = int(np.isnan(arr).sum())
    numbers = arr[~np.isnan(arr)]
    tail = f", {nan} NaN" if nan else ""
    if not numbers.size:
        return "all nan"
    low, high = numbers.min(), numbers.max()
    fmt = _Style(np.array([low, high]))
    if low == high:
        return f"all {fmt(float(low))}{tail}"
    return f"min {fmt(float(low))}, max {fmt(float(high))}{tail}"


def value_html(text):
    """A cell's text for an HTML table: escaped, each row of a matrix on its own line."""
    return html.escape(text).replace("], [", "],<br>[")
