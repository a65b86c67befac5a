r"""Newton's method against gradient descent on the Rosenbrock function (chapter 15).

.. math:: f(a, b) = (1 - a)^2 + 100\,(b - a^2)^2 ,

with its minimum 0 at :math:`(1, 1)` at the bottom of a long curved valley. Gradient
descent steps :math:`p \leftarrow p - \eta \nabla f`; across the valley the curvature is
near 1000, so :math:`\eta` must stay below about :math:`2 / 1000`, and along it the
steps are then tiny. Newton's method solves :math:`H d = -\nabla f` and steps
:math:`p \leftarrow p + \alpha d` (:math:`\alpha = 1` is the pure method, smaller is
damped): it rescales every direction by its own curvature.

Both methods run in minigrad and in torch: the gradient with
``autograd.grad(create_graph=True)``, the Hessian's rows as gradients of its entries,
gradient descent with ``optim.SGD``. :class:`NewtonRace` is the logic (paths, steps to
converge, the readout); :func:`newton_widget` draws it behind four sliders.
"""

from dataclasses import dataclass, field

import numpy as np

from minigrad.course.widgets import controls as ui

__all__ = ["MINIMUM", "TOL", "rosenbrock", "newton_path", "descent_path", "steps_to_converge",
           "NewtonRace", "newton_widget"]

MINIMUM = (1.0, 1.0)
TOL = 1e-6  # converged: within this distance of the minimum


def rosenbrock(p):
    """(1 - a)**2 + 100 (b - a**2)**2 of a tensor p = (a, b), in either library."""
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


def _gradient_and_hessian(lib, p):
    """f's gradient and Hessian at p (a leaf), by create_graph and two more passes."""
    (g,) = lib.autograd.grad(rosenbrock(p), p, create_graph=True)
    rows = [lib.autograd.grad(g[i], p, retain_graph=True)[0] for i in range(2)]
    return g.detach().numpy(), np.stack([r.numpy() for r in rows])


def newton_path(lib, start, damping=1.0, steps=30):
    """The points Newton's method visits: p <- p - damping * H^-1 g, solved by ``lib``."""
    p = np.array(start, dtype=np.float64)
    path = [p.copy()]
    for _ in range(steps):
        leaf = lib.tensor(p.copy(), dtype=lib.float64, requires_grad=True)
        g, h = _gradient_and_hessian(lib, leaf)
        if lib.__name__ == "torch":
            d = lib.linalg.solve(lib.tensor(h), lib.tensor(g)).numpy()
        else:
            d = np.linalg.solve(h, g)
        p = p - damping * d
        path.append(p.copy())
        if not np.all(np.isfinite(p)) or np.hypot(*(p - MINIMUM)) < TOL:
            break
    return np.array(path)


def descent_path(lib, start, lr, steps=300):
    """The points ``lib.optim.SGD(lr)`` visits, stopping once within TOL of the minimum."""
    p = lib.tensor(list(start), dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=lr)
    path = [p.detach().numpy().copy()]
    for _ in range(steps):
        optimizer.zero_grad()
        rosenbrock(p).backward()
        optimizer.step()
        path.append(p.detach().numpy().copy())
        if not np.all(np.isfinite(path[-1])) or np.hypot(*(path[-1] - MINIMUM)) < TOL:
            break
    return np.array(path)


def steps_to_converge(path):
    """The first step that lands within TOL of the minimum, or None."""
    close = np.hypot(path[:, 0] - MINIMUM[0], path[:, 1] - MINIMUM[1]) < TOL
    return int(np.argmax(close)) if close.any() else None


def _f(point):
    a, b = point
    return (1 - a) ** 2 + 100 * (b - a * a) ** 2


@dataclass
class NewtonRace:
    """Newton and gradient descent from one start, in minigrad and in torch."""

    start: tuple = (-1.2, 1.0)
    lr: float = 0.001
    damping: float = 1.0
    max_newton: int = 30
    max_descent: int = 200
    newton: np.ndarray = field(init=False, repr=False)
    newton_torch: np.ndarray = field(init=False, repr=False)
    descent: np.ndarray = field(init=False, repr=False)
    descent_torch: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        import torch

        import minigrad

        self.start = tuple(float(s) for s in self.start)
        self.newton = newton_path(minigrad, self.start, self.damping, self.max_newton)
        self.newton_torch = newton_path(torch, self.start, self.damping, self.max_newton)
        self.descent = descent_path(minigrad, self.start, self.lr, self.max_descent)
        self.descent_torch = descent_path(torch, self.start, self.lr, self.max_descent)

    @property
    def newton_steps(self):
        return steps_to_converge(self.newton)

    @property
    def descent_steps(self):
        return steps_to_converge(self.descent)

    @property
    def max_diff(self):
        """The largest difference between minigrad's points and torch's (both methods)."""
        diffs = [np.abs(a - b).max() if a.shape == b.shape else np.inf
                 for a, b in ((self.newton, self.newton_torch),
                              (self.descent, self.descent_torch))]
        return float(max(diffs))

    @property
    def agrees(self):
        if self.newton.shape != self.newton_torch.shape:
            return False
        if self.descent.shape != self.descent_torch.shape:
            return False
        pairs = ((self.newton, self.newton_torch), (self.descent, self.descent_torch))
        return all(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True) for a, b in pairs)

    def _line(self, name, path, steps, limit):
        if steps is not None:
            return f"{name}: {steps} steps to within {TOL:g} of (1, 1)"
        end = path[-1]
        if not np.all(np.isfinite(end)):
            return f"{name}: diverged after {len(path) - 1} steps"
        return (f"{name}: not within {TOL:g} of (1, 1) after {limit} steps: at "
                f"({end[0]:.3f}, {end[1]:.3f}), f = {_f(end):.3g}")

    def readout(self):
        """Plain text: steps to converge for each method, and the comparison with torch."""
        mark = "same as torch's" if self.agrees else "DIFFER from torch's"
        return (f"start (a, b) = ({self.start[0]:.2f}, {self.start[1]:.2f}), "
                f"f = {_f(self.start):.4g}\n"
                + self._line(f"Newton (step {self.damping:.2f} H^-1 g)", self.newton,
                             self.newton_steps, self.max_newton) + "\n"
                + self._line(f"gradient descent (lr {self.lr:.4f})", self.descent,
                             self.descent_steps, self.max_descent) + "\n"
                f"minigrad's points: {mark} (max abs diff {self.max_diff:.1e})")


def _grid():
    a, b = np.meshgrid(np.linspace(-2, 2, 60), np.linspace(-1, 3, 60))
    return a, b, np.log10(_f((a, b)) + 1e-3)


def _draw(race, figsize=(9.5, 3.6)):
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=figsize,
                                      gridspec_kw={"width_ratios": [1.2, 1]})
    a, b, logf = _grid()
    left.contour(a, b, logf, levels=12, colors="0.8")
    for path, style, label in ((race.descent, "o-", "gradient descent"),
                               (race.newton, "s-", "Newton")):
        shown = path[np.all(np.isfinite(path), axis=1)]
        left.plot(shown[:, 0], shown[:, 1], style, ms=3, lw=1, label=label)
    left.plot(race.descent_torch[:, 0], race.descent_torch[:, 1], "k:", lw=1, label="torch")
    left.plot(race.newton_torch[:, 0], race.newton_torch[:, 1], "k:", lw=1)
    left.plot(*MINIMUM, "k*", ms=10)
    left.set(xlim=(-2, 2), ylim=(-1, 3), xlabel="a", ylabel="b", title="paths")
    left.legend(loc="lower right", fontsize=8)
    for path, label in ((race.descent, "gradient descent"), (race.newton, "Newton")):
        values = np.array([_f(p) for p in path])
        right.plot(np.log10(np.maximum(values, 1e-300)), label=label)
    right.set(xlabel="step", ylabel="log10 f(a, b)", title="the loss",
              xlim=(0, max(len(race.descent), 10)))
    right.legend(fontsize=8)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.9, wspace=0.25)
    return fig


def newton_widget(start=(-1.2, 1.0), lr=0.001, damping=1.0):
    """Sliders for the start, lr and the Newton step; paths, the loss and a readout.

    CSS classes: ``minigrad-ch15-a``, ``minigrad-ch15-b``, ``minigrad-ch15-lr``,
    ``minigrad-ch15-damping`` (sliders), ``minigrad-ch15-readout``, ``minigrad-ch15-plot``.
    The VBox's ``race`` attribute is the current :class:`NewtonRace`.
    """
    def slider(value, low, high, step, name, fmt=".1f"):
        return ui.slider(f"minigrad-ch15-{name.split()[0]}", name, value, low, high, step,
                         readout_format=fmt)

    a_slider = slider(start[0], -2.0, 2.0, 0.1, "a")
    b_slider = slider(start[1], -1.0, 3.0, 0.1, "b")
    lr_slider = slider(lr, 0.0002, 0.002, 0.0002, "lr", ".4f")
    damping_slider = slider(damping, 0.1, 1.0, 0.1, "damping (Newton step)")
    readout, plot = ui.readout("minigrad-ch15-readout"), ui.figure_output("minigrad-ch15-plot")
    box = ui.vbox([a_slider, b_slider], [lr_slider, damping_slider], readout, plot)

    def redraw():
        box.race = NewtonRace((round(a_slider.value, 1), round(b_slider.value, 1)),
                              round(lr_slider.value, 4), round(damping_slider.value, 1))
        readout.value = ui.pre(box.race.readout())
        ui.show_figure(plot, _draw(box.race))

    ui.redraw_on_change([a_slider, b_slider, lr_slider, damping_slider], redraw)
    return box
