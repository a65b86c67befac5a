"""The grading helpers: routes switched off however they are reached, results frozen
inside the window, one table, short failures, patched modules noticed."""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import minigrad
from minigrad.course import integrity
from minigrad.course.grading import ExerciseFailed, Forbidden, graded, switched_off


def _torch_slope(x, _backward=torch.Tensor.backward):  # an alias taken as a default
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    _backward(t ** 2)
    return t.grad.item()


ROOT = pathlib.Path(__file__).resolve().parent.parent
CAPTURED = minigrad.autograd.engine.sum_to_shape  # a reference taken "in an earlier cell"


@pytest.mark.parametrize("reach", [
    lambda: _torch_slope(3.0),
    lambda: torch.autograd.grad(*(lambda t: ((t * 2).sum(), t))(
        torch.ones(2, requires_grad=True))),
    lambda: torch.func.grad(lambda t: (t ** 2).sum())(torch.ones(2)),
    lambda: (minigrad.tensor([1.0, 2.0], requires_grad=True) ** 2).sum().backward(),
    lambda: (minigrad.Value(2.0) ** 2).backward(),
    lambda: minigrad.autograd.grad(*(lambda t: ((t * 2).sum(), t))(
        minigrad.ones(2, requires_grad=True))),
    lambda: minigrad.autograd.backward((minigrad.ones(2, requires_grad=True) * 3).sum()),
], ids=["default-arg alias", "autograd.grad", "torch.func.grad", "minigrad", "Value",
        "minigrad.autograd.grad", "minigrad.autograd.backward"])
def test_autograd_is_switched_off_however_reached(reach):
    with pytest.raises(Forbidden), switched_off("autograd"):
        reach()
    reach()  # and back on afterwards


def test_a_captured_reference_is_switched_off_too():
    with pytest.raises(Forbidden), switched_off([minigrad.autograd.engine.sum_to_shape]):
        CAPTURED(np.ones((2, 3)), (3,))
    assert CAPTURED(np.ones((2, 3)), (3,)).shape == (3,)


def test_the_route_is_restored_after_an_error():
    with pytest.raises(ZeroDivisionError), switched_off("autograd"):
        1 / 0  # noqa: B018
    assert _torch_slope(3.0) == pytest.approx(6.0, rel=1e-12)


def test_calls_are_counted_and_still_run():
    calls = {}
    with switched_off(count="minigrad.Value.backward", calls=calls):
        x = minigrad.Value(3.0)
        (x * x).backward()
        (x * x).backward()
    assert calls == {"minigrad.Value.backward": 2}
    assert x.grad == pytest.approx(12.0, rel=1e-12)


def test_a_lazy_result_is_evaluated_inside_the_window():
    class Lazy(float):
        def __float__(self):
            return _torch_slope(3.0)

    with pytest.raises(ExerciseFailed, match="switches off"), graded("Ex") as g:
        g.call(lambda: Lazy(0.0), forbid="autograd")


def test_an_unknown_object_is_refused():
    with pytest.raises(ExerciseFailed, match="returned a object"), graded("Ex") as g:
        g.call(lambda: object())


def test_a_failure_is_one_line_with_the_hint(capsys):
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 9.9", hint="look up") as g:
        g.check("a", 1.0, 1.0)
        g.check("b", 2.0, 3.0, against="formula")
    message = str(info.value)
    assert message.startswith("Exercise 9.9: b") and "formula" in message
    assert message.endswith("Hint: look up") and message.count("\n") == 1
    table = capsys.readouterr().out
    assert "pass" in table and "FAIL" in table  # both rows are shown


def test_recursion_and_not_implemented_are_explained():
    def deep(n):
        return deep(n + 1)

    def stub():
        raise NotImplementedError()

    with pytest.raises(ExerciseFailed, match="explicit stack|stack"), graded("Ex") as g:
        g.call(deep, 0)
    with pytest.raises(ExerciseFailed, match="not written yet"), graded("Ex") as g:
        g.call(stub)


def test_stderr_of_the_learners_code_goes_to_stdout(capsys):
    with graded("Ex") as g:
        g.check("x", g.call(lambda: print("debug", file=sys.stderr) or 1.0), 1.0)
    out, err = capsys.readouterr()
    assert "debug" in out and "debug" not in err


def test_a_patched_module_is_noticed():
    integrity.install()
    saved = np.isclose
    try:
        np.isclose = lambda *a, **k: True
        with pytest.raises(integrity.TamperingDetected, match="numpy.isclose"), graded("Ex"):
            pass
    finally:
        np.isclose = saved
        integrity.install()
    with graded("Ex") as g:
        g.check("x", 1.0, 1.0)


def test_every_route_resolves_to_a_function():
    """A route names a function by "module:qualname": one that moved fails here (grading
    would otherwise fail on it only when an exercise switches it off)."""
    from minigrad.course.grading import ROUTES, _resolve

    for name, specs in ROUTES.items():
        assert specs, name
        for spec in specs:
            target = _resolve(spec)
            assert callable(target) and hasattr(target, "__code__"), f"{name}: {spec}"


def _failure(block):
    """The ExerciseFailed that ``block(g)`` raises inside a graded block."""
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 9.9", hint="look up") as g:
        block(g)
    return info.value


def test_a_failure_renders_as_its_message_and_hint_only():
    exc = _failure(lambda g: g.check("b", 2.0, 3.0, against="formula"))
    lines = exc._render_traceback_()
    assert lines == ["\x1b[31mExerciseFailed\x1b[39m: Exercise 9.9: b is 2.0, formula gives "
                     "3.0 (rtol=1e-07, atol=1e-10)", "Hint: look up"]
    assert str(exc) == "\n".join(lines[0].split(": ", 1)[1:] + lines[1:])


def _divides(x):
    y = x + 1
    return y / 0


def _uses_backward(x):
    t = torch.tensor(x, requires_grad=True)
    (t * t).backward()
    return t.grad


@pytest.mark.parametrize(("fn", "forbid", "line"), [
    (_divides, (), "return y / 0"), (_uses_backward, "autograd", "(t * t).backward()")])
def test_an_error_in_the_learners_code_says_where(fn, forbid, line):
    exc = _failure(lambda g: g.call(fn, 2.0, forbid=forbid))
    lines = exc._render_traceback_()
    number = fn.__code__.co_firstlineno + 2
    assert lines[1] == f"  in {fn.__name__}, line {number}: {line}"
    assert len(lines) == 3 and lines[2] == "Hint: look up"
    assert "grading.py" not in "\n".join(lines) and "Traceback" not in "\n".join(lines)


def test_the_exercise_table_shows_the_values():
    with graded("Ex") as g:
        g.check("grad", np.array([4.0, 3.0]), torch.tensor([4.0, 3.0]))
        g.check("slope", 6.0, 6.0, against="formula")
        g.check("is leaf", True, True)
        g.check("W", np.ones((4, 4)), np.ones((4, 4)))
    rows = [re.split(r"\s{2,}", line)[1:3] for line in repr(g).splitlines()[2:]]
    assert rows == [["[4, 3]", "torch: [4, 3]"], ["6", "formula: 6"], ["True", "torch: True"],
                    ["all 1", "torch: all 1"]]
    assert "<td>[4, 3]</td><td>torch: [4, 3]</td>" in g._repr_html_()
    with graded("Ex") as g:
        g.check("M", np.eye(2), torch.eye(2))
    assert "<td>[[1, 0],<br>[0, 1]]</td><td>torch: [[1, 0],<br>[0, 1]]</td>" in g._repr_html_()


@pytest.mark.slow
def test_a_notebook_shows_the_clean_error_and_still_fails(tmp_path):
    """A real kernel: the error output is the message, the cell fails (nbclient, nbval),
    a raises-exception cell passes, and nbgrader gives the graded cell no points."""
    import nbclient
    import nbformat
    from nbgrader.utils import determine_grade

    cell = ("from minigrad.course.grading import graded\n"
            "with graded('Exercise 9.9', hint='look up') as g:\n"
            "    g.check('b', [1.0, 2.0], [1.0, 2.5])")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nb.cells[0].metadata = {"tags": ["raises-exception"], "nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 2, "grade_id": "t",
        "schema_version": 3}}
    env = {"kernel_name": "python3", "timeout": 120}
    kernel_env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's minigrad
    nbclient.NotebookClient(nb, resources={"metadata": {"path": str(tmp_path)}},
                            **env).execute(env=kernel_env)
    error = next(o for o in nb.cells[0].outputs if o.output_type == "error")
    message = ("Exercise 9.9: b: 1 of 2 values differ (rtol=1e-07, atol=1e-10); first at "
               "(1,): yours 2.0, torch 2.5\nHint: look up")
    assert (error.ename, error.evalue) == ("ExerciseFailed", message)
    assert error.traceback == ["\x1b[31mExerciseFailed\x1b[39m: " + message.split("\n")[0],
                               "Hint: look up"]
    assert any("[1, 2]" in o.get("data", {}).get("text/plain", "") for o in nb.cells[0].outputs)
    assert determine_grade(nb.cells[0]) == (0, 2)
    nbformat.write(nb, tmp_path / "tagged.ipynb")
    nb.cells[0].metadata.pop("tags")
    nbformat.write(nb, tmp_path / "untagged.ipynb")
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="ExerciseFailed"):
        nbclient.NotebookClient(nb, resources={"metadata": {"path": str(tmp_path)}},
                                **env).execute(env=kernel_env)
    nbval = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", "tagged.ipynb", "untagged.ipynb"],
        cwd=tmp_path, env=kernel_env, capture_output=True, text=True, timeout=300)
    assert "1 failed, 1 passed" in nbval.stdout
    assert "FAILED untagged.ipynb::Cell 0" in nbval.stdout
    assert "Hint: look up" in nbval.stdout and "grading.py" not in nbval.stdout


@pytest.mark.slow
def test_the_guard_takes_its_slow_look_only_after_a_change(tmp_path):
    """In a real kernel (ipykernel binds a new ``builtins.input`` at every request), cells
    that rebind nothing watched cost only the quick look; a patch still takes the slow one
    and is noticed."""
    import nbclient
    import nbformat

    cells = ["import numpy as np\nimport minigrad.course.integrity as mi\n"
             "slow = [0]\n_fingerprint = mi.fingerprint\n"
             "def counted():\n    slow[0] += 1\n    return _fingerprint()\n"
             "mi.fingerprint = counted\nmi.install()",
             "class A:\n    pass", "x = input", "y = [1, 2]", "print(slow[0])",
             "np.isclose = lambda *a, **k: True", "print(slow[0], mi._state['first_change'])"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    kernel_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    nbclient.NotebookClient(nb, resources={"metadata": {"path": str(tmp_path)}},
                            kernel_name="python3", timeout=120).execute(env=kernel_env)
    assert nb.cells[4].outputs[0].text == "1\n"  # install's own look only
    after = nb.cells[6].outputs[0].text
    assert after.startswith("2 (6, 'np.isclose") and "numpy.isclose" in after
