"""The grading helpers: routes switched off however they are reached, results frozen
inside the window, one table, short failures, patched modules noticed."""

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
    import sys

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
