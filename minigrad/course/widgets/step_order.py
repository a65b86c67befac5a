"""The four calls of a training step, in any order, in minigrad and torch (chapter 12).

:func:`run_order` runs a few iterations of a loop whose body is the calls named in
``order`` (``zero_grad``, ``forward``, ``backward``, ``step``, each any number of times),
as a script would run them, on a small regression model in one library: it returns the
loss of the model on the data before the first iteration and after each one, or the
error the loop raised. :class:`StepOrderRun` runs both libraries from the same weights and
compares them: the same losses, or the same exception type with the same key phrase.
:func:`step_order_widget` draws it behind four dropdowns.
"""

from dataclasses import dataclass, field

import numpy as np

from minigrad.course.widgets import controls as ui

__all__ = ["CALLS", "Outcome", "StepOrderRun", "key_phrase", "run_order", "step_order_widget"]

CALLS = ("zero_grad", "forward", "backward", "step")
NONE = "(nothing)"


@dataclass
class Outcome:
    """The losses (before, then after each iteration), or the error and where it came."""

    losses: list = field(default_factory=list)
    error: tuple = None        # (exception type name, message)
    where: tuple = None        # (iteration, call) of the error


def key_phrase(message):
    """A message's key phrase: its first clause (up to the first ':', '.' or '(')."""
    cut = min((i for i in (message.find(": "), message.find(". "), message.find(" (")) if i > 0),
              default=len(message))
    return message[:cut].strip()


def _data():
    rng = np.random.default_rng(12)
    X = rng.standard_normal((16, 3))
    return X, X @ np.array([[1.0], [-2.0], [0.5]]) + 0.1


def _model(lib, hidden):
    import torch

    torch.manual_seed(12)
    layers_t = ([torch.nn.Linear(3, 4, dtype=torch.float64), torch.nn.ReLU(),
                 torch.nn.Linear(4, 1, dtype=torch.float64)] if hidden
                else [torch.nn.Linear(3, 1, dtype=torch.float64)])
    model_t = torch.nn.Sequential(*layers_t)
    if lib is torch:
        return model_t
    layers = ([lib.nn.Linear(3, 4, dtype=lib.float64), lib.nn.ReLU(),
               lib.nn.Linear(4, 1, dtype=lib.float64)] if hidden
              else [lib.nn.Linear(3, 1, dtype=lib.float64)])
    return lib.nn.Sequential(*layers).load_state_dict(model_t.state_dict())


def run_order(lib, order, hidden=False, iterations=10, lr=0.1):
    """Run ``iterations`` of a loop whose body calls ``order`` in ``lib`` (minigrad or torch).

    ``backward`` before any ``forward`` has run finds no loss: a script's NameError.
    """
    X0, y0 = _data()
    X, y = lib.tensor(X0), lib.tensor(y0)
    model = _model(lib, hidden)
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)

    def current_loss():
        with lib.no_grad():
            return ((model(X) - y) ** 2).mean().item()

    outcome = Outcome(losses=[current_loss()])
    loss = None
    for i in range(iterations):
        for call in order:
            try:
                if call == "forward":
                    loss = ((model(X) - y) ** 2).mean()
                elif call == "zero_grad":
                    optimizer.zero_grad()
                elif call == "backward":
                    if loss is None:
                        raise NameError("name 'loss' is not defined")
                    loss.backward()
                elif call == "step":
                    optimizer.step()
            except Exception as error:  # noqa: BLE001 - the error is the outcome
                outcome.error = (type(error).__name__, str(error))
                outcome.where = (i + 1, call)
                return outcome
        outcome.losses.append(current_loss())
    return outcome


class StepOrderRun:
    """One order, run in minigrad and torch from the same weights, and compared."""

    def __init__(self, order, hidden=False, iterations=10):
        import torch

        import minigrad

        self.order = [c for c in order if c != NONE]
        self.hidden = hidden
        self.iterations = iterations
        self.ours = run_order(minigrad, self.order, hidden, iterations)
        self.theirs = run_order(torch, self.order, hidden, iterations)

    @property
    def agrees(self):
        """The same losses (to 1e-10), or the same error type, key phrase and place."""
        a, b = self.ours, self.theirs
        if a.error or b.error:
            return (a.error is not None and b.error is not None and a.error[0] == b.error[0]
                    and key_phrase(a.error[1]) == key_phrase(b.error[1]) and a.where == b.where)
        return len(a.losses) == len(b.losses) and bool(
            np.allclose(a.losses, b.losses, rtol=1e-10, atol=1e-12))

    def verdict(self):
        """What the order does: raises, nothing moves, the loss swings, or trains."""
        if self.theirs.error:
            return "raises"
        losses = np.array(self.theirs.losses)
        if np.all(np.abs(losses - losses[0]) <= 1e-12 * max(1.0, losses[0])):
            return "nothing moves"
        if not np.all(np.isfinite(losses)) or np.any(np.diff(losses) > 1e-12):
            return "the loss swings (it rises again)"
        return "trains"

    def notes(self):
        """What the order does to the gradients, where a loss curve alone does not say."""
        notes = []
        if "zero_grad" not in self.order and "backward" in self.order:
            notes.append("no zero_grad: .grad is the sum of every gradient so far (chapter 08)")
        if not self.theirs.error and len(self.theirs.losses) > 2 and \
                self.theirs.losses[1] == self.theirs.losses[0] != self.theirs.losses[2]:
            notes.append("the first iteration moves nothing: each step uses the gradient of "
                         "the iteration before (one step late)")
        return notes

    def readout(self):
        """Plain text: the order, what it does in both libraries, and whether they agree."""
        layers = "Linear 3-4, ReLU, Linear 4-1" if self.hidden else "Linear 3-1"
        lines = [f"order: {', '.join(self.order) or '(empty)'}   model: {layers}"]
        if self.theirs.error or self.ours.error:
            for name, out in (("torch", self.theirs), ("minigrad", self.ours)):
                if out.error:
                    lines.append(f"{name:8s} raises {out.error[0]} at iteration {out.where[0]}, "
                                 f"{out.where[1]}(): {key_phrase(out.error[1])}")
                else:
                    lines.append(f"{name:8s} raises nothing")
        else:
            losses = ", ".join(f"{v:.4g}" for v in self.ours.losses)
            lines.append(f"{self.verdict()}: loss before and after each of "
                         f"{self.iterations} iterations: {losses}")
            lines.extend(self.notes())
        lines.append("minigrad and torch: " + (
            "the same error (type and key phrase)" if self.agrees and self.theirs.error else
            "the same losses" if self.agrees else "DIFFER"))
        return "\n".join(lines)


def _draw(run, figsize=(6.5, 2.8)):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize)
    ax.plot(run.ours.losses, "o-", label="minigrad")
    ax.plot(run.theirs.losses, "k:", label="torch")
    if run.theirs.error:
        ax.set_title(f"{run.theirs.error[0]} at iteration {run.theirs.where[0]}, "
                     f"{run.theirs.where[1]}()", color="firebrick", fontsize=10)
    else:
        ax.set_title(run.verdict(), fontsize=10)
    ax.set(xlabel="iteration", ylabel="mean squared error")
    ax.legend(fontsize=8)
    fig.subplots_adjust(left=0.12, right=0.97, bottom=0.18, top=0.88)
    return fig


def step_order_widget(order=("zero_grad", "forward", "backward", "step"), hidden=False):
    """Four dropdowns (one call each, or nothing), a hidden-layer box, the curves, a readout.

    CSS classes: ``minigrad-ch12-call-1`` .. ``-4`` (dropdowns), ``minigrad-ch12-hidden``
    (checkbox), ``minigrad-ch12-readout``, ``minigrad-ch12-plot``. The VBox's ``run``
    attribute is the current :class:`StepOrderRun`.
    """
    import ipywidgets as widgets

    order = list(order) + [NONE] * (4 - len(order))
    menus = []
    for i, call in enumerate(order):
        menu = widgets.Dropdown(options=[*CALLS, NONE], value=call, description=f"{i + 1}.",
                                layout=widgets.Layout(width="170px"))
        menu.style.description_width = "20px"
        menus.append(menu.add_class(f"minigrad-ch12-call-{i + 1}"))
    hidden_box = widgets.Checkbox(value=hidden, description="hidden layer", indent=False)
    hidden_box.add_class("minigrad-ch12-hidden")
    readout, plot = ui.readout("minigrad-ch12-readout"), ui.figure_output("minigrad-ch12-plot")
    box = ui.vbox([*menus, hidden_box], readout, plot)

    def redraw():
        box.run = StepOrderRun([m.value for m in menus], hidden_box.value)
        readout.value = ui.pre(box.run.readout())
        ui.show_figure(plot, _draw(box.run))

    ui.redraw_on_change([*menus, hidden_box], redraw)
    return box
