"""Chapter 01's widgets in the browser."""

from tests.browser_tools import move_slider, output_text, wait_for_change
from tests.widget_drivers import Widget

NOTEBOOK = "01_derivatives.ipynb"


def tangent(page, cell, index):
    before = output_text(cell)
    assert "x = 3.00" in before and "matches torch" in before
    move_slider(page, cell, "minigrad-x-slider")
    wait_for_change(page, index, before)
    after = output_text(cell)
    assert "x = 3.25" in after and "minigrad slope 6.5000" in after and "matches torch" in after


WIDGETS = [Widget("tangent", "tangent_explorer(f", tangent)]
