r"""Named mistakes: a failing check recognises a common mistake by what the answer gave
(every chapter's exercises; the grading of :mod:`minigrad.course.grading`).

A test cell declares, next to a check, the values the common mistakes would give on the
check's own inputs, computed by the test (the reference with its sign flipped, the
transpose, a missing factor 2), each with an id and a nudge::

    g.check("central slope", got, ref, mistakes={
        "one-sided": ("your slope is off by the size of h: did you look at one side "
                      "of x only?", lambda: (f(x + h) - f(x)) / h),
        "half-step": ("your slope is off by a factor 2: which distance does the "
                      "secant cover?", ref * 2),
    })

When the check fails and the learner's value matches a mistake's value with the check's
own tolerance, the failure says so with the nudge (a question, never the line to
write), and the exercise's error ends with a tag an instructor's export reads::

    [mistake: one-sided]

Matching reads only the answer's outputs on the check's inputs, never its code. A value
may be a zero-argument function, computed only when the check has failed. For a
:meth:`~minigrad.course.grading.Grader.require`, a mistake's "value" is a condition (or
a function returning one) that holds when the answer made that mistake.
"""

import re

import numpy as np

from minigrad.course.compare import to_numpy

__all__ = ["TAG", "matches", "named_mistake", "recognise", "recognise_condition", "tag"]

TAG = "[mistake: {}]"
_TAG = re.compile(r"\[mistake: ([A-Za-z0-9_.-]+)\]")
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


def tag(mistake_id):
    """The machine-readable line naming a mistake."""
    return TAG.format(mistake_id)


def named_mistake(text):
    """The id of the mistake a failure's text names (its last tag), or None."""
    found = _TAG.findall(text or "")
    return found[-1] if found else None


def _entries(mistakes):
    for mistake_id, entry in (mistakes or {}).items():
        if not _ID.match(mistake_id):
            raise ValueError(f"a mistake's id is letters, digits, '-', '_' or '.': "
                             f"{mistake_id!r}")
        nudge, value = entry
        yield mistake_id, nudge, value


def _value(value):
    return value() if callable(value) else value


def recognise(yours, reference, mistakes, rtol, atol):
    """The (id, nudge) of the first mistake whose value ``yours`` matches, or None.

    ``yours`` and ``reference`` are float arrays; a mistake whose value cannot be
    computed, or matches the reference too (it cannot be told apart there), is passed
    over.
    """
    for mistake_id, nudge, value in _entries(mistakes):
        try:
            wrong = to_numpy(_value(value))
        except Exception:  # noqa: BLE001 - a mistake that cannot be computed here
            continue
        if wrong.shape != yours.shape or _close(wrong, reference, rtol, atol):
            continue
        if _close(yours, wrong, rtol, atol):
            return mistake_id, nudge
    return None


def recognise_condition(mistakes):
    """The (id, nudge) of the first mistake whose condition holds, or None."""
    for mistake_id, nudge, condition in _entries(mistakes):
        try:
            if _value(condition):
                return mistake_id, nudge
        except Exception:  # noqa: BLE001, S112 - a condition that cannot be computed
            continue
    return None


def matches(yours, value, rtol=1e-7, atol=1e-10):
    """Whether ``yours`` is ``value`` (same shape, close): for a requirement's mistake."""
    try:
        return _close(to_numpy(yours), to_numpy(value), rtol, atol)
    except Exception:  # noqa: BLE001 - not numbers: not that mistake
        return False


def _close(a, b, rtol, atol):
    if a.shape != b.shape:
        return False
    with np.errstate(invalid="ignore"):  # a NaN matches a NaN, an inf only the same inf
        return bool(np.all(((np.abs(a - b) <= atol + rtol * np.abs(b)) & np.isfinite(b))
                           | (np.isnan(a) & np.isnan(b)) | (a == b)))
