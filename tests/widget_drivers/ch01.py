"""Chapter 01's widgets in the browser: the secant's h slider, and the tangent explorer
(its x slider, then its choice of function)."""

from tests.browser_tools import move_slider, output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "01_derivatives.ipynb"



def secant(page, cell, index):
    before = output_text(cell)
    assert "h = 1e-01" in before and "secant slope = 6.100000000" in before
    assert "error shrinks" in before
    move_slider(page, cell, "minigrad-ch01-h-slider", presses=5, key="ArrowLeft")
    wait_for_text(page, index, "h = 1e-06")
    after = output_text(cell)
    assert "secant slope = 6.000001001" in after and "error = 1.0e-06" in after
    move_slider(page, cell, "minigrad-ch01-h-slider", presses=6, key="ArrowLeft")
    wait_for_text(page, index, "h = 1e-12")
    assert "chapter 11" in output_text(cell)


def tangent(page, cell, index):
    before = output_text(cell)
    assert "x = 3.00" in before and "matches torch" in before
    move_slider(page, cell, "minigrad-x-slider")
    wait_for_change(page, index, before)  # the slider's own label changes first
    wait_for_text(page, index, "minigrad slope 6.5000")  # then the kernel's readout
    after = output_text(cell)
    assert "x = 3.25" in after and "minigrad slope 6.5000" in after and "matches torch" in after
    cell.locator(".minigrad-ch01-function select").select_option("y = x**3 - 3x")
    wait_for_text(page, index, "minigrad slope 28.6875")  # 3 * 3.25**2 - 3
    assert "y = x**3 - 3x" in output_text(cell) and "matches torch" in output_text(cell)


WIDGETS = [Widget("secant", "secant_widget(f", secant),
           Widget("tangent", "tangent_explorer(f", tangent)]
