"""Chapter 08's widget in the browser: SGD with and without zero_grad() in weight space."""

from tests.browser_tools import move_slider, output_text
from tests.widget_drivers import Widget


def wait_for_text(page, cell_index, text, timeout=30_000):
    """Wait until cell ``cell_index``'s output shows ``text`` (a slider's own label changes
    at once, before the kernel redraws the readout, so any change is not enough)."""
    page.wait_for_function(
        "([i, text]) => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[i];"
        " const o = c && c.querySelector('.jp-Cell-outputArea');"
        " return o && o.innerText.includes(text); }", arg=[cell_index, text], timeout=timeout)

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
