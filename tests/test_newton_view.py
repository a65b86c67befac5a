"""Chapter 15's widget logic: Newton and gradient descent on Rosenbrock, against torch."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import minigrad  # noqa: E402
from minigrad.course.widgets.newton_view import (  # noqa: E402
    NewtonRace,
    descent_path,
    newton_path,
    newton_widget,
    rosenbrock,
    steps_to_converge,
)
from tests.tensor_parity import assert_close  # noqa: E402


def by_hand(p):
    """Rosenbrock's gradient and Hessian, by hand."""
    a, b = p
    g = np.array([-2 * (1 - a) - 400 * a * (b - a * a), 200 * (b - a * a)])
    h = np.array([[2 - 400 * (b - 3 * a * a), -400 * a], [-400 * a, 200.0]])
    return g, h


@pytest.mark.parametrize("start", [(-1.2, 1.0), (0.0, 2.0), (1.5, -0.5)])
@pytest.mark.parametrize("damping", [1.0, 0.5])
def test_newton_paths_match_torch_and_the_formula(start, damping):
    path = newton_path(minigrad, start, damping, steps=8)
    path_t = newton_path(torch, start, damping, steps=8)
    assert_close(path, path_t, rtol=1e-10, atol=1e-12)
    p = np.array(start)
    for k in range(1, len(path)):  # each step solves H d = -g, from the formulas
        g, h = by_hand(p)
        p = p - damping * np.linalg.solve(h, g)
        assert_close(path[k], p, rtol=1e-9, atol=1e-12)


def test_pure_newton_converges_in_few_steps_from_the_classic_start():
    path = newton_path(minigrad, (-1.2, 1.0))
    assert steps_to_converge(path) == 6
    assert np.hypot(*(path[-1] - 1)) < 1e-6


@pytest.mark.parametrize("lr", [0.001, 0.002])
def test_descent_paths_match_torch_sgd_and_the_formula(lr):
    path = descent_path(minigrad, (-1.2, 1.0), lr, steps=50)
    path_t = descent_path(torch, (-1.2, 1.0), lr, steps=50)
    assert path.shape == (51, 2)
    assert_close(path, path_t, rtol=1e-11, atol=1e-13)
    p = np.array([-1.2, 1.0])
    for _ in range(50):
        p = p - lr * by_hand(p)[0]
    assert_close(path[-1], p, rtol=1e-10, atol=1e-12)


def test_rosenbrock_in_both_libraries():
    for lib in (minigrad, torch):
        assert rosenbrock(lib.tensor([1.0, 1.0], dtype=lib.float64)).item() == 0.0
        assert rosenbrock(lib.tensor([-1.2, 1.0], dtype=lib.float64)).item() == \
            pytest.approx(24.2)


def test_steps_to_converge():
    path = np.array([[0.0, 0.0], [0.9, 0.9], [1.0, 1.0 + 1e-7], [1.0, 1.0]])
    assert steps_to_converge(path) == 2
    assert steps_to_converge(path[:2]) is None


def test_race_readout_and_agreement():
    race = NewtonRace((-1.2, 1.0), 0.001, 1.0)
    assert race.agrees and race.max_diff < 1e-10
    assert race.newton_steps == 6 and race.descent_steps is None
    text = race.readout()
    assert "Newton (step 1.00 H^-1 g): 6 steps to within 1e-06 of (1, 1)" in text
    assert "gradient descent (lr 0.0010): not within 1e-06 of (1, 1) after 200 steps" in text
    assert "same as torch's" in text
    damped = NewtonRace((-1.2, 1.0), 0.001, 0.5)
    assert damped.newton_steps is None and "Newton (step 0.50 H^-1 g): not within" in \
        damped.readout()


def test_race_near_the_minimum_both_converge():
    race = NewtonRace((1.1, 1.2), 0.002, 1.0, max_descent=200)
    assert race.agrees
    assert race.newton_steps is not None and race.newton_steps <= 6


def test_widget_redraws_on_a_slider():
    box = newton_widget()
    readout = box.children[2]
    before = readout.value
    damping = box.children[1].children[1]
    damping.value = 0.5
    assert readout.value != before and "step 0.50" in readout.value
    assert box.race.damping == 0.5
    classes = [c._dom_classes for c in box.children[0].children + box.children[1].children]
    assert [c[0] for c in classes] == ["minigrad-ch15-a", "minigrad-ch15-b", "minigrad-ch15-lr",
                                       "minigrad-ch15-damping"]
