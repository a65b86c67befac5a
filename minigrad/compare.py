r"""Check a minigrad result against PyTorch's, in the cell that makes it (chapter 01).

Every number a chapter computes goes through :func:`check` (one result) or
:func:`check_all` (several). Both return a :class:`CheckTable`, which a notebook shows
as a small table (name, shape, max abs diff, result), and both raise
``AssertionError`` naming what differs, so a wrong result fails the cell.

Two arrays match when they have the same shape, neither holds a NaN where the other
does not, and every element satisfies torch's ``allclose`` rule

.. math:: |a - b| \le \mathrm{atol} + \mathrm{rtol} \cdot |b| .
"""

import html
import math

import numpy as np

__all__ = ["check", "check_all", "to_numpy", "CheckTable"]

RTOL = 1e-5
ATOL = 1e-8


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


def _mismatch(name, ours, theirs, rtol, atol, equal_nan):
    """Return a sentence saying how ``ours`` differs from ``theirs``, or None."""
    if ours.shape != theirs.shape:
        return f"{name}: shape {ours.shape} in minigrad but {theirs.shape} in torch"
    nan_ours, nan_theirs = np.isnan(ours), np.isnan(theirs)
    if nan_ours.any() or nan_theirs.any():
        bad = nan_ours != nan_theirs if equal_nan else nan_ours | nan_theirs
        if bad.any():
            at = _index(np.argwhere(bad)[0])
            return (f"{name}: NaN at {at}: minigrad {_value(ours, at)}, "
                    f"torch {_value(theirs, at)}")
    ok = np.isclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if ok.all():
        return None
    at = _index(np.argwhere(~ok)[0])
    count = int((~ok).sum())
    return (f"{name}: {count} of {ours.size} values differ (rtol={rtol}, atol={atol}); "
            f"first at {at}: minigrad {_value(ours, at)}, torch {_value(theirs, at)}")


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


class CheckTable:
    """Rows of (name, shape, max abs diff, passed); shown as HTML or plain text."""

    def __init__(self, rows):
        self.rows = rows

    @property
    def passed(self):
        return all(row[3] for row in self.rows)

    def _cells(self):
        for name, shape, diff, ok in self.rows:
            yield name, str(shape), _diff_text(diff), "pass" if ok else "FAIL"

    def __repr__(self):
        header = ("name", "shape", "max abs diff", "vs torch")
        cells = [header, *self._cells()]
        widths = [max(len(row[i]) for row in cells) for i in range(4)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                 for row in cells]
        return "\n".join(lines)

    def _repr_html_(self):
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells[:3])
            + f"<td style='color:{'green' if cells[3] == 'pass' else 'red'}'>"
            + ("&#10003; pass" if cells[3] == "pass" else "&#10007; FAIL") + "</td></tr>"
            for cells in self._cells()
        )
        return ("<table><thead><tr><th>name</th><th>shape</th><th>max abs diff</th>"
                f"<th>vs torch</th></tr></thead><tbody>{body}</tbody></table>")


def check_all(results, *, rtol=RTOL, atol=ATOL, equal_nan=False):
    """Compare several results with torch's; ``results`` maps a name to (ours, theirs).

    Returns a :class:`CheckTable`; raises ``AssertionError`` naming every mismatch.
    """
    rows, problems = [], []
    for name, (ours, theirs) in results.items():
        a, b = to_numpy(ours), to_numpy(theirs)
        problem = _mismatch(name, a, b, rtol, atol, equal_nan)
        rows.append((name, tuple(a.shape), _max_abs_diff(a, b), problem is None))
        if problem:
            problems.append(problem)
    if problems:
        raise AssertionError("minigrad does not match torch:\n  " + "\n  ".join(problems))
    return CheckTable(rows)


def check(name, ours, theirs, *, rtol=RTOL, atol=ATOL, equal_nan=False):
    """Compare one minigrad result with torch's; see :func:`check_all`.

    >>> check("slope", 6.0, 6.0)
    name   shape  max abs diff  vs torch
    slope  ()     0             pass
    """
    return check_all({name: (ours, theirs)}, rtol=rtol, atol=atol, equal_nan=equal_nan)
