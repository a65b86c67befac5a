"""Predict the next grad (chapter 04): the quiz on a stepper, then the widget around it,
with the graphs' final grads checked against torch."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from minigrad import Value  # noqa: E402
from minigrad.course.graph import node_names  # noqa: E402
from minigrad.course.widgets.backward_quiz import GradQuiz, backward_explorer  # noqa: E402
from minigrad.course.widgets.stepper import BackwardStepper  # noqa: E402


def square():
    x = Value(3.0, label="x")
    b = x * x
    b.label = "b"
    return b


def chapter_04_example():
    """L = (x + y) ** 2 * w at (2, 3, 3): local and upstream differ at every node."""
    x, y, w = Value(2.0, label="x"), Value(3.0, label="y"), Value(3.0, label="w")
    a = x + y
    a.label = "a"
    z = a ** 2
    z.label = "z"
    loss = z * w
    loss.label = "L"
    return loss


def torch_example():
    x, y, w = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2., 3., 3.))
    ((x + y) ** 2 * w).backward()
    return [x.grad.item(), y.grad.item(), w.grad.item()]


def test_x_times_x_asks_twice_and_adds():
    b = square()
    quiz = GradQuiz(BackwardStepper(b), node_names(b))
    assert quiz.question()[1].startswith("x.grad is 0.")
    ok, text = quiz.answer(3.0)
    assert ok and text == "right: x: local 3 × upstream 1 = 3 → x.grad 0 → 3"
    assert b._prev[0].grad == 3.0 and quiz.stepper.position == 0  # half the step made
    assert quiz.question()[1].startswith("x.grad is 3.")
    ok, text = quiz.answer(3.0)  # the classic slip: the second share replaces the first
    assert not ok and text.startswith("not quite (you said 3): x: local 3")
    assert quiz.question() is None and quiz.stepper.done
    assert (quiz.right, quiz.asked) == (1, 2)
    with pytest.raises(StopIteration):
        quiz.answer(6.0)
    xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    (xt * xt).backward()
    assert b._prev[0].grad == pytest.approx(xt.grad.item(), rel=1e-15)


def test_answering_every_question_right_gives_torchs_grads():
    loss = chapter_04_example()
    stepper = BackwardStepper(loss)
    quiz = GradQuiz(stepper, node_names(loss))
    answers = []
    while quiz.question() is not None:
        update = stepper.steps[stepper.position].updates[stepper.partial]
        answers.append(update.after)
        assert quiz.answer(update.after)[0]
    assert answers == pytest.approx([3.0, 25.0, 30.0, 30.0, 30.0])  # z, w, a, x, y
    leaves = {n.label: n.grad for n in stepper.order if n.is_leaf}
    assert [leaves["x"], leaves["y"], leaves["w"]] == pytest.approx(torch_example(), rel=1e-15)


def test_a_guess_within_the_readouts_digits_is_right():
    loss = chapter_04_example()
    quiz = GradQuiz(BackwardStepper(loss), node_names(loss))
    assert quiz.answer(3.001)[0]  # z.grad 3, to 4 significant digits
    assert quiz.answer(25.01)[0]  # w.grad 25
    assert not quiz.answer(30.1)[0]  # a.grad 30


def test_step_update_then_step_finishes_the_step():
    b = square()
    stepper = BackwardStepper(b)
    stepper.step_update()
    stepper.step()
    assert stepper.done and b._prev[0].grad == 6.0


def test_widget_choice_predict_and_check():
    z3 = Value(3.0, label="x")
    used = square()
    used.backward()  # x.grad is 6 in the learner's graph; the widget's copy starts from 0
    box = backward_explorer({"example": chapter_04_example(), "b = x * x": used})
    row1, row2, image, readout = box.children
    choice, step, reset = row1.children
    predict, guess, check = row2.children
    assert "minigrad-ch04-choice" in choice._dom_classes
    assert "L.grad = 1, the seed. 3 steps to go" in readout.value
    step.click()
    assert "z: local 3 × upstream 1 = 3" in readout.value
    choice.value = "b = x * x"
    assert "b.grad = 1, the seed. 1 step to go" in readout.value
    assert check.disabled
    predict.value = True
    assert step.disabled and not check.disabled and "x.grad is 0." in readout.value
    guess.value = 3.0
    check.click()
    assert "right: x: local 3" in readout.value and "right so far: 1 of 1" in readout.value
    guess.value = 4.0
    check.click()
    assert "not quite (you said 4)" in readout.value and "x.grad 3 → 6" in readout.value
    assert "done" in readout.value and check.disabled
    reset.click()
    assert "x.grad is 0." in readout.value and "right so far: 0 of 0" in readout.value
    choice.value = "example"  # chosen again: starts over
    predict.value = False
    assert "3 steps to go" in readout.value
    assert z3.grad == 0.0 and bytes(image.value).startswith(b"\x89PNG")
    assert used._prev[0].grad == 6.0  # the learner's graph is untouched
