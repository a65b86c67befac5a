"""Every code cell can be run again with the same result.

Each chapter runs in one kernel, top to bottom, every code cell twice in a row; the two
runs' outputs (text of streams, results and displays, and any error's type) must agree,
after the same sanitizing nbval applies. Cells whose output nbval ignores (widgets,
timings) are exempt, and none else. A learner who runs a cell again, or runs a widget
and then the next cell, sees what the chapter shows.
"""

import configparser
import re

import nbformat
import pytest

from tests.notebook_tools import NOTEBOOKS, ROOT, Kernel, code_cells

pytestmark = pytest.mark.slow


def _sanitizers():
    parser = configparser.ConfigParser()
    parser.read(ROOT / "tests" / "sanitize.cfg")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


SANITIZE = _sanitizers()


def _text(outputs):
    parts = []
    for kind, content in outputs:
        if kind == "stream":  # a stream may arrive in chunks: join them, as nbval does
            line = f"{content['name']}: "
            if parts and parts[-1].startswith(line):
                parts[-1] += content["text"]
            else:
                parts.append(line + content["text"])
        elif kind == "error":
            parts.append(f"error: {content['ename']}")
        else:
            data = content.get("data", {})
            parts.append(data.get("text/plain", "") + data.get("text/html", ""))
    text = "\n".join(parts)
    for regex, replace in SANITIZE:
        text = regex.sub(replace, text)
    return text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_gives_the_same_result_when_run_again(path):
    nb = nbformat.read(path, as_version=4)
    kernel = Kernel(path.parent)
    differ = []
    try:
        for cell in code_cells(nb):
            runs = []
            for _ in range(2):
                outputs = []
                kernel.run(cell.source, outputs=outputs)
                runs.append(_text(outputs))
            if "nbval-ignore-output" in cell.metadata.get("tags", []):
                continue
            if runs[0] != runs[1]:
                differ.append(f"cell {cell.id}:\n  first:  {runs[0][:300]!r}\n"
                              f"  second: {runs[1][:300]!r}")
    finally:
        kernel.close()
    assert not differ, "run twice, these cells differ:\n" + "\n".join(differ)
