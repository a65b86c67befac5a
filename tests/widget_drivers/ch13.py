"""Chapter 13's widget in the browser: a box that breaks one line of the backward."""

from tests.browser_tools import output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "13_capstone.ipynb"


def breaks(page, cell, index):
    before = output_text(cell)
    assert "first wrong gradient: none" in before and "FAIL" not in before
    box = cell.locator(".minigrad-ch13-break-relu-mask input").first
    box.scroll_into_view_if_needed()
    box.click()
    wait_for_change(page, index, before)
    wait_for_text(page, index, "broken: relu mask; first wrong gradient: l1.g")
    after = output_text(cell)
    assert "broken: relu mask; first wrong gradient: l1.g" in after
    assert after.count("FAIL") == 3


WIDGETS = [Widget("breaks", "break_widget(BackwardCheck(", breaks)]
