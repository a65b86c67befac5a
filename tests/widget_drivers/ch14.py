"""Chapter 14's widget in the browser: "step" fills a column (forward) and a row (reverse);
the n_in slider changes the Jacobian's shape; "measure" times both modes."""

from tests.browser_tools import move_slider, output_text, wait_for_change
from tests.widget_drivers import Widget

NOTEBOOK = "14_forward_mode.ipynb"


def modes(page, cell, index):
    before = output_text(cell)
    assert "3 inputs, 2 outputs; the Jacobian is 2 x 3" in before
    assert "0 of 3 passes" in before and "0 of 2 passes" in before
    cell.locator(".minigrad-ch14-step").first.click()
    wait_for_change(page, index, before)
    stepped = output_text(cell)
    assert "1 of 3 passes" in stepped and "1 of 2 passes" in stepped
    assert "every entry filled matches torch.func.jacrev" in stepped
    move_slider(page, cell, "minigrad-ch14-n-in")
    wait_for_change(page, index, stepped)
    resized = output_text(cell)
    assert "4 inputs, 2 outputs; the Jacobian is 2 x 4" in resized and "0 of 4 passes" in resized
    cell.locator(".minigrad-ch14-measure").first.click()
    wait_for_change(page, index, resized)
    assert "measured (best of 5): jacfwd" in output_text(cell)


WIDGETS = [Widget("modes", "jacobian_modes_widget(n_in=3, n_out=2)", modes)]
