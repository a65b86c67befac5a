"""Chapter 16's widget in the browser: the "every k" slider turns checkpointing on (less
kept, blocks recomputed); the depth slider adds blocks; "measure" times both."""

from tests.browser_tools import move_slider, output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "16_extending_autograd.ipynb"



def memory(page, cell, index):
    before = output_text(cell)
    assert "6 blocks of tanh(tanh(h W1) W2)" in before and "no checkpointing" in before
    assert "kept for backward (minigrad)    52.0 KiB" in before
    assert "block forwards run again in backward: 0" in before
    move_slider(page, cell, "minigrad-ch16-every")
    wait_for_text(page, index, "checkpoint every 1 block(s): 6 segment(s)")
    checkpointed = output_text(cell)
    assert "kept for backward (minigrad)    24.0 KiB" in checkpointed
    assert "kept for backward (torch)       24.0 KiB in 6 saved tensors" in checkpointed
    assert "block forwards run again in backward: 6" in checkpointed
    assert "weight gradients match torch's" in checkpointed
    move_slider(page, cell, "minigrad-ch16-depth")
    wait_for_text(page, index, "block forwards run again in backward: 7")
    deeper = output_text(cell)
    assert "7 blocks" in deeper and "kept for backward (torch)       28.0 KiB" in deeper
    cell.locator(".minigrad-ch16-measure").first.click()
    wait_for_change(page, index, deeper)
    wait_for_text(page, index, "measured (best of 5): forward + backward")


WIDGETS = [Widget("memory", "checkpoint_memory_widget(depth=6, every=0)", memory)]
