"""The eps explorer's logic (minigrad/course/widgets/finite_differences.py, chapter 11):
every number it shows is the one torch computes by the same formula, bit for bit."""

import numpy as np
import pytest
import torch

from minigrad.course.widgets.finite_differences import (
    FiniteDifference,
    exact_decimal,
    readout_lines,
)


def square(x):
    return x ** 2


def cube(x):
    return x * x * x


def torch_estimate(fn, x, eps, dtype, kind):
    """The tutorial's formula in torch: inputs made from Python floats, divided by a float."""
    dt = getattr(torch, dtype)
    plus = torch.tensor(x + eps, dtype=dt)
    minus = torch.tensor(x - eps if kind == "central" else x, dtype=dt)
    return ((fn(plus) - fn(minus)) / (2 * eps if kind == "central" else eps)).item()


def test_the_tutorials_example_number_by_number():
    fd = FiniteDifference(square, 3.0)
    e = fd.estimate(1e-4, "float32", "central")
    assert exact_decimal(e.plus) == "3.0000998973846435546875"
    assert exact_decimal(e.minus) == "2.9999001026153564453125"
    assert e.step == pytest.approx(1.9979476928710938e-4, rel=1e-15)
    assert e.estimate == torch_estimate(square, 3.0, 1e-4, "float32", "central")
    assert e.estimate == pytest.approx(5.993843, abs=1e-6)
    assert e.estimate == pytest.approx(6 * e.step / 2e-4, rel=1e-7)  # 6 x 0.99897
    assert e.by_step == 6.0  # the same difference over the step actually taken
    assert fd.estimate(2.0 ** -13, "float32", "central").estimate == 6.0
    assert torch_estimate(square, 3.0, 2.0 ** -13, "float32", "central") == 6.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["central", "one-sided"])
def test_estimates_and_curves_equal_torchs(dtype, kind):
    fd = FiniteDifference(cube, 1.5)
    steps = np.logspace(-1, -12, 45)
    curve = fd.curve(dtype, kind, steps)
    for eps, err in zip(steps, curve, strict=True):  # the tensor route gives the scalar's
        ours = fd.estimate(eps, dtype, kind).estimate
        assert ours == torch_estimate(cube, 1.5, eps, dtype, kind)
        assert abs(ours - 6.75) == err
    dt = getattr(torch, dtype)
    plus = torch.tensor(1.5 + steps, dtype=dt)
    minus = torch.tensor(1.5 - steps if kind == "central" else np.full(45, 1.5), dtype=dt)
    theirs = ((cube(plus) - cube(minus)) / torch.tensor(
        2 * steps if kind == "central" else steps, dtype=dt)).double()
    np.testing.assert_array_equal(fd.curve(dtype, kind, steps), (theirs - 6.75).abs().numpy())


def test_derivatives_come_from_torch():
    fd = FiniteDifference(cube, 1.5)
    assert (fd.value, fd.exact, fd.second, fd.third) == (3.375, 6.75, 9.0, 6.0)  # by hand
    assert FiniteDifference(square, 3.0).third == 0.0


def test_the_step_is_lost_below_half_the_spacing():
    fd = FiniteDifference(cube, 1.5)
    assert fd.lost_below("float32") == 2.0 ** -24
    lost = fd.estimate(5.6e-8, "float32", "central")
    assert lost.plus == lost.minus == 1.5 and lost.estimate == 0.0 and lost.error == -6.75
    assert any("the step is lost" in line for line in readout_lines(fd, lost))
    kept = fd.estimate(1e-7, "float32", "central")
    assert kept.plus == 1.5 + 2.0 ** -23 and kept.minus == 1.5 - 2.0 ** -23
    assert torch.tensor(1.5 + 5.6e-8) == 1.5 and torch.tensor(1.5 + 1e-7) != 1.5


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["central", "one-sided"])
def test_the_error_model_bounds_the_measured_error(dtype, kind):
    fd = FiniteDifference(cube, 1.5)
    steps = np.logspace(-1, -12, 45)
    kept = steps > fd.lost_below(dtype)
    measured = fd.curve(dtype, kind, steps)[kept]
    model = fd.truncation(steps, kind)[kept] + fd.roundoff(steps, dtype)[kept]
    assert np.all(measured <= 1.05 * model)  # the one-sided eps^2 term adds 2% at eps = 0.1


def test_readout_is_the_same_every_time():
    fd = FiniteDifference(square, 3.0, "x**2")
    lines = readout_lines(fd, fd.estimate(1e-4))
    assert lines == readout_lines(FiniteDifference(square, 3.0, "x**2"), fd.estimate(1e-4))
    assert lines[0] == "x**2 at x = 3, eps = 1.000e-04, float32, central"
    assert "5.993843079" in lines[4] and lines[5].endswith("  6")


def test_the_widget_redraws_on_every_control():
    from minigrad.course.widgets.finite_differences import eps_explorer

    box = eps_explorer(cube, 1.5, "x**3")
    slider, (dtype, kind), readout = box.children[0], box.children[1].children, box.children[2]
    before = readout.value
    slider.value = 1e-3
    assert readout.value != before and "eps = 1.000e-03" in readout.value
    dtype.value = "float64"
    assert "float64" in readout.value
    kind.value = "one-sided"
    assert "one-sided" in readout.value and "4.5" in readout.value
