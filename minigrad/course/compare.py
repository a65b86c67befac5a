r"""Check a minigrad result against PyTorch's, in the cell that makes it (chapter 01).

Every number a chapter computes goes through :func:`check` (one result) or
:func:`check_all` (several). Both return a :class:`CheckTable`, which a notebook shows
as a small table (name, shape, value, reference, max abs diff, result: the reference
column names what the result is compared with, torch unless ``against`` says "formula"
or "by hand", next to its value), and both raise ``AssertionError`` naming what
differs, so a wrong result fails the cell. The value columns show the numbers the text
talks about: a number, a vector or small matrix in full (``[4, 3]``), a bigger array's
range (see :mod:`minigrad.course.shown_values`); the shape column a tuple, ``(2, 3)``.

A routine parity check, one the text does not discuss, takes ``brief=True`` and prints
one line instead of a table, ``✓ same as torch: x.grad [4, 3], max diff 0``; it raises
on a mismatch exactly as the table does.

Two arrays match when they have the same shape, neither holds a NaN where the other
does not, and every element satisfies torch's ``allclose`` rule

.. math:: |a - b| \le \mathrm{atol} + \mathrm{rtol} \cdot |b| .
"""

import html
import math
from collections import namedtuple

import numpy as np

from minigrad.course.shown_values import is_boolean, shape_text, value_html, value_text

__all__ = ["check", "check_all", "to_numpy", "CheckTable"]

RTOL = 1e-5
ATOL = 1e-8
BRIEF_LIMIT = 6  # in the one-line form, values up to this many elements are shown


def to_numpy(x):
    """Return ``x`` as a float64 numpy array.

    Accepts a torch tensor, a minigrad ``Tensor`` or ``Value``, a number, a list, or a
    numpy array. ``None`` (a ``.grad`` that was never filled) is refused with a hint.
    """
    if x is None:
        raise TypeError("got None: a .grad is None until backward() reaches that tensor")
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # torch or minigrad tensor
        x = x.detach().numpy()
    elif hasattr(x, "data") and not isinstance(x, np.ndarray):  # minigrad Value
        x = x.data
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot compare a {type(x).__name__}: {exc}") from None


def _mismatch(name, ours, theirs, rtol, atol, equal_nan, against="torch"):
    """Return a sentence saying how ``ours`` differs from ``theirs``, or None."""
    if ours.shape != theirs.shape:
        return f"{name}: shape {ours.shape} in minigrad but {theirs.shape} in {against}"
    nan_ours, nan_theirs = np.isnan(ours), np.isnan(theirs)
    if nan_ours.any() or nan_theirs.any():
        bad = nan_ours != nan_theirs if equal_nan else nan_ours | nan_theirs
        if bad.any():
            at = _index(np.argwhere(bad)[0])
            return (f"{name}: NaN at {at}: minigrad {_value(ours, at)}, "
                    f"{against} {_value(theirs, at)}")
    ok = np.isclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if ok.all():
        return None
    at = _index(np.argwhere(~ok)[0])
    count = int((~ok).sum())
    if not ours.ndim:
        return (f"{name}: minigrad {_value(ours, at)}, {against} {_value(theirs, at)} "
                f"(rtol={rtol}, atol={atol})")
    return (f"{name}: {count} of {ours.size} values differ (rtol={rtol}, atol={atol}); "
            f"first at {at}: minigrad {_value(ours, at)}, {against} {_value(theirs, at)}")


def _max_abs_diff(a, b):
    """The largest |a - b| over elements that are numbers in both; None if undefined."""
    if a.shape != b.shape:
        return None
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.any():
        return 0.0 if not a.size else None
    with np.errstate(invalid="ignore"):  # inf - inf: equal infinities differ by 0
        diff = np.where(a == b, 0.0, np.abs(a - b))
    return float(np.max(diff[both]))


def _index(idx):
    return tuple(int(i) for i in idx)


def _value(arr, at):
    return repr(float(arr[at])) if arr.ndim else repr(float(arr))


def _diff_text(diff):
    """Max abs diff as shown: 0, or the power of ten it lies below.

    Shown as a bound (``< 1e-15``), not exactly, so the committed output of a notebook
    does not change with the last bits of a BLAS routine.
    """
    if diff is None:
        return "-"
    if diff == 0:
        return "0"
    if not math.isfinite(diff):
        return str(diff)
    return f"< 1e{math.floor(math.log10(diff)) + 1}"


Row = namedtuple("Row", "name shape value label reference diff ok")
Row.__doc__ = "One checked result: its name, shape, value; what and how it is compared."


class CheckTable:
    """Rows of (name, shape, value, reference, max abs diff, result), as HTML or text.

    The reference column names what the value is compared with ("torch", "formula",
    "by hand") and shows its value next to it. With ``brief`` the rows print as one
    line, ``✓ same as torch: x.grad [4, 3], max diff 0``.
    """

    HEADER = ("name", "shape", "value", "reference", "max abs diff", "result")

    def __init__(self, rows, brief=False, against="torch"):
        self.rows = [Row(*row) for row in rows]
        self.brief = brief
        self.against = against

    @property
    def passed(self):
        return all(row.ok for row in self.rows)

    def _cells(self):
        for row in self.rows:
            yield (row.name, shape_text(row.shape), row.value,
                   f"{row.label} {row.reference}".rstrip(), _diff_text(row.diff),
                   "pass" if row.ok else "FAIL")

    def _line(self):
        """The brief form: what matched (small values in full), then the largest diff."""
        items = []
        for row in self.rows:
            shown = (row.value if math.prod(row.shape) <= BRIEF_LIMIT
                     else f"shape {shape_text(row.shape)}")
            other = f" ({row.label})" if row.label != self.against else ""
            items.append(f"{row.name} {shown}{other}")
        diffs = [row.diff for row in self.rows if row.diff is not None]
        mark = "\N{CHECK MARK}" if self.passed else "\N{BALLOT X}"
        verb = "same as" if self.passed else "differs from"
        return (f"{mark} {verb} {self.against}: " + ", ".join(items)
                + f", max diff {_diff_text(max(diffs) if diffs else None)}")

    def __repr__(self):
        if self.brief:
            return self._line()
        cells = [self.HEADER, *self._cells()]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.HEADER))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                 for row in cells]
        return "\n".join(lines)

    def _repr_html_(self):
        if self.brief:
            colour = "green" if self.passed else "red"
            mark, rest = self._line().split(" ", 1)
            return (f"<span style='color:{colour}'>{html.escape(mark)}</span> "
                    f"{html.escape(rest)}")
        body = "".join(
            "<tr>" + "".join(f"<td>{value_html(c)}</td>" for c in cells[:-1])
            + f"<td style='color:{'green' if cells[-1] == 'pass' else 'red'}'>"
            + ("&#10003; pass" if cells[-1] == "pass" else "&#10007; FAIL") + "</td></tr>"
            for cells in self._cells()
        )
        head = "".join(f"<th>{h}</th>" for h in self.HEADER)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def check_all(results, *, rtol=RTOL, atol=ATOL, equal_nan=False, against="torch",
              brief=False):
    """Compare several results with their references; ``results`` maps a name to
    ``(ours, theirs)``, or ``(ours, theirs, against)`` where one row's reference is not
    ``against`` (which names what the references are: "torch", "formula", "by hand").

    Returns a :class:`CheckTable`; raises ``AssertionError`` naming every mismatch.
    With ``brief=True`` the table prints as one line (a routine parity check):

    >>> check_all({"x.grad": ([4.0, 3.0], [4.0, 3.0]), "loss": (2.5, 2.5)}, brief=True)
    ✓ same as torch: x.grad [4, 3], loss 2.5, max diff 0
    """
    rows, problems = [], []
    for name, pair in results.items():
        ours, theirs, label = pair if len(pair) == 3 else (*pair, against)
        a, b = to_numpy(ours), to_numpy(theirs)
        problem = _mismatch(name, a, b, rtol, atol, equal_nan, label)
        rows.append((name, a.shape, value_text(a, is_boolean(ours)), label,
                     value_text(b, is_boolean(theirs)), _max_abs_diff(a, b), problem is None))
        if problem:
            problems.append(problem)
    if problems:
        raise AssertionError("the results do not match:\n  " + "\n  ".join(problems))
    return CheckTable(rows, brief=brief, against=against)


def check(name, ours, theirs, *, rtol=RTOL, atol=ATOL, equal_nan=False, against="torch",
          brief=False):
    """Compare one result with its reference (torch's, unless ``against`` names another).

    Shows a table of one row; with ``brief=True``, one line. Use the line for a routine
    parity check and the table where the numbers are the lesson:

    >>> check("slope", 6.0, 6.0)
    name   shape  value  reference  max abs diff  result
    slope  ()     6      torch 6    0             pass
    >>> check("grad", [4.0, 3.0], [4.0, 3.0], brief=True)
    ✓ same as torch: grad [4, 3], max diff 0
    """
    return check_all({name: (ours, theirs)}, rtol=rtol, atol=atol, equal_nan=equal_nan,
                     against=against, brief=brief)
