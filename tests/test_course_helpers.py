"""The course helpers that notebooks use: show_source and the tangent explorer."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from minigrad import Value, show_source  # noqa: E402
from minigrad.explorers import slopes_at, tangent_explorer, torch_slope  # noqa: E402


def test_show_source_comes_from_the_package_and_names_the_file():
    shown = show_source(Value.__pow__)
    assert repr(shown).startswith("# minigrad/value.py: Value.__pow__")
    assert "def __pow__" in shown.text
    assert "def __pow__" in shown._repr_html_() or "__pow__" in shown._repr_html_()


@pytest.mark.parametrize("x", [-2.0, 0.0, 3.0])
def test_slopes_agree_with_torch_and_calculus(x):
    slopes = slopes_at(lambda v: v ** 2, x)
    assert slopes["minigrad"] == pytest.approx(2 * x, abs=1e-12)
    assert slopes["torch"] == pytest.approx(2 * x, abs=1e-12)
    assert slopes["numeric"] == pytest.approx(2 * x, abs=1e-5)


def test_torch_slope_of_a_cubic():
    assert torch_slope(lambda v: v ** 3, 2.0) == pytest.approx(12.0)


def test_explorer_readout_follows_the_slider():
    box = tangent_explorer(lambda v: v ** 2, x=3.0)
    slider, readout = box.children[0], box.children[1]
    assert "x = 3.00" in readout.value and "6.0000" in readout.value
    slider.value = -1.0
    assert "x = -1.00" in readout.value and "-2.0000" in readout.value
    assert "matches torch" in readout.value
