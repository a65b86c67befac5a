"""Chapter 14's widget in the browser: "step" fills a column (forward) and a row (reverse);
the n_in slider changes the Jacobian's shape; "measure" times both modes; two more steps
finish reverse mode on a 2 x 4 Jacobian, not forward mode."""

from tests.browser_tools import move_slider, output_text, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "14_forward_mode.ipynb"



def modes(page, cell, index):
    before = output_text(cell)
    assert "3 inputs, 2 outputs; the Jacobian is 2 x 3" in before
    assert "0 of 3 passes" in before and "0 of 2 passes" in before
    cell.locator(".minigrad-ch14-step").first.click()
    wait_for_text(page, index, "1 of 3 passes")
    stepped = output_text(cell)
    assert "1 of 3 passes" in stepped and "1 of 2 passes" in stepped
    assert "every entry filled matches torch.func.jacrev" in stepped
    move_slider(page, cell, "minigrad-ch14-n-in")
    wait_for_text(page, index, "0 of 4 passes")
    resized = output_text(cell)
    assert "4 inputs, 2 outputs; the Jacobian is 2 x 4" in resized and "0 of 4 passes" in resized
    cell.locator(".minigrad-ch14-measure").first.click()
    wait_for_text(page, index, "measured (best of 5): jacfwd")
    assert "4 inputs, 2 outputs" in output_text(cell)
    for k in (1, 2):  # reverse mode (2 outputs) is done after two passes, forward is not
        cell.locator(".minigrad-ch14-step").first.click()
        wait_for_text(page, index, f"{k} of 4 passes")
    assert "2 of 2 passes" in output_text(cell)
    page.wait_for_function(  # the kernel done, for the screenshot
        "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
        "?.getAttribute('data-status') === 'idle'", timeout=30_000)


WIDGETS = [Widget("modes", "jacobian_modes_widget(n_in=3, n_out=2)", modes)]
