r"""Predict the next gradient, then watch backward make it (chapter 04).

:class:`GradQuiz` is the logic: on a :class:`~minigrad.course.widgets.stepper.BackwardStepper`,
it asks for the value of the next ``parent.grad += local * upstream``, says whether the
guess was right, then makes that update. :func:`backward_explorer` puts it in a widget
with a choice of graphs; unticked, the widget is a plain stepper.
"""

import math

from minigrad.course.graph import draw_graph, node_names
from minigrad.course.widgets import controls as ui
from minigrad.course.widgets.stepper import BackwardStepper, _num, _status, copy_graph, step_text
from minigrad.value import backward_order

__all__ = ["GradQuiz", "backward_explorer"]


class GradQuiz:
    """Questions on a stepper's updates, one per ``parent.grad += local * upstream``.

    A guess is right when it is within ``rtol`` (relative) or ``atol`` of the new grad:
    the readouts show four significant digits. ``right`` and ``asked`` keep the score.
    """

    def __init__(self, stepper, names, rtol=1e-3, atol=1e-3):
        self.stepper, self.names = stepper, names
        self.rtol, self.atol = rtol, atol
        self.right = self.asked = 0

    def _next(self):
        s = self.stepper
        return None if s.done else (s.steps[s.position], s.partial)

    def question(self):
        """The next question as lines of text, or None when the pass is complete."""
        nxt = self._next()
        if nxt is None:
            return None
        step, k = nxt
        update = step.updates[k]
        parent = self.names[id(update.parent)]
        return [step_text(step, self.names)[0],
                f"{parent}.grad is {_num(update.before)}. What is it after {parent} gets "
                f"its share (local × upstream)?"]

    def answer(self, guess):
        """Judge ``guess`` against the next update, make the update; return (right, text)."""
        nxt = self._next()
        if nxt is None:
            raise StopIteration("the backward pass is complete; reset to start again")
        step, k = nxt
        update = step.updates[k]
        ok = math.isclose(guess, update.after, rel_tol=self.rtol, abs_tol=self.atol)
        self.asked += 1
        self.right += ok
        self.stepper.step_update()
        shown = step_text(step, self.names)[1 + k]
        verdict = "right" if ok else f"not quite (you said {_num(guess)})"
        return ok, f"{verdict}: {shown}"

    def reset(self):
        self.stepper.reset()
        self.right = self.asked = 0


def backward_explorer(graphs, dpi=80):
    """A stepper over a choice of graphs (``{name: root}``), with a "predict" mode.

    Unticked, **Step** sends the gradient one node further as in :func:`stepper_widget`.
    Ticked, the learner types the next grad and presses **Check**: the widget says right
    or wrong, then makes that update. Each graph is stepped on its own copy, with every
    grad at 0 to start (leaves too, even if the graph was backpropagated). CSS classes
    ``minigrad-ch04-`` + ``choice``, ``step``, ``reset``, ``predict``, ``guess``,
    ``check``, ``graph``, ``readout``. The VBox's ``state`` dict holds the stepper
    and the quiz of the graph shown.
    """
    import ipywidgets as widgets

    copies = {name: copy_graph(root) for name, root in graphs.items()}
    for root in copies.values():  # every pass starts from zero, whatever the graph held
        for node in backward_order(root):
            node.grad = 0.0
    css = "minigrad-ch04-"
    choice = widgets.Dropdown(options=list(copies), description="graph").add_class(css + "choice")
    step_button, reset_button = ui.button("Step", css + "step"), ui.button("Reset", css + "reset")
    predict = widgets.Checkbox(value=False, description="predict the next grad")
    guess = widgets.FloatText(value=0.0, description="your grad", continuous_update=True)
    predict.add_class(css + "predict")
    guess.add_class(css + "guess")
    check_button = ui.button("Check", css + "check")
    image, text = ui.png_image(css + "graph"), ui.readout(css + "readout")
    state = {"verdict": None}
    steppers = {name: BackwardStepper(root) for name, root in copies.items()}

    def load(name):  # a graph chosen again starts over
        root, stepper = copies[name], steppers[name]
        stepper.reset()
        state.update(root=root, stepper=stepper, names=node_names(root), verdict=None)
        state["quiz"] = GradQuiz(stepper, state["names"])

    def refresh():
        stepper, quiz = state["stepper"], state["quiz"]
        current = stepper.current if not stepper.partial else None
        fig = draw_graph(state["root"], highlight=current.node if current else None)
        ui.show_figure(image, fig, dpi)
        if predict.value:
            lines = [state["verdict"]] if state["verdict"] else []
            question = quiz.question()
            lines += question or ["done: every grad is what backward() gives"]
            lines.append(f"right so far: {quiz.right} of {quiz.asked}")
        else:
            lines = _status(stepper, state["names"])
        text.value = ui.pre(lines)
        step_button.disabled = stepper.done or predict.value
        check_button.disabled = stepper.done or not predict.value
        guess.disabled = not predict.value

    def choose():
        load(choice.value)
        refresh()

    def step_once():
        if not state["stepper"].done:
            state["stepper"].step()

    def reset():
        state["quiz"].reset()
        state["verdict"] = None

    def predict_mode():
        state["verdict"] = None
        refresh()

    def check():
        if not state["stepper"].done:
            _, state["verdict"] = state["quiz"].answer(float(guess.value))

    ui.redraw_on_change([choice], choose, draw=False)
    ui.redraw_on_change([predict], predict_mode, draw=False)
    ui.on_click(step_button, step_once, refresh)
    ui.on_click(reset_button, reset, refresh)
    ui.on_click(check_button, check, refresh)
    choose()
    return ui.vbox([choice, step_button, reset_button], [predict, guess, check_button], image,
                   text, state=state)
