"""Chapter 08's widget: SGD with and without zero_grad() in the (w, b) plane (logic against
torch's optimizer run, then the widget)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from minigrad.course.widgets.accumulation_view import ZeroGradRuns, zero_grad_widget  # noqa: E402


def test_both_paths_match_torchs_optimizer():
    runs = ZeroGradRuns(steps=12)
    for clear in (True, False):
        assert runs.path[clear].shape == (13, 2)
        assert np.allclose(runs.path[clear], runs.torch_path[clear], rtol=1e-10, atol=1e-12)


def test_without_zero_grad_each_step_uses_the_sum_of_all_gradients():
    """Rebuild the stale run by hand with torch.autograd.grad: step t moves by lr * (g_1 +
    ... + g_t)."""
    runs = ZeroGradRuns(steps=6)
    x, y = (torch.tensor(a) for a in runs.data)
    w, b = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in runs.start)
    total = torch.zeros(2, dtype=torch.float64)
    for t in range(6):
        loss = ((w * x + b - y) ** 2).mean()
        total += torch.stack(torch.autograd.grad(loss, [w, b]))
        with torch.no_grad():
            w -= runs.lr * total[0]
            b -= runs.lr * total[1]
        assert np.allclose(runs.path[False][t + 1], [w.item(), b.item()], rtol=1e-10)


def test_zero_grad_converges_and_stale_does_not():
    runs = ZeroGradRuns()
    end = {c: runs.loss(*runs.path[c][-1]) for c in (True, False)}
    assert end[True] < 0.05 < 1 < end[False]


def test_loss_grid_is_the_formula():
    runs = ZeroGradRuns(steps=1)
    ws, bs = np.array([0.0, 1.5]), np.array([-1.0, 0.5, 2.0])
    grid = runs.loss_grid(ws, bs)
    assert grid.shape == (3, 2)
    assert np.isclose(grid[2, 1], runs.loss(1.5, 2.0))
    lt = torch.nn.functional.mse_loss(1.5 * torch.tensor(runs.data[0]) + 2.0,
                                      torch.tensor(runs.data[1]))
    assert np.isclose(grid[2, 1], lt.item())


def test_widget_follows_the_slider():
    box = zero_grad_widget(steps=10, start_step=3)
    slider, image, readout = box.children
    assert "after 3 of 10 steps" in readout.value and "matches torch" in readout.value
    assert image.value[:4] == b"\x89PNG"
    slider.value = 10
    assert "after 10 of 10 steps" in readout.value
    assert "DIFFERS" not in readout.value
