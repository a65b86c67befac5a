"""Shared helpers for the notebook tests: where the chapters are, and the builder."""

import configparser
import copy
import importlib.util
import pathlib
import re

import nbformat
from jupyter_client.manager import start_new_kernel

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


# Appended to the nbgrader_config.py of every course folder a test grades: on a busy
# machine (make test runs three workers on two cores, beside other jobs) a kernel's last
# IOPub messages can lag its reply by more than nbclient's 4 s, which fails the whole
# submission ("Timeout waiting for IOPub output"); no grade depends on this wait.
BUSY_MACHINE = "\nc.Execute.iopub_timeout = 60  # tests/notebook_tools.py: BUSY_MACHINE\n"


def load_module(relative):
    """A module of the repository that is not a package (scripts/, instructor/)."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_builder():
    return load_module("scripts/build_notebooks.py")


def _sanitizers():
    parser = configparser.ConfigParser()
    parser.read(ROOT / "tests" / "sanitize.cfg")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


SANITIZE = _sanitizers()


def output_text(outputs):
    """What a cell showed (streams joined as nbval joins them, results, displays, an
    error's type), after the same sanitizing nbval applies: for comparing two runs."""
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


# What nbval leaves out of a comparison (nbval.plugin.IPyNbFile.skip_compare, without
# nbdime): the tests compare as ``pytest --nbval`` does.
NBVAL_SKIP = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
              "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")


def as_outputs(messages):
    """A cell's outputs as a notebook stores them, from the ``(msg_type, content)`` pairs
    :meth:`Kernel.run` collects."""
    outputs = []
    for kind, content in messages:
        if kind == "stream":
            outputs.append(nbformat.NotebookNode(output_type="stream", name=content["name"],
                                                 text=content["text"]))
        elif kind == "error":
            outputs.append(nbformat.NotebookNode(output_type="error", **{
                k: content[k] for k in ("ename", "evalue", "traceback")}))
        else:
            outputs.append(nbformat.NotebookNode(output_type=kind, data=content["data"],
                                                 metadata=content.get("metadata", {})))
    return outputs


def nbval_view(outputs):
    """What ``pytest --nbval --nbval-sanitize-with tests/sanitize.cfg`` compares of a
    cell's outputs (``nbval.plugin.IPyNbCell.compare_outputs``): streams of one name
    joined (``\\r`` and ``\\b`` applied), every key and MIME type but those in
    :data:`NBVAL_SKIP`, sanitized; {key: [values in order]}. Two runs agree for nbval
    exactly when their views are equal."""
    from nbval.plugin import coalesce_streams

    view = {}
    for output in coalesce_streams(copy.deepcopy(list(outputs))):
        output = dict(output)
        if output.get("output_type") == "stream":
            output = {output["name"]: output["text"]}
        for key, value in output.items():
            if key in NBVAL_SKIP:
                continue
            items = value.items() if key == "data" else [(key, value)]
            for name, item in items:
                if name not in NBVAL_SKIP:
                    view.setdefault(name, []).append(_sanitized(item))
    return view


def _sanitized(value):
    if isinstance(value, list):  # a multi-line string as nbformat may store it
        value = "".join(value)
    if not isinstance(value, str):
        return value
    for regex, replace in SANITIZE:
        value = regex.sub(replace, value)
    return value


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


class Kernel:
    """A Jupyter kernel for running a chapter's cells one at a time."""

    def __init__(self, cwd):
        self.km, self.kc = start_new_kernel(kernel_name="python3", cwd=str(cwd))

    def run(self, code, timeout=300, outputs=None):
        """Run code; return (ok, 'ename: evalue'). Output messages go to ``outputs``."""
        outputs = [] if outputs is None else outputs

        def hook(msg):
            if msg["msg_type"] in ("stream", "error", "execute_result", "display_data"):
                outputs.append((msg["msg_type"], msg["content"]))

        reply = self.kc.execute_interactive(code, timeout=timeout, output_hook=hook,
                                            allow_stdin=False)
        content = reply["content"]
        if content["status"] == "ok":
            return True, ""
        return False, f"{content['ename']}: {content['evalue']}"

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


MARKED = ("SOLUTION", "HIDDEN TESTS")


def marked_lines(source, kinds=MARKED, inside=True):
    """The stripped, non-empty lines of ``source`` inside (or, ``inside=False``, outside)
    its ``### BEGIN KIND`` ... ``### END KIND`` blocks of the given kinds; the marker
    lines themselves are in neither."""
    lines, within = [], None
    for line in source.splitlines():
        marker = line.strip()
        for edge in ("### BEGIN ", "### END "):
            if marker.startswith(edge) and marker[len(edge):] in MARKED:
                within = marker[len(edge):] if edge == "### BEGIN " else None
                break
        else:
            if marker and (within in kinds) == inside:
                lines.append(marker)
    return lines


def visible_code_lines(nb):
    """The stripped code lines of a source notebook outside its solutions and hidden
    tests: a student sees these by design (a supplied buggy loop shares most of its lines
    with the fixed one; a visible check calls what the hidden checks call)."""
    return {line for cell in nb.cells if cell.cell_type == "code"
            for line in marked_lines(cell.source, inside=False)}



# The minimal assignment (:func:`minimal_assignment`): two exercises, 3 and 2 points, as
# chapter 01 has. {grade_id of the solution cell: (points, title, the answer's body)}.
MINIMAL = {"ex00-add-one": (3, "Exercise 0.1", "return x + 1"),
           "ex00-double": (2, "Exercise 0.2", "return 2 * x")}
MINIMAL_POINTS = sum(points for points, _, _ in MINIMAL.values())
_MINIMAL_TEST = """\
from minigrad.course.grading import graded

with graded("{title}", hint="read the docstring") as g:
    g.check("{name}(1)", g.call({name}, 1), {one}, against="formula")
    ### BEGIN HIDDEN TESTS
    g.check("{name}(2)", g.call({name}, 2), {two}, against="formula")
    ### END HIDDEN TESTS
"""


def minimal_assignment(folder):
    r"""``folder/00_minimal.ipynb``: the smallest nbgrader source notebook like a chapter's,
    the exercises of :data:`MINIMAL` (each a solution cell defining ``answer_<n>(x)``, then
    a test cell with hidden tests through the course's ``graded``), for grading tests about
    the grading machinery itself (sandbox, timeouts, crashes, tampering) rather than a
    chapter: no demo cells, no torch in the kernel unless the grader imports it.
    ``released_course(folder, [..., minimal_assignment(...)])`` makes it assignment ``ch00``.
    """
    def meta(grade_id, points=None):
        return {"nbgrader": {"grade": points is not None, "grade_id": grade_id,
                             "locked": points is not None, "schema_version": 3,
                             "solution": points is None, "task": False,
                             **({"points": points} if points is not None else {})}}

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# 00 Minimal\n\nTwo exercises.")]
    for n, (grade_id, (points, title, body)) in enumerate(MINIMAL.items(), 1):
        name = f"answer_{n}"
        solution = (f"def {name}(x):\n    \"\"\"{body[7:]}.\"\"\"\n    ### BEGIN SOLUTION\n"
                    f"    {body}\n    ### END SOLUTION")
        one, two = (eval(body[7:], {"x": x}) for x in (1, 2))
        nb.cells += [nbformat.v4.new_code_cell(solution, metadata=meta(grade_id)),
                     nbformat.v4.new_code_cell(_MINIMAL_TEST.format(title=title, name=name,
                                                                    one=one, two=two),
                                               metadata=meta(f"{grade_id}-test", points))]
    path = pathlib.Path(folder) / "00_minimal.ipynb"
    nbformat.write(nb, path)
    return path
