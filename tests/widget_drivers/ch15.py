"""Chapter 15's widget in the browser: Newton against gradient descent, Newton damped."""

from tests.browser_tools import move_slider, output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "15_gradients_of_gradients.ipynb"


def newton(page, cell, index):
    before = output_text(cell)
    assert "Newton (step 1.00 H^-1 g): 6 steps to within 1e-06 of (1, 1)" in before
    assert "gradient descent (lr 0.0010): not within 1e-06 of (1, 1) after 200 steps" in before
    assert "minigrad's points: same as torch's" in before
    move_slider(page, cell, "minigrad-ch15-damping", presses=5, key="ArrowLeft")  # 1.0 -> 0.5
    wait_for_change(page, index, before)
    wait_for_text(page, index,
                  "Newton (step 0.50 H^-1 g): not within 1e-06 of (1, 1) after 30 steps",
                  "minigrad's points: same as torch's", timeout=60_000)
    after = output_text(cell)
    assert "Newton (step 0.50 H^-1 g): not within 1e-06 of (1, 1) after 30 steps" in after
    assert "gradient descent (lr 0.0010): not within" in after
    assert "minigrad's points: same as torch's" in after


WIDGETS = [Widget("newton", "newton_box = newton_widget(", newton)]
