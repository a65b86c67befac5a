r"""An error a named mistake raises: its type *and* a phrase of its message (chapters 05,
06 and 09, where one mistake makes the learner's code raise).

:meth:`~minigrad.course.grading.Grader.call` names a mistake when the learner's code
raises an exception of the mistake's type (``isinstance``). A type alone is often too
broad: every misuse of autograd raises a ``RuntimeError``. :func:`raised` makes a
"type" that matches only an exception of ``kind`` whose message holds one of
``phrases``::

    g.call(jacobian, f, x0, mistakes={
        "graph-freed": ("your second grad call found the graph gone: what did the first "
                        "one do to it?", raised(RuntimeError, "a second time"))})

The message is the answer's output, as its values are: nothing reads its code.
"""

__all__ = ["raised"]


class _Raised(type):
    def __instancecheck__(cls, exc):
        return isinstance(exc, cls.kind) and any(p in str(exc) for p in cls.phrases)


def raised(kind, *phrases):
    """A type that ``isinstance`` matches for an exception of ``kind`` saying one of
    ``phrases``."""
    return _Raised(f"{kind.__name__}Saying", (), {"kind": kind, "phrases": phrases})
