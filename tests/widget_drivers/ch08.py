"""Chapter 08's widget in the browser: SGD with and without zero_grad() in weight space."""

from tests.browser_tools import move_slider, output_text, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "08_accumulation.ipynb"


def contours(page, cell, index):
    before = output_text(cell)
    assert "after 5 of 40 steps" in before and before.count("matches torch") == 2
    move_slider(page, cell, "minigrad-ch08-steps")
    wait_for_text(page, index, "after 6 of 40 steps")
    after = output_text(cell)
    assert after.count("matches torch") == 2, after
    assert "DIFFERS" not in after


WIDGETS = [Widget("zero_grad", "zero_grad_widget(steps=40", contours)]
