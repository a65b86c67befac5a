"""Write the bytecode of what the grading sandbox's processes import, by importing it here.

The sandbox binds the venv read-only, so a confined process (a graded kernel, its fork
server, a verdict's judge or learner) compiles in memory, every time it starts, any module
of the venv that has no bytecode yet. ``make setup`` compiles the whole venv (``compileall``,
some 13,000 files, 50 CPU s); ``make test`` on a venv without that runs this instead: the
grading fork server's imports (:data:`minigrad.course.forkserver.PRELOAD` and
``KERNEL_INIT``), every minigrad module, every module a chapter's code imports and what
a chapter's kernel loads at first use: some 2,900 files of the venv, 14 CPU s. Whatever
else a test run imports is imported outside the sandbox first, which writes its bytecode
(``make test`` clears ``PYTHONDONTWRITEBYTECODE``).
"""

import ast
import importlib.util
import json
import os
import pathlib
import py_compile
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# What a chapter's kernel imports at first use, not by name: its first figure, contour,
# saved image and widget, its first traceback (IPython's, with stack_data), the digits'
# description (found by running every chapter in a kernel that writes no bytecode and
# listing the modules it loaded without any).
FIRST_USE = ("matplotlib_inline.backend_inline", "ipywidgets", "contourpy", "PIL.BmpImagePlugin",
             "PIL.GifImagePlugin", "PIL.JpegImagePlugin", "PIL.PpmImagePlugin",
             "pygments.lexers.python", "pygments.formatters.terminal256",
             "pygments.formatters.html", "pygments.styles.default", "stack_data",
             "IPython.core.debugger", "IPython.core.oinspect", "IPython.core.logger",
             "sklearn.datasets.data", "sklearn.datasets.descr", "zmq.utils.garbage",
             "torch._subclasses.schema_check_mode", "torch.profiler._cupti_monitor")


def chapter_imports():
    """Every module a chapter's code cells import by name (``import x``, ``from x import y``)."""
    found = set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            lines = "".join(cell["source"]).splitlines()
            try:  # IPython's magics and shell escapes are not Python
                tree = ast.parse("\n".join(x for x in lines
                                           if not x.lstrip().startswith(("%", "!"))))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    found.add(node.module)
    return sorted(found)


def main():
    sys.dont_write_bytecode = False  # whatever the shell says: writing them is the point
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # debugpy's note on frozen modules
    sys.path.insert(0, str(ROOT))
    from minigrad.course import forkserver, integrity

    for name in (*forkserver.PRELOAD, *forkserver.KERNEL_INIT, *FIRST_USE):
        importlib.import_module(name)
    for name in chapter_imports():  # one a chapter cannot import is nbval's to report
        try:
            importlib.import_module(name)
        except ImportError as error:
            print(f"warm_bytecode: skipped {name}: {error}", file=sys.stderr)
    integrity._import_all_of_minigrad()
    # and what this Python imported at its start, before bytecode was written (site's
    # .pth hooks: every sandboxed Python imports them too)
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None) or ""
        if source.startswith(sys.prefix) and source.endswith(".py") and os.path.isfile(source):
            cached = importlib.util.cache_from_source(source)
            if not os.path.exists(cached):
                py_compile.compile(source, cached, quiet=2)
    print(f"bytecode of the {len(sys.modules)} modules the grading sandbox imports")


if __name__ == "__main__":
    main()
