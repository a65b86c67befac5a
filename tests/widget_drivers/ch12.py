"""Chapter 12's widget in the browser: the order of a training step, backward twice."""

from tests.browser_tools import output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "12_common_problems.ipynb"


def step_order(page, cell, index):
    before = output_text(cell)
    assert "order: zero_grad, forward, backward, step" in before
    assert "trains" in before and "the same losses" in before
    menu = cell.locator(".minigrad-ch12-call-4 select").first
    menu.scroll_into_view_if_needed()
    menu.select_option("backward")                      # step -> a second backward
    wait_for_change(page, index, before)
    wait_for_text(page, index,
                  "order: zero_grad, forward, backward, backward",
                  "Trying to backward through the graph a second time", timeout=30_000)
    after = output_text(cell)
    assert "order: zero_grad, forward, backward, backward" in after
    assert after.count("raises RuntimeError at iteration 1, backward()") == 2  # both libraries
    assert "Trying to backward through the graph a second time" in after


WIDGETS = [Widget("step_order", "order_box = step_order_widget(", step_order)]
