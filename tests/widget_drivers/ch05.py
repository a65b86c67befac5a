"""Chapter 05's widget in the browser: another input shape, other axes summed."""

from tests.browser_tools import output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "05_tensor_gradients.ipynb"


def broadcast(page, cell, index):
    before = output_text(cell)
    assert "x (3, 1) -> (2, 3, 4)" in before and "sums G over axes (0, 2)" in before
    cell.locator(".minigrad-ch05-in-shape select").first.select_option(label="(1, 4)")
    wait_for_change(page, index, before)
    wait_for_text(page, index, "x (1, 4) -> (2, 3, 4)", "each element of x is used 6 times")
    after = output_text(cell)
    assert "x (1, 4) -> (2, 3, 4)" in after and "sums G over axes (0, 1)" in after
    assert "each element of x is used 6 times" in after and "matches torch" in after


WIDGETS = [Widget("broadcast", "broadcast_widget((3, 1), (2, 3, 4))", broadcast)]
