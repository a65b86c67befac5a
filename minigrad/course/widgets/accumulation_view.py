r"""Two SGD runs in the weight space of a two-parameter model (chapter 08).

:class:`ZeroGradRuns` trains ``nn.Linear(1, 1)`` (the two parameters ``w`` and ``b``) on
seeded data with full-batch SGD on the mean squared error, twice: with ``zero_grad()``
before each ``backward()``, and without it, so that each step uses the sum of every
gradient so far. Both runs are made in minigrad and with torch's own ``nn.Linear`` and
``optim.SGD``; ``path[clear]`` and ``torch_path[clear]`` hold ``(w, b)`` after each step.
The loss over the ``(w, b)`` plane is a quadratic,

.. math:: L(w, b) = \frac{1}{N} \sum_k (w x_k + b - y_k)^2,

which :meth:`ZeroGradRuns.loss_grid` evaluates for the contour lines.
:func:`zero_grad_widget` draws the contours, both paths up to a step chosen with a
slider, and a readout (ipywidgets + matplotlib, imported when called).
"""

import numpy as np

from minigrad.course.widgets import controls as ui

__all__ = ["ZeroGradRuns", "zero_grad_widget"]


def _run(lib, data, start, steps, lr, clear):
    """(w, b) after each of ``steps`` SGD steps, in minigrad or torch; row 0 is the start."""
    model = lib.nn.Linear(1, 1, dtype=lib.float64)
    model.load_state_dict({"weight": lib.tensor([[start[0]]], dtype=lib.float64),
                           "bias": lib.tensor([start[1]], dtype=lib.float64)})
    X, y = lib.tensor(data[0]), lib.tensor(data[1])
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)
    path = [start]
    for _ in range(steps):
        if clear:
            optimizer.zero_grad()
        ((model(X) - y) ** 2).mean().backward()
        optimizer.step()
        path.append((model.weight.item(), model.bias.item()))
    return np.array(path)


class ZeroGradRuns:
    """SGD with and without ``zero_grad()`` on ``y = w x + b``, minigrad and torch."""

    def __init__(self, steps=40, lr=0.1, start=(-2.0, 2.5), seed=0):
        import torch

        import minigrad

        rng = np.random.default_rng(seed)
        x = rng.uniform(-2, 2, (32, 1))
        y = 1.5 * x - 0.5 + 0.2 * rng.standard_normal((32, 1))
        self.data, self.steps, self.lr, self.start = (x, y), steps, lr, tuple(start)
        self.path = {c: _run(minigrad, self.data, self.start, steps, lr, c)
                     for c in (True, False)}
        self.torch_path = {c: _run(torch, self.data, self.start, steps, lr, c)
                           for c in (True, False)}

    def loss(self, w, b):
        """The mean squared error at (w, b), by the formula (numpy)."""
        x, y = self.data
        return float(((w * x + b - y) ** 2).mean())

    def loss_grid(self, ws, bs):
        """The loss on the grid ``ws x bs``: rows follow ``bs``, columns ``ws``."""
        x, y = (a.ravel() for a in self.data)
        W, B = np.meshgrid(ws, bs)
        residual = W[..., None] * x + B[..., None] - y
        return (residual ** 2).mean(-1)

    def text(self, step):
        lines = [f"after {step} of {self.steps} steps (lr = {self.lr}):"]
        for clear, label in [(True, "with zero_grad()   "), (False, "without zero_grad()")]:
            w, b = self.path[clear][step]
            tw, tb = self.torch_path[clear][step]
            same = np.allclose([w, b], [tw, tb], rtol=1e-9, atol=1e-12)
            lines.append(f"{label} w = {w:+.4f}, b = {b:+.4f}, loss {self.loss(w, b):.4f}   "
                         + ("matches torch" if same else "DIFFERS from torch"))
        return "\n".join(lines)


def _draw(runs, step):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 4.0))
    ax = fig.subplots()
    every = np.concatenate([runs.path[True], runs.path[False]])
    (w0, b0), (w1, b1) = every.min(0) - 0.5, every.max(0) + 0.5
    ws, bs = np.linspace(w0, w1, 80), np.linspace(b0, b1, 80)
    ax.contour(ws, bs, runs.loss_grid(ws, bs), levels=np.geomspace(0.05, 40, 14),
               colors="0.75", linewidths=0.8)
    for clear, color, label in [(True, "tab:blue", "with zero_grad()"),
                                (False, "tab:red", "without zero_grad()")]:
        path = runs.path[clear][: step + 1]
        ax.plot(path[:, 0], path[:, 1], ".-", color=color, label=label, ms=4)
        ax.plot(*runs.torch_path[clear][: step + 1].T, "k:", lw=1)
        ax.plot(*path[-1], "o", color=color, ms=8)
    ax.plot([], [], "k:", lw=1, label="torch (dotted)")
    ax.plot(*runs.start, "ks", ms=6)
    ax.set(xlabel="w", ylabel="b", xlim=(w0, w1), ylim=(b0, b1),
           title=f"loss contours over (w, b), step {step}")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def zero_grad_widget(steps=40, start_step=5, dpi=72):
    """A steps slider, the contour picture and the readout; returns a VBox.

    CSS classes: ``minigrad-ch08-steps`` (the slider), ``minigrad-ch08-contours`` (the
    picture), ``minigrad-ch08-readout`` (the readout).
    """
    runs = ZeroGradRuns(steps=steps)
    slider = ui.slider("minigrad-ch08-steps", "steps", start_step, 0, steps, kind="int")
    return ui.control_panel(slider, lambda step: _draw(runs, step), runs.text,
                            "minigrad-ch08-contours", "minigrad-ch08-readout", dpi, runs=runs)
