"""Build the chapters in notebooks/ from their sources in notebooks/src/ and run them.

Each chapter is written as a plain Python file in the "percent" cell format
(readable in review, diffable, and opened as a notebook by VS Code or jupytext):

    # %% [markdown]
    # # 01 Derivatives
    # %%
    x = minigrad.Value(3.0)
    # %% tags=raises-exception
    math.log(-1)
    # %% solution=ex01-slope
    ### BEGIN SOLUTION
    ...
    ### END SOLUTION
    # %% test=ex01-slope-test points=2
    check("slope", slope, torch_slope)

A cell header may carry ``tags=a,b`` (cell tags), ``solution=ID`` (an nbgrader
solution cell, graded through the test cells) or ``test=ID points=N`` (a locked,
autograded nbgrader test cell). Markdown lines drop their leading ``# ``. An image
``![alt](../figures/NAME.png)`` is embedded as a cell attachment, so a chapter shows
its figures wherever it is opened (an nbgrader release folder, Binder, a download).

Usage: ``python scripts/build_notebooks.py [01 02 ...]`` rebuilds and executes the
named chapters (all by default) in a fresh kernel each, top to bottom, and writes
them with their outputs to ``notebooks/NN_name.ipynb``. ``--no-execute`` only
converts. ``tests/test_notebooks.py`` checks the committed notebooks match their
sources and were executed.
"""

import argparse
import base64
import json
import pathlib
import re
import sys
import uuid

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"
HEADER = re.compile(r"^# %%(?P<markdown> \[markdown\])?(?P<options>.*)$")
FIGURE = re.compile(r"!\[(?P<alt>[^\]]*)\]\(\.\./figures/(?P<name>[\w.-]+\.png)\)")

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _options(text):
    options = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"cell option {token!r} is not key=value")
        options[key] = value
    unknown = set(options) - {"tags", "solution", "test", "points"}
    if unknown:
        raise ValueError(f"unknown cell options {sorted(unknown)}")
    return options


def _nbgrader(options):
    """nbgrader's cell metadata (schema 3) for a solution or a test cell, else None."""
    base = {"schema_version": 3, "task": False}
    if "solution" in options:
        return {**base, "grade": False, "grade_id": options["solution"],
                "locked": False, "solution": True}
    if "test" in options:
        return {**base, "grade": True, "grade_id": options["test"], "locked": True,
                "points": int(options.get("points", 1)), "solution": False}
    return None


def _png(name):
    return base64.b64encode((ROOT / "figures" / name).read_bytes()).decode("ascii")


def parse(path):
    """Return the notebook (without outputs) that the source file describes."""
    slug = path.stem
    cells, current = [], None
    for line in path.read_text().splitlines():
        match = HEADER.match(line)
        if match:
            current = {"markdown": bool(match["markdown"]),
                       "options": _options(match["options"]), "lines": []}
            cells.append(current)
        elif current is not None:
            current["lines"].append(line)
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": KERNELSPEC,
                   "language_info": {"name": "python", "pygments_lexer": "ipython3"}}
    for index, cell in enumerate(cells):
        lines = cell["lines"]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if cell["markdown"]:
            text = "\n".join(re.sub(r"^# ?", "", line) for line in lines)
            embedded = FIGURE.sub(r"![\g<alt>](attachment:\g<name>)", text)
            new = nbformat.v4.new_markdown_cell(embedded)
            names = [m["name"] for m in FIGURE.finditer(text)]
            if names:
                new.attachments = {name: {"image/png": _png(name)} for name in names}
        else:
            new = nbformat.v4.new_code_cell("\n".join(lines))
        new.id = f"{slug[:2]}-{index:03d}"
        tags = [t for t in cell["options"].get("tags", "").split(",") if t]
        if tags:
            new.metadata["tags"] = tags
        grader = _nbgrader(cell["options"])
        if grader:
            new.metadata["nbgrader"] = grader
        nb.cells.append(new)
    return nb


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def execute(nb, cwd=OUT, timeout=900):
    """Run every cell in one fresh kernel, top to bottom; stop at an unexpected error."""
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}},
                            record_timing=False)
    client.execute()
    return stable_widget_ids(nb)


def stable_widget_ids(nb):
    """Keep the widgets' saved state (a viewer without a kernel draws their first picture),
    with each random model id replaced by one derived from the chapter and its order of
    creation, so an unchanged chapter rebuilds to the same file."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if not state:
        nb.metadata.pop("widgets", None)
        return nb
    chapter = nb.cells[0].id.split("-")[0] if nb.cells else "nb"
    text = json.dumps(nb)
    for n, old in enumerate(list(state)):
        text = text.replace(old, uuid.uuid5(uuid.NAMESPACE_URL, f"minigrad/{chapter}/{n}").hex)
    return nbformat.from_dict(json.loads(text))


def target(path):
    return OUT / f"{path.stem}.ipynb"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers, e.g. 01 04")
    parser.add_argument("--no-execute", action="store_true")
    args = parser.parse_args(argv)
    sources = sorted(SRC.glob("[0-9][0-9]_*.py"))
    if args.chapters:
        sources = [s for s in sources if s.stem[:2] in args.chapters]
    for path in sources:
        nb = parse(path)
        if not args.no_execute:
            print(f"executing {path.name} ...", flush=True)
            nb = execute(nb)
        nbformat.validate(nb)
        nbformat.write(nb, target(path))
        print(f"wrote {target(path).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
