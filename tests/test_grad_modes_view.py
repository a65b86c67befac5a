"""Chapter 09's modes table: every row measured in minigrad equals torch's, each mode
changes what it should, then the widget around it."""

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import minigrad  # noqa: E402
from minigrad.course.widgets.grad_modes_view import (  # noqa: E402
    BATCHES,
    MODES,
    QUANTITIES,
    Dropout,
    ModesComparison,
    modes_widget,
    table_text,
)


@pytest.fixture(scope="module")
def comparison():
    return ModesComparison()


def as_dict(rows):
    return {row.name: row for row in rows}


@pytest.mark.parametrize("modes", [m for r in range(len(MODES) + 1)
                                   for m in itertools.combinations(MODES, r)])
def test_every_row_equals_torch_under_every_combination_of_modes(comparison, modes):
    rows = comparison.run(modes, batch=4)
    assert [row.name for row in rows] == list(QUANTITIES)
    for row in rows:
        assert row.minigrad == row.torch, (modes, row)


def test_what_each_mode_changes(comparison):
    n = 8
    per_row = 4 * (16 + 32 + 32 + 32)  # float32: x, relu's output, the mask, dropout's output
    plain = as_dict(comparison.run((), n))
    assert plain["grad_fn recorded"].torch and plain["requires_grad"].torch
    assert plain["bytes saved by the forward"].torch == n * per_row
    assert plain["dropout active"].torch and not plain["inference tensor"].torch

    for mode in ("no_grad", "inference_mode"):
        rows = as_dict(comparison.run((mode,), n))
        assert not rows["grad_fn recorded"].minigrad and not rows["requires_grad"].minigrad
        assert rows["bytes saved by the forward"].minigrad == 0
        assert rows["dropout active"].minigrad  # recording off is not eval
        assert rows["inference tensor"].torch == (mode == "inference_mode")

    detached = as_dict(comparison.run(("detach",), n))
    assert not detached["grad_fn recorded"].minigrad and not detached["requires_grad"].minigrad
    assert detached["bytes saved by the forward"].minigrad == n * per_row  # already paid

    evaluated = as_dict(comparison.run(("eval",), n))
    assert evaluated["grad_fn recorded"].minigrad  # eval does not stop recording
    assert not evaluated["dropout active"].minigrad
    assert evaluated["bytes saved by the forward"].minigrad == n * 4 * (16 + 32)  # no mask


def test_runs_are_repeatable_and_bytes_grow_with_the_batch(comparison):
    assert comparison.run(("eval",), 16) == comparison.run(("eval",), 16)
    comparison.run((), 16)
    first = comparison.outputs[0].data.copy()
    minigrad.randn(100)  # another draw from minigrad's generator in between
    comparison.run((), 16)
    np.testing.assert_array_equal(comparison.outputs[0].data, first)  # the same mask
    curve = comparison.saved_curve(())
    assert [b for b, _, _ in curve] == list(BATCHES)
    assert all(ours == theirs == curve[0][1] * b for b, ours, theirs in curve)
    assert comparison.saved_curve(("no_grad",)) == [(b, 0, 0) for b in BATCHES]


def test_unknown_mode_is_refused(comparison):
    with pytest.raises(ValueError, match="unknown modes"):
        comparison.run(("train",))


def test_dropout_matches_torch_in_eval_and_in_its_gradient():
    assert Dropout is minigrad.nn.Dropout  # the name this module defined before minigrad's
    minigrad.manual_seed(3)
    layer = Dropout(0.25)
    x = minigrad.tensor(np.arange(1.0, 201.0).reshape(10, 20), requires_grad=True)
    out = layer(x)
    x_t = torch.arange(1.0, 201.0, dtype=torch.float64).reshape(10, 20).requires_grad_()
    torch.manual_seed(0)
    out_t = torch.nn.functional.dropout(x_t, 0.25, training=True)
    assert out.grad_fn.name() == out_t.grad_fn.name() == "MulBackward0"
    for result, inputs in [(out, x), (out_t, x_t)]:
        kept = np.asarray(result.detach().numpy() != 0)
        assert 0.6 < kept.mean() < 0.9
        np.testing.assert_allclose(result.detach().numpy()[kept],
                                   inputs.detach().numpy()[kept] / 0.75)
        result.sum().backward()
        np.testing.assert_allclose(inputs.grad.numpy(), kept / 0.75)
    layer.eval()
    assert layer(x) is x
    assert torch.nn.functional.dropout(torch.ones(3), 0.25, training=False).tolist() == [1.0] * 3


def test_table_text_names_modes(comparison):
    text = table_text(comparison.run(("inference_mode",), 2), ("inference_mode",), 2)
    assert text.splitlines()[0] == "modes: inference_mode; batch 2"
    assert "DIFFERENT" not in text
    assert "none (training)" in table_text(comparison.run((), 2))


# --- the widget, driven without a browser ---

def test_widget_toggles_and_slider_change_the_table_and_plot():
    box = modes_widget(batch=8)
    toggles, slider, readout, image = box.children[0].children, *box.children[1:]
    assert [t.description for t in toggles] == list(MODES)
    assert "minigrad-ch09-batch" in slider._dom_classes
    assert "minigrad-ch09-table" in readout._dom_classes
    assert "none (training); batch 8" in readout.value and "3,584" in readout.value
    first_plot = image.value
    toggles[MODES.index("no_grad")].value = True
    assert "modes: no_grad; batch 8" in readout.value
    saved = [line for line in readout.value.splitlines() if "bytes saved" in line][0]
    assert saved.split()[-3:] == ["0", "0", "same"]
    assert image.value != first_plot
    toggles[MODES.index("no_grad")].value = False
    slider.value = 16
    assert "batch 16" in readout.value and "7,168" in readout.value
