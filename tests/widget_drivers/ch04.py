"""Chapter 04's widget in the browser: the backward stepper over a choice of graphs, with
the predict-the-next-grad mode."""

from tests.browser_tools import output_text, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "04_local_and_upstream.ipynb"



def predict(page, cell, index):
    before = output_text(cell)
    assert "z.grad = 1, the seed. 2 steps to go" in before
    cell.locator(".minigrad-ch04-choice select").select_option(label="b = x * x")
    wait_for_text(page, index, "b.grad = 1, the seed")
    chosen = output_text(cell)
    assert "b.grad = 1, the seed. 1 step to go" in chosen
    cell.locator(".minigrad-ch04-predict input[type=checkbox]").check()
    wait_for_text(page, index, "x.grad is 0. What is it")
    asked = output_text(cell)
    assert "x.grad is 0. What is it after x gets its share" in asked
    cell.locator(".minigrad-ch04-guess input").fill("3")
    cell.locator("button.minigrad-ch04-check").click()
    wait_for_text(page, index, "right so far: 1 of 1")
    first = output_text(cell)
    assert "right: x: local 3 × upstream 1 = 3 → x.grad 0 → 3" in first
    assert "x.grad is 3." in first and "right so far: 1 of 1" in first
    cell.locator(".minigrad-ch04-guess input").fill("3")  # as if = replaced the first share
    cell.locator("button.minigrad-ch04-check").click()
    wait_for_text(page, index, "right so far: 1 of 2")
    second = output_text(cell)
    assert "not quite (you said 3): x: local 3 × upstream 1 = 3 → x.grad 3 → 6" in second
    assert "done" in second and "right so far: 1 of 2" in second


WIDGETS = [Widget("predict", "backward_explorer({", predict)]
