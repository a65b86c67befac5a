"""A cell's traceback, formatted at about half IPython's cost, the same text (issue 19,
item 5: grading speed; every forked kernel, the learner's in JupyterLab too).

A traceback in IPython 9 costs 0.05-0.2 CPU s (a chapter shows four on average: its
``raises-exception`` cells; a cell raising in minigrad's engine: 0.079 s in a new kernel,
0.035 s in a forked one with this module), spent twice over:

- IPython formats it twice: once to show it (``showtraceback``), once more for the
  history (``_format_exception_for_storage``, the same call on the same exception, the
  same lines). :func:`install` keeps the last one formatted by each formatter and hands
  it back when the same exception, traceback and options come again;
- stack_data highlights each frame's code with a lexer class it makes anew for every
  frame (``stack_data.utils._pygmented_with_ranges``), and pygments compiles a new
  class's token rules at its first use: a third of the highlighting. Here one class
  serves every frame, the frame's ranges on the instance.

The kernels' fork server installs both before it forks (:mod:`minigrad.course.forkserver`);
a kernel started anew shows the same tracebacks, at IPython's own cost.
"""

import functools

__all__ = ["install"]


@functools.cache
def _ranges_lexer():
    from pygments.lexers import get_lexer_by_name

    class RangesLexer(type(get_lexer_by_name("python3"))):
        """stack_data's lexer: the executing node's tokens marked ``ExecutingNode``."""

        ranges = ()

        def get_tokens(self, text):
            length = 0
            for ttype, value in super().get_tokens(text):
                if any(start <= length < end for start, end in self.ranges):
                    ttype = ttype.ExecutingNode
                length += len(value)
                yield ttype, value

    return RangesLexer


def pygmented_with_ranges(formatter, code, ranges):
    """``stack_data.utils._pygmented_with_ranges``, with one lexer class for every call."""
    import pygments

    lexer = _ranges_lexer()(stripnl=False)
    lexer.ranges = ranges
    try:
        highlighted = pygments.highlight(code, lexer, formatter)
    except Exception:  # noqa: BLE001 - as stack_data: unhighlighted code, not a crash
        highlighted = code
    return highlighted.splitlines()


def _remembering(structured_traceback):
    """``AutoFormattedTB.structured_traceback`` that hands back its last lines when asked
    again for the same exception with the same options."""

    def wrapper(self, etype, evalue, etb=None, tb_offset=None, context=5):
        if etype is None or isinstance(etb, tuple):
            return structured_traceback(self, etype, evalue, etb, tb_offset, context)
        # the exception by identity; the options (mode, theme, offset...) by value
        options = sorted((name, value) for name, value in vars(self).items()
                         if type(value) in (int, str, bool, type(None)))
        offset = getattr(self, "tb_offset", None) if tb_offset is None else tb_offset
        key = (etype, evalue, etb, offset, context, options)
        last = self.__dict__.get("_minigrad_last")
        if last is not None and all(a is b for a, b in zip(last[0][:3], key[:3], strict=True)) \
                and last[0][3:] == key[3:]:
            self.tb = etb  # as the call does: %debug's traceback
            return list(last[1])
        lines = structured_traceback(self, etype, evalue, etb, tb_offset, context)
        self.__dict__["_minigrad_last"] = (key, list(lines))
        return lines

    wrapper.__wrapped__ = structured_traceback
    return wrapper


@functools.cache
def install():
    """Both changes, once a process (the fork server's, before its kernels fork)."""
    import stack_data.core
    from IPython.core import ultratb
    from pygments.formatters import NullFormatter

    stack_data.core._pygmented_with_ranges = pygmented_with_ranges
    pygmented_with_ranges(NullFormatter(), "pass\n", [])  # the class made, its rules compiled
    ultratb.AutoFormattedTB.structured_traceback = _remembering(
        ultratb.AutoFormattedTB.structured_traceback)
