"""The order of a training step (chapter 12): both libraries, the errors, then the widget."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

import minigrad  # noqa: E402
from minigrad.course.widgets.step_order import (  # noqa: E402
    NONE,
    StepOrderRun,
    key_phrase,
    run_order,
    step_order_widget,
)
from tests.tensor_parity import assert_close  # noqa: E402

RIGHT = ["zero_grad", "forward", "backward", "step"]


@pytest.mark.parametrize("order, hidden, verdict", [
    (RIGHT, False, "trains"),
    (RIGHT, True, "trains"),
    (["forward", "backward", "zero_grad", "step"], False, "nothing moves"),
    (["forward", "zero_grad", "step", "backward"], True, "nothing moves"),
    (["forward", "backward", "step"], False, "the loss swings (it rises again)"),
    (["forward", "step", "zero_grad", "backward"], False, "trains"),
])
def test_losses_match_torch(order, hidden, verdict):
    ours, theirs = run_order(minigrad, order, hidden), run_order(torch, order, hidden)
    assert ours.error is None and theirs.error is None and len(ours.losses) == 11
    assert_close(ours.losses, theirs.losses, rtol=1e-10, atol=1e-12)
    run = StepOrderRun(order, hidden)
    assert run.agrees and run.verdict() == verdict


def test_the_right_order_is_torch_by_hand():
    """The first iteration of the right order is one SGD step on the MSE, done by hand."""
    from minigrad.course.widgets.step_order import _data, _model

    X, y = (torch.tensor(a) for a in _data())
    model = _model(torch, hidden=False)
    w, b = model[0].weight.detach().clone(), model[0].bias.detach().clone()
    residual = X @ w.T + b - y
    w1 = w - 0.1 * 2 * residual.T @ X / len(X)
    b1 = b - 0.1 * 2 * residual.sum(0) / len(X)
    after = ((X @ w1.T + b1 - y) ** 2).mean().item()
    assert run_order(minigrad, RIGHT).losses[1] == pytest.approx(after, rel=1e-12)


@pytest.mark.parametrize("order, hidden, error, phrase, where", [
    (["forward", "step", "zero_grad", "backward"], True, "RuntimeError",
     "one of the variables needed for gradient computation has been modified by an inplace "
     "operation", (2, "backward")),
    (["zero_grad", "forward", "backward", "backward"], False, "RuntimeError",
     "Trying to backward through the graph a second time", (1, "backward")),
    (["backward", "forward", "step", NONE], False, "NameError",
     "name 'loss' is not defined", (1, "backward")),
])
def test_errors_are_the_same_in_both(order, hidden, error, phrase, where):
    run = StepOrderRun(order, hidden)
    for outcome in (run.ours, run.theirs):
        assert outcome.error[0] == error and key_phrase(outcome.error[1]) == phrase
        assert outcome.where == where
    assert run.agrees and run.verdict() == "raises"
    assert f"raises {error} at iteration {where[0]}" in run.readout()
    assert "the same error" in run.readout()


def test_key_phrase_and_notes():
    assert key_phrase("a b: c. d") == "a b"
    assert key_phrase("Trying to backward (or ...)") == "Trying to backward"
    assert key_phrase("plain") == "plain"
    assert StepOrderRun(["forward", "backward", "step"]).notes()[0].startswith("no zero_grad")
    assert "one step late" in StepOrderRun(["forward", "step", "zero_grad", "backward"]).readout()
    assert StepOrderRun(RIGHT).notes() == []


def test_widget_dropdowns_and_checkbox_rerun_both_libraries():
    box = step_order_widget()
    *menus, hidden = box.children[0].children
    readout = box.children[1]
    assert [m.value for m in menus] == RIGHT and "trains" in readout.value
    menus[3].value = "backward"
    assert box.run.order == ["zero_grad", "forward", "backward", "backward"]
    assert "Trying to backward through the graph a second time" in readout.value
    menus[0].value, menus[1].value, menus[2].value, menus[3].value = \
        "forward", "step", "zero_grad", "backward"
    assert "trains" in readout.value and "one step late" in readout.value
    hidden.value = True
    assert "modified by an inplace operation" in readout.value and box.run.agrees
