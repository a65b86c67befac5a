"""Chapter 09's widget in the browser: the four switches, side by side."""

from tests.browser_tools import move_slider, output_text, wait_for_change
from tests.widget_drivers import Widget

NOTEBOOK = "09_disabling_gradients.ipynb"


def _saved_line(text):
    return next(line for line in text.splitlines() if line.startswith("bytes saved"))


def modes(page, cell, index):
    before = output_text(cell)
    assert "modes: none (training); batch 8" in before
    assert _saved_line(before).split()[-3:] == ["3,584", "3,584", "same"]
    cell.locator(".minigrad-ch09-no-grad").first.click()
    wait_for_change(page, index, before)
    after = output_text(cell)
    assert "modes: no_grad; batch 8" in after
    assert _saved_line(after).split()[-3:] == ["0", "0", "same"]
    cell.locator(".minigrad-ch09-no-grad").first.click()  # off again, then a bigger batch
    page.wait_for_function(
        "([i]) => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
        ".querySelector('.jp-Cell-outputArea').innerText.includes('none (training)')",
        arg=[index], timeout=30_000)
    before = output_text(cell)
    move_slider(page, cell, "minigrad-ch09-batch")
    wait_for_change(page, index, before)
    after = output_text(cell)
    assert "modes: none (training); batch 16" in after
    assert _saved_line(after).split()[-3:] == ["7,168", "7,168", "same"]


WIDGETS = [Widget("modes", "modes_widget(ModesComparison", modes)]
