"""The valley of chapter 10: SGD paths against torch, the stability limit, then the widget."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import minigrad  # noqa: E402
from minigrad.course.widgets.valley import ValleyRun, descend, spectral_radius, valley_widget  # noqa: E402
from tests.tensor_parity import assert_close  # noqa: E402


@pytest.mark.parametrize("lr, momentum", [(0.09, 0.0), (0.09, 0.7), (0.05, 0.9), (0.12, 0.3)])
def test_paths_match_torch_sgd(lr, momentum):
    path, values = descend(minigrad, lr, momentum)
    path_t, values_t = descend(torch, lr, momentum)
    assert path.shape == (41, 2) and values.shape == (41,)
    assert_close(path, path_t, rtol=1e-12, atol=1e-14)
    assert_close(values, values_t, rtol=1e-12, atol=1e-14)
    run = ValleyRun(lr, momentum)
    assert run.agrees and np.array_equal(run.path, path)


def test_torch_step_by_hand_on_the_valley():
    """One step of torch's rule, b = g at the first step, then mu b + g, p -= lr b."""
    lr, mu = 0.09, 0.7
    p = np.array([-4.0, 1.0])
    curv = np.array([1.0, 20.0])
    b = None
    for _ in range(3):
        g = curv * p
        b = g if b is None else mu * b + g
        p = p - lr * b
    assert_close(descend(torch, lr, mu, steps=3)[0][-1], p, rtol=1e-14, atol=0)


def test_stability_limit_and_effective_step():
    assert ValleyRun(0.09, 0.0).limit == pytest.approx(0.1)       # 2 / lambda_max
    assert ValleyRun(0.09, 0.7).limit == pytest.approx(0.17)      # 2 (1 + mu) / lambda_max
    assert ValleyRun(0.09, 0.7).effective_step == pytest.approx(0.3)
    assert ValleyRun(0.09, 0.0).verdict == "stable"
    assert ValleyRun(0.10, 0.0).verdict == "on the limit"
    assert ValleyRun(0.11, 0.0).verdict == "diverges"
    assert ValleyRun(0.16, 0.7).verdict == "stable"
    assert ValleyRun(0.18, 0.7).verdict == "diverges"


def test_radius_is_the_rate_torch_shows():
    """With mu = 0, v is multiplied by 1 - lr * 20 each step: the radius, with its sign."""
    run = ValleyRun(0.11, 0.0)
    assert run.radius == pytest.approx(1.2)
    ratios = run.path_torch[1:, 1] / run.path_torch[:-1, 1]
    assert_close(ratios, np.full(40, -1.2), rtol=1e-10, atol=0)
    # with momentum the rate is reached only in the long run: the ratio of norms
    run = ValleyRun(0.18, 0.7)
    v = np.abs(run.path_torch[:, 1])
    assert v[-1] / v[-11] == pytest.approx(run.radius ** 10, rel=0.05)
    assert spectral_radius(0.09, 0.7, 1.0) == pytest.approx(np.sqrt(0.7))  # complex roots


def test_momentum_gains_along_u_not_v():
    """Chapter 10's claim, measured: |u40| shrinks with mu = 0.7, |v40| grows."""
    plain, heavy = ValleyRun(0.09, 0.0), ValleyRun(0.09, 0.7)
    assert abs(heavy.path_torch[-1, 0]) < abs(plain.path_torch[-1, 0]) / 10
    assert abs(heavy.path_torch[-1, 1]) > abs(plain.path_torch[-1, 1])


def test_readout_names_the_verdict_and_the_numbers():
    text = ValleyRun(0.11, 0.0).readout()
    assert "diverges" in text and "lambda_max = 20" in text and "= 0.100" in text
    assert "effective step lr / (1 - momentum) = 0.110" in text
    assert "same as torch's optim.SGD" in text
    assert "stable" in ValleyRun(0.09, 0.7).readout().splitlines()[0]


def test_widget_sliders_update_the_run_and_the_readout():
    box = valley_widget(lr=0.09, momentum=0.0)
    lr_slider, mu_slider = box.children[0].children
    readout = box.children[1]
    assert box.run.verdict == "stable" and "stable" in readout.value
    lr_slider.value = 0.11
    assert box.run.verdict == "diverges" and "diverges" in readout.value
    mu_slider.value = 0.7
    assert box.run.momentum == 0.7 and box.run.verdict == "stable"
    assert "0.170" in readout.value
