"""Chapter 07's widgets in the browser: the layer's numbers, and mean vs sum."""

from tests.browser_tools import move_slider, output_text, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "07_linear_layers_by_hand.ipynb"


def layer(page, cell, index):
    before = output_text(cell)
    assert "w_21 touches f_1 in every example" in before and "(matches)" in before
    cell.locator(".minigrad-ch07-pick select").select_option("b_2")
    wait_for_text(page, index, "b_2 touches")
    after = output_text(cell)
    assert "b_2 touches f_2 in every example" in after
    assert "dL/db_2 = sum over examples k of g_kj" in after and "(matches)" in after


def reduction(page, cell, index):
    before = output_text(cell)
    assert "N = 8:" in before and "= N x m = 8 x 3" in before and "(matches torch)" in before
    move_slider(page, cell, "minigrad-ch07-batch")
    wait_for_text(page, index, "N = 9:")
    after = output_text(cell)
    assert "sum / mean = 27.0 = N x m = 9 x 3" in after, after
    assert "(matches torch)" in after


WIDGETS = [Widget("layer", "layer_widget(X, w1, b1, G", layer),
           Widget("reduction", "reduction_widget(max_batch=32", reduction)]
