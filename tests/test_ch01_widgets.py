"""Chapter 01's widgets: the secant slope as h shrinks, and the tangent explorer's choice
of functions. The logic is checked against torch; the widgets are driven without a browser."""

import math

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from minigrad import Value  # noqa: E402
from minigrad.course.widgets.explorers import EXAMPLES, cubic, slopes_at, tangent_explorer, tanh  # noqa: E402
from minigrad.course.widgets.secant import SecantSlope, secant_widget  # noqa: E402


def square(v):
    return v ** 2


def test_secant_error_is_h_for_a_parabola_until_rounding():
    s = SecantSlope(square, 3.0)
    t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    (t ** 2).backward()
    assert s.exact == t.grad.item() == 6.0
    for h in [1.0, 0.1, 1e-3]:
        assert s.slope(h) == pytest.approx(6 + h, rel=1e-12)  # exact arithmetic: 6 + h
        assert s.error(h) == pytest.approx(h, rel=1e-9)
    assert 1e-9 <= s.best_h() <= 1e-7
    assert s.error(1e-12) > 100 * s.error(s.best_h())  # rounding: the error grows again


def test_secant_readout_names_the_step_and_previews_chapter_11():
    s = SecantSlope(square, 3.0)
    assert "h = 1e-01" in s.readout(0.1) and "6.100000000" in s.readout(0.1)
    assert "error shrinks" in s.readout(0.1)
    assert "chapter 11" in s.readout(1e-12) and "grow" in s.readout(1e-12)


def test_secant_widget_follows_its_slider():
    box = secant_widget(square, x=3.0)
    slider, readout = box.children[0], box.children[1]
    assert "minigrad-ch01-h-slider" in slider._dom_classes
    assert "h = 1e-01" in readout.value
    slider.value = 1e-12
    assert "h = 1e-12" in readout.value and "chapter 11" in readout.value


@pytest.mark.parametrize("name", list(EXAMPLES))
@pytest.mark.parametrize("x", [-1.5, 0.0, 0.75, 2.0])
def test_examples_work_on_floats_values_and_tensors_with_torch_slopes(name, x):
    fn = EXAMPLES[name]
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    out = fn(t)
    out.backward()
    assert fn(x) == pytest.approx(out.item(), rel=1e-12)
    assert fn(Value(x)).data == pytest.approx(out.item(), rel=1e-12)
    slopes = slopes_at(fn, x)
    assert slopes["minigrad"] == pytest.approx(t.grad.item(), rel=1e-12, abs=1e-15)
    assert slopes["torch"] == t.grad.item()


def test_example_slopes_by_hand():
    assert slopes_at(cubic, 1.0)["minigrad"] == pytest.approx(0.0, abs=1e-12)
    assert slopes_at(tanh, 0.5)["minigrad"] == pytest.approx(1 - math.tanh(0.5) ** 2)


def test_explorer_switches_function():
    box = tangent_explorer(square, x=3.0, label="y = x**2", others=EXAMPLES)
    slider, readout, choice = box.children[:3]
    assert "minigrad-ch01-function" in choice._dom_classes
    assert "minigrad-readout" in readout._dom_classes
    assert "minigrad-x-slider" in slider._dom_classes
    assert "y = x**2" in readout.value and "6.0000" in readout.value
    choice.value = "y = x**3 - 3x"
    assert "y = x**3 - 3x" in readout.value and "24.0000" in readout.value  # 3*9 - 3
    slider.value = 1.0
    assert "0.0000" in readout.value and "matches torch" in readout.value
    choice.value = "y = tanh(x)"
    assert f"{1 - math.tanh(1.0) ** 2:.4f}" in readout.value
