r"""One Jacobian, two ways: column by column in forward mode, row by row in reverse mode
(chapter 14).

For :math:`y = \tanh(W x)`, :math:`W` a seeded random ``(n_out, n_in)`` matrix:

* :class:`JacobianModes`: ``step()`` runs one more pass of each mode that is not done:
  forward mode one JVP with the one-hot :math:`e_j` (``minigrad.func.jvp``), which gives
  column :math:`j`; reverse mode one VJP with :math:`e_i` (``minigrad.autograd.grad`` on one
  retained graph), which gives row :math:`i`. Forward mode needs ``n_in`` passes, reverse
  mode ``n_out`` (after its one recorded forward pass). Every entry filled is compared with
  ``torch.func.jacrev``. ``measure()`` times ``minigrad.func.jacfwd`` and ``jacrev`` on the
  whole Jacobian, best of ``repeats`` runs after one untimed run.

:func:`draw_modes` draws the two Jacobians as filled so far; :func:`jacobian_modes_widget`
adds two sliders (sizes), "step", "reset" and "measure".
"""

import time

import numpy as np

import minigrad
from minigrad import func
from minigrad.course.widgets import controls as ui

__all__ = ["JacobianModes", "best_time", "draw_modes", "jacobian_modes_widget"]


def best_time(fn, repeats=5):
    """The best of ``repeats`` timed calls of ``fn()``, after one untimed call."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


class JacobianModes:
    """The Jacobian of ``tanh(W x)`` filled by columns (forward) and by rows (reverse)."""

    def __init__(self, n_in=3, n_out=2, seed=14):
        self.seed = seed
        self.set_sizes(n_in, n_out)

    def set_sizes(self, n_in, n_out):
        """New sizes: a new W and x0 (from the seed and the sizes), and nothing filled."""
        import torch

        self.n_in, self.n_out = int(n_in), int(n_out)
        rng = np.random.default_rng([self.seed, self.n_in, self.n_out])
        self.W = rng.standard_normal((self.n_out, self.n_in)) / np.sqrt(self.n_in)
        self.x0 = rng.standard_normal(self.n_in)
        self.reference = torch.func.jacrev(
            lambda t: torch.tanh(torch.tensor(self.W) @ t))(torch.tensor(self.x0)).numpy()
        self.times = None
        self.reset()

    def f(self, x):
        return (minigrad.tensor(self.W) @ x).tanh()

    def reset(self):
        self.columns, self.rows = [], []
        self._x = minigrad.tensor(self.x0.copy(), requires_grad=True)
        self._y = None  # reverse mode records its forward pass at its first step

    @property
    def done(self):
        return len(self.columns) == self.n_in and len(self.rows) == self.n_out

    def step(self):
        """One more pass of each mode not yet done: a column (JVP) and a row (VJP)."""
        if self.done:
            raise IndexError("the Jacobian is filled both ways: press reset")
        if len(self.columns) < self.n_in:
            e_j = np.zeros(self.n_in)
            e_j[len(self.columns)] = 1.0
            _, column = func.jvp(self.f, (minigrad.tensor(self.x0),), (minigrad.tensor(e_j),))
            self.columns.append(column.data.copy())
        if len(self.rows) < self.n_out:
            if self._y is None:
                self._y = self.f(self._x)
            e_i = np.zeros(self.n_out)
            e_i[len(self.rows)] = 1.0
            (row,) = minigrad.autograd.grad(self._y, self._x, minigrad.tensor(e_i),
                                            retain_graph=len(self.rows) < self.n_out - 1)
            self.rows.append(row.data.copy())

    def filled(self, mode):
        """The Jacobian as filled so far by ``mode`` ("forward" or "reverse"), nan elsewhere."""
        J = np.full((self.n_out, self.n_in), np.nan)
        if mode == "forward":
            for j, column in enumerate(self.columns):
                J[:, j] = column
        else:
            for i, row in enumerate(self.rows):
                J[i, :] = row
        return J

    @property
    def matches(self):
        both = np.concatenate([self.filled("forward").ravel(), self.filled("reverse").ravel()])
        reference = np.concatenate([self.reference.ravel()] * 2)
        seen = ~np.isnan(both)
        return bool(np.allclose(both[seen], reference[seen], rtol=1e-12, atol=1e-15))

    def measure(self, repeats=5):
        """Best-of-``repeats`` seconds of the whole Jacobian: (jacfwd, jacrev)."""
        x = minigrad.tensor(self.x0)
        self.times = (best_time(lambda: func.jacfwd(self.f)(x), repeats),
                      best_time(lambda: func.jacrev(self.f)(x), repeats))
        return self.times

    def text(self):
        def matrix(J):
            return ["  " + " ".join("    .   " if np.isnan(v) else f"{v:+.5f}" for v in row)
                    for row in J]

        lines = [f"y = tanh(W x): {self.n_in} inputs, {self.n_out} outputs; "
                 f"the Jacobian is {self.n_out} x {self.n_in}",
                 f"forward mode, one column per JVP: {len(self.columns)} of {self.n_in} "
                 "passes", *matrix(self.filled("forward")),
                 f"reverse mode, one row per VJP:    {len(self.rows)} of {self.n_out} "
                 "passes", *matrix(self.filled("reverse"))]
        if self.columns or self.rows:
            lines.append("every entry filled matches torch.func.jacrev" if self.matches
                         else "an entry DIFFERS from torch.func.jacrev")
        else:
            lines.append("press 'step': one pass of each mode")
        if self.times is not None:
            fwd, rev = self.times
            lines.append(f"measured (best of 5): jacfwd {fwd * 1e3:.2f} ms, jacrev "
                         f"{rev * 1e3:.2f} ms, ratio {fwd / rev:.2f}")
        return "\n".join(lines)


def draw_modes(modes):
    """The two Jacobians as filled so far, side by side: a matplotlib figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(7.2, 2.6))
    for ax, mode, done, total, what in [
            (axes[0], "forward", len(modes.columns), modes.n_in, "columns"),
            (axes[1], "reverse", len(modes.rows), modes.n_out, "rows")]:
        J = np.ma.masked_invalid(modes.filled(mode))
        ax.set_facecolor("#e8e8e8")  # not filled yet
        ax.imshow(J, cmap="RdBu_r", vmin=-1.5, vmax=1.5)
        ax.set_title(f"{mode} mode: {done} of {total} {what}", fontsize=9)
        ax.set_xticks(range(modes.n_in))
        ax.set_yticks(range(modes.n_out))
        ax.set_xlabel("input j", fontsize=8)
        ax.set_ylabel("output i", fontsize=8)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return fig


def jacobian_modes_widget(n_in=3, n_out=2, seed=14):
    """Sliders for the sizes, "step", "reset" and "measure" buttons, the two Jacobians
    drawn and printed.

    CSS classes: ``minigrad-ch14-n-in``, ``minigrad-ch14-n-out``, ``minigrad-ch14-step``,
    ``minigrad-ch14-reset``, ``minigrad-ch14-measure``, ``minigrad-ch14-readout``,
    ``minigrad-ch14-plot``. The VBox's ``modes`` is the model.
    """
    modes = JacobianModes(n_in, n_out, seed)
    sizes = [ui.slider(f"minigrad-ch14-{name.replace('_', '-')}", name, value, 1, 8,
                       kind="int", continuous_update=True)
             for name, value in (("n_in", n_in), ("n_out", n_out))]
    step, reset, measure = (ui.button(name, f"minigrad-ch14-{name}")
                            for name in ("step", "reset", "measure"))
    readout, plot = ui.readout("minigrad-ch14-readout"), ui.figure_output("minigrad-ch14-plot")

    def show():  # the figure first: once the text has changed, the figure has too
        ui.show_figure(plot, draw_modes(modes))
        readout.value = ui.pre(modes.text())

    def resize():
        modes.set_sizes(sizes[0].value, sizes[1].value)
        refresh()

    refresh = ui.wire_step_controls(modes, show, step, reset)
    ui.redraw_on_change(sizes, resize, draw=False)
    ui.on_click(measure, modes.measure, refresh)
    return ui.vbox(sizes, [step, reset, measure], plot, readout, modes=modes)
