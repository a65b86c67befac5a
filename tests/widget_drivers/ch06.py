"""Chapter 06's widget in the browser: g's sliders move x.grad; "next row" fills the Jacobian."""

from tests.browser_tools import move_slider, output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "06_vector_outputs.ipynb"


def vjp(page, cell, index):
    before = output_text(cell)
    assert "g      = (+1.0000, +1.0000, +1.0000, +1.0000)" in before
    assert "0 of 4" in before and "matches" in before
    move_slider(page, cell, "minigrad-ch06-g0")
    wait_for_change(page, index, before)
    wait_for_text(page, index, "g      = (+1.5000, +1.0000, +1.0000, +1.0000)", "matches")
    moved = output_text(cell)
    assert "g      = (+1.5000, +1.0000, +1.0000, +1.0000)" in moved and "matches" in moved
    cell.locator(".minigrad-ch06-next-row").first.click()
    wait_for_change(page, index, moved)
    wait_for_text(page, index, "backward passes: 1 of 4", "rows so far match torch's jacobian")
    after = output_text(cell)
    assert "backward passes: 1 of 4" in after and "rows so far match torch's jacobian" in after


WIDGETS = [Widget("vjp", "vjp_widget(A, x0)", vjp)]
