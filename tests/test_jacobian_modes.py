"""minigrad.course.widgets.jacobian_modes (chapter 14): columns by JVPs and rows by VJPs against
torch.func.jacfwd / jacrev, the pass counts, the timing, the widget's controls."""

import numpy as np
import pytest
import torch

from minigrad.course.widgets.jacobian_modes import (
    JacobianModes,
    best_time,
    draw_modes,
    jacobian_modes_widget,
)


def torch_jacobians(modes):
    def f(t):
        return torch.tanh(torch.tensor(modes.W) @ t)

    x = torch.tensor(modes.x0)
    return torch.func.jacfwd(f)(x).numpy(), torch.func.jacrev(f)(x).numpy()


@pytest.mark.parametrize("n_in, n_out", [(3, 2), (1, 5), (6, 1), (4, 4)])
def test_columns_and_rows_fill_torchs_jacobian(n_in, n_out):
    modes = JacobianModes(n_in, n_out)
    by_columns, by_rows = torch_jacobians(modes)
    steps = 0
    while not modes.done:
        modes.step()
        steps += 1
        assert modes.matches
    assert steps == max(n_in, n_out)
    assert len(modes.columns) == n_in and len(modes.rows) == n_out
    np.testing.assert_allclose(modes.filled("forward"), by_columns, rtol=1e-12)
    np.testing.assert_allclose(modes.filled("reverse"), by_rows, rtol=1e-12)
    with pytest.raises(IndexError, match="press reset"):
        modes.step()


def test_text_counts_passes_and_is_reproducible():
    a, b = JacobianModes(3, 2), JacobianModes(3, 2)
    assert a.text() == b.text() and "press 'step'" in a.text()
    a.step()
    text = a.text()
    assert "1 of 3 passes" in text and "1 of 2 passes" in text
    assert "matches torch.func.jacrev" in text and "measured" not in text
    a.step()
    a.step()
    assert a.done and "3 of 3" in a.text() and "2 of 2" in a.text()
    assert "    .   " not in a.text()
    a.reset()
    assert a.text() == b.text()
    a.set_sizes(5, 1)
    assert "5 inputs, 1 outputs" in a.text() and np.all(np.isnan(a.filled("forward")))


def test_measure_and_best_time():
    modes = JacobianModes(2, 2)
    fwd, rev = modes.measure(repeats=2)
    assert fwd > 0 and rev > 0 and "measured (best of 5)" in modes.text()
    calls = []
    assert best_time(lambda: calls.append(1), repeats=3) >= 0 and len(calls) == 4


def test_widget_controls():
    box = jacobian_modes_widget()
    n_in, n_out = box.children[0].children
    step, reset, measure = box.children[1].children
    readout = box.children[3]
    assert "0 of 3 passes" in readout.value
    step.click()
    assert "1 of 3 passes" in readout.value and "1 of 2 passes" in readout.value
    for _ in range(2):
        step.click()
    assert step.disabled
    reset.click()
    assert not step.disabled and "0 of 3" in readout.value
    n_in.value = 6
    assert "6 inputs, 2 outputs" in readout.value and box.modes.n_in == 6
    n_out.value = 1
    assert box.modes.reference.shape == (1, 6)
    measure.click()
    assert "measured" in readout.value


def test_drawing_masks_what_is_not_filled():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = JacobianModes(3, 2)
    modes.step()
    fig = draw_modes(modes)
    left, right = fig.axes[:2]
    assert left.get_title() == "forward mode: 1 of 3 columns"
    assert right.get_title() == "reverse mode: 1 of 2 rows"
    shown = left.get_images()[0].get_array()
    assert shown.mask[:, 1:].all() and not shown.mask[:, 0].any()
    np.testing.assert_allclose(shown[:, 0], torch_jacobians(modes)[0][:, 0], rtol=1e-12)
    plt.close(fig)
