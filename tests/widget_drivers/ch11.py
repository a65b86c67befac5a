"""Chapter 11's widget in the browser: the eps explorer."""

from tests.browser_tools import move_slider, output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "11_gradient_checking.ipynb"


def eps(page, cell, index):
    before = output_text(cell)
    assert "eps = 1.000e-04, float32, central" in before
    assert "x + eps as stored:  1.50010001659393310546875" in before  # float32's 3.0001
    move_slider(page, cell, "minigrad-ch11-eps")  # a quarter decade up: 10**-3.75
    wait_for_change(page, index, before)  # the slider's own label moves first
    wait_for_text(page, index, "eps = 1.778e-04, float32, central", "torch's autograd: 6.75")
    after = output_text(cell)
    assert "eps = 1.778e-04, float32, central" in after and "torch's autograd: 6.75" in after
    before = after
    cell.locator(".minigrad-ch11-dtype button", has_text="float64").click()
    wait_for_change(page, index, before)
    wait_for_text(page, index, "eps = 1.778e-04, float64, central")
    after = output_text(cell)
    assert "eps = 1.778e-04, float64, central" in after
    assert "x + eps as stored:  1.500177827941003" in after  # float64 keeps many more digits
    before = after
    cell.locator(".minigrad-ch11-kind button", has_text="one-sided").click()
    wait_for_change(page, index, before)
    wait_for_text(page, index, "float64, one-sided", "truncation 8.0e-04")
    after = output_text(cell)
    assert "float64, one-sided" in after and "x       as stored:  1.5\n" in after
    assert "truncation 8.0e-04" in after


WIDGETS = [Widget("eps", "eps_explorer(g,", eps)]
