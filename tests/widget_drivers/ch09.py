"""Chapter 09's widget in the browser: the four switches, side by side."""

from tests.browser_tools import move_slider, output_text, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "09_disabling_gradients.ipynb"


def _saved_line(text):
    return next(line for line in text.splitlines() if line.startswith("bytes saved"))



def modes(page, cell, index):
    before = output_text(cell)
    assert "modes: none (training); batch 8" in before
    assert _saved_line(before).split()[-3:] == ["3,584", "3,584", "same"]
    cell.locator(".minigrad-ch09-no-grad").first.click()
    wait_for_text(page, index, "modes: no_grad; batch 8")
    assert _saved_line(output_text(cell)).split()[-3:] == ["0", "0", "same"]
    cell.locator(".minigrad-ch09-no-grad").first.click()  # off again, then a bigger batch
    wait_for_text(page, index, "modes: none (training); batch 8")
    plot = cell.locator(".minigrad-ch09-plot").first
    picture = plot.get_attribute("src")
    move_slider(page, cell, "minigrad-ch09-batch")
    wait_for_text(page, index, "modes: none (training); batch 16")
    assert _saved_line(output_text(cell)).split()[-3:] == ["7,168", "7,168", "same"]
    page.wait_for_function("([el, old]) => el.getAttribute('src') !== old",
                           arg=[plot.element_handle(), picture], timeout=30_000)


WIDGETS = [Widget("modes", "modes_widget(ModesComparison", modes)]
