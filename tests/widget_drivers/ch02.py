"""Chapter 02's widgets in the browser: partial derivatives as slopes of slices (the x
slider), and a step's actual change against g . s (the theta slider, then r)."""

from tests.browser_tools import move_slider, output_text, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "02_gradients.ipynb"



def slices(page, cell, index):
    before = output_text(cell)
    assert "dL/dx = 4.0000" in before and "dL/dy = 3.0000" in before
    assert "matches torch" in before
    move_slider(page, cell, "minigrad-ch02-x")  # x: 2 -> 2.5
    wait_for_text(page, index, "dL/dx = 5.0000")
    after = output_text(cell)
    assert "(x, y) = (2.50, 4.00)" in after and "dL/dy = 3.0000" in after
    assert "matches torch" in after


def step(page, cell, index):
    before = output_text(cell)
    assert "gap 6.4e-05 = 0.64 r^2" in before and "theta = 0 deg" in before
    move_slider(page, cell, "minigrad-ch02-theta", presses=6)  # 0 -> 90 degrees
    wait_for_text(page, index, "theta = 90 deg")
    after = output_text(cell)
    assert "g . s = 0," in after and "= 0.36 r^2" in after
    move_slider(page, cell, "minigrad-ch02-r", presses=4)  # r: 0.01 -> 1
    wait_for_text(page, index, "r = 1,")
    after = output_text(cell)
    assert "gap 0.36 = 0.36 r^2" in after and "theta = -9 deg" in after


WIDGETS = [Widget("slices", "slices_widget(L", slices),
           Widget("step", "step_widget(L", step)]
