"""Chapter 10's widget in the browser: the valley, lr pushed past the stability limit."""

from tests.browser_tools import move_slider, output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "10_optimizers_and_training.ipynb"


def valley(page, cell, index):
    before = output_text(cell)
    assert "lr = 0.09, momentum = 0.00: stable" in before
    assert "same as torch's optim.SGD" in before and "= 0.100" in before
    move_slider(page, cell, "minigrad-ch10-lr", presses=2)      # 0.09 -> 0.11 > 2 / 20
    wait_for_change(page, index, before)
    wait_for_text(page, index,
                  "lr = 0.11, momentum = 0.00: diverges",
                  "effective step lr / (1 - momentum) = 0.110",
                  "same as torch's optim.SGD", timeout=30_000)
    after = output_text(cell)
    assert "lr = 0.11, momentum = 0.00: diverges" in after
    assert "effective step lr / (1 - momentum) = 0.110" in after
    assert "same as torch's optim.SGD" in after


WIDGETS = [Widget("valley", "valley_box = valley_widget(", valley)]
