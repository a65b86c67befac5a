"""Show the package's own source in a notebook, so a chapter never drifts from the code.

Chapters build a small draft inline, then call :func:`show_source` on the package's
version instead of pasting it (chapter 01 on).
"""

import html
import inspect

__all__ = ["show_source"]


class Source:
    """Source text with a plain-text and a highlighted HTML view."""

    def __init__(self, text, title):
        self.text = text
        self.title = title

    def __repr__(self):
        return f"# {self.title}\n{self.text}"

    def _repr_html_(self):
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:  # pragma: no cover - pygments comes with JupyterLab
            return f"<pre>{html.escape(repr(self))}</pre>"
        body = highlight(self.text, PythonLexer(), HtmlFormatter(noclasses=True))
        return f"<p><code>{html.escape(self.title)}</code></p>{body}"


def show_source(obj):
    """Return the source of a function, class, method or module from the package.

    The title names where it lives (``minigrad/value.py: Value.__mul__``) so a reader
    can open the file.
    """
    text = inspect.getsource(obj)
    module = inspect.getmodule(obj)
    path = module.__name__.replace(".", "/") + ".py" if module else "?"
    qualname = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
    title = f"{path}: {qualname}" if not inspect.ismodule(obj) else path
    return Source(inspect.cleandoc("\n" + text) if text.startswith(" ") else text, title)
