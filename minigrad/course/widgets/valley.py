r"""SGD with momentum on a quadratic valley, and where it diverges (chapter 10).

The valley is :math:`f(u, v) = \tfrac12 (\lambda_u u^2 + \lambda_v v^2)`, by default
:math:`\lambda = (1, 20)`. With torch's momentum (:math:`b \leftarrow \mu b + g`,
:math:`p \leftarrow p - \eta b`) each coordinate follows
:math:`p_{k+1} = (1 + \mu - \eta\lambda)\, p_k - \mu\, p_{k-1}`, whose characteristic
roots solve :math:`r^2 - (1 + \mu - \eta\lambda) r + \mu = 0`. The run is stable when every
root has :math:`|r| < 1`, that is when :math:`\eta < 2(1 + \mu) / \lambda_{\max}` (for
:math:`0 \le \mu < 1`); with :math:`\mu = 0`, :math:`\eta < 2 / \lambda_{\max}`. On a
gradient that stays the same from step to step the buffer grows to :math:`g / (1 - \mu)`:
the effective step is :math:`\eta / (1 - \mu)`.

:class:`ValleyRun` is the logic (the paths of minigrad's and torch's ``optim.SGD``, the
roots, the readout); :func:`valley_widget` draws it behind two sliders.
"""

from dataclasses import dataclass, field

import numpy as np

from minigrad.course.widgets import controls as ui

__all__ = ["CURVATURES", "START", "ValleyRun", "descend", "spectral_radius", "valley",
           "valley_widget"]

CURVATURES = (1.0, 20.0)
START = (-4.0, 1.0)


def valley(p, curvatures=CURVATURES):
    """f(u, v) = (a u**2 + b v**2) / 2 of a tensor p = (u, v), in either library."""
    return 0.5 * (curvatures[0] * p[0] ** 2 + curvatures[1] * p[1] ** 2)


def descend(lib, lr, momentum, steps=40, start=START, curvatures=CURVATURES):
    """The points ``lib.optim.SGD(lr, momentum)`` visits on the valley, and f at each."""
    p = lib.tensor(list(start), dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=lr, momentum=momentum)
    path, values = [p.detach().numpy().copy()], []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = valley(p, curvatures)
        values.append(loss.item())
        loss.backward()
        optimizer.step()
        path.append(p.detach().numpy().copy())
    values.append(valley(p, curvatures).item())
    return np.array(path), np.array(values)


def spectral_radius(lr, momentum, curvature):
    """The largest |r| of r**2 - (1 + mu - lr * curvature) r + mu = 0."""
    return float(np.abs(np.roots([1.0, -(1.0 + momentum - lr * curvature), momentum])).max())


@dataclass
class ValleyRun:
    """One run of SGD on the valley, in minigrad and in torch, with its stability."""

    lr: float
    momentum: float
    steps: int = 40
    curvatures: tuple = CURVATURES
    path: np.ndarray = field(init=False, repr=False)
    values: np.ndarray = field(init=False, repr=False)
    path_torch: np.ndarray = field(init=False, repr=False)
    values_torch: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        import torch

        import minigrad

        self.path, self.values = descend(minigrad, self.lr, self.momentum, self.steps,
                                         curvatures=self.curvatures)
        self.path_torch, self.values_torch = descend(torch, self.lr, self.momentum,
                                                     self.steps, curvatures=self.curvatures)

    @property
    def lambda_max(self):
        return max(self.curvatures)

    @property
    def limit(self):
        """The largest stable learning rate, 2 (1 + mu) / lambda_max."""
        return 2 * (1 + self.momentum) / self.lambda_max

    @property
    def effective_step(self):
        """lr / (1 - mu): the step along a gradient that stays the same."""
        return self.lr / (1 - self.momentum)

    @property
    def radius(self):
        """The largest |root| over the valley's directions: < 1 stable, > 1 diverges."""
        return max(spectral_radius(self.lr, self.momentum, c) for c in self.curvatures)

    @property
    def verdict(self):
        radius = round(self.radius, 12)
        return "stable" if radius < 1 else "diverges" if radius > 1 else "on the limit"

    @property
    def max_diff(self):
        """The largest difference between minigrad's path and torch's."""
        return float(np.abs(self.path - self.path_torch).max())

    @property
    def agrees(self):
        scale = np.maximum(1.0, np.abs(self.path_torch))
        return bool(np.all(np.abs(self.path - self.path_torch) <= 1e-12 * scale))

    def readout(self):
        """Plain text: the verdict, lambda_max, the limit, the effective step, vs torch."""
        mark = "same as torch's optim.SGD" if self.agrees else "DIFFERS from torch's optim.SGD"
        return (f"lr = {self.lr:.2f}, momentum = {self.momentum:.2f}: {self.verdict} "
                f"(largest |root| {self.radius:.3f})\n"
                f"lambda_max = {self.lambda_max:g}, stable for lr < 2 (1 + momentum) / "
                f"lambda_max = {self.limit:.3f}\n"
                f"effective step lr / (1 - momentum) = {self.effective_step:.3f}\n"
                f"after {self.steps} steps: f = {self.values[-1]:.3e}, (u, v) = "
                f"({self.path[-1, 0]:.3g}, {self.path[-1, 1]:.3g})\n"
                f"minigrad's path: {mark} (max abs diff {self.max_diff:.1e})")


def _draw(run, figsize=(9.5, 3.4)):
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=figsize,
                                      gridspec_kw={"width_ratios": [1.6, 1]})
    u, v = np.meshgrid(np.linspace(-4.5, 4.5, 60), np.linspace(-1.5, 1.5, 60))
    left.contour(u, v, 0.5 * (run.curvatures[0] * u ** 2 + run.curvatures[1] * v ** 2),
                 levels=np.geomspace(0.05, 40, 12), colors="0.8")
    left.plot(run.path[:, 0], run.path[:, 1], "o-", ms=3, label="minigrad")
    left.plot(run.path_torch[:, 0], run.path_torch[:, 1], "k:", lw=1, label="torch")
    left.plot(0, 0, "k*", ms=10)
    left.set(xlim=(-4.5, 4.5), ylim=(-1.5, 1.5), xlabel="u", ylabel="v",
             title=f"lr {run.lr:.2f}, momentum {run.momentum:.2f}: {run.verdict}")
    left.legend(loc="lower right", fontsize=8)
    # log10 on a linear axis: a log axis's tick labels cost a mathtext parse each redraw
    right.plot(np.log10(np.maximum(run.values, 1e-300)), label="minigrad")
    right.plot(np.log10(np.maximum(run.values_torch, 1e-300)), "k:", label="torch")
    right.set(xlabel="step", ylabel="log10 f(u, v)", title="the loss")
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.9, wspace=0.25)
    return fig


def valley_widget(lr=0.09, momentum=0.0, steps=40):
    """Sliders for lr and momentum, the path on the contours, the loss, and a readout.

    CSS classes: ``minigrad-ch10-lr``, ``minigrad-ch10-momentum`` (sliders),
    ``minigrad-ch10-readout``, ``minigrad-ch10-plot``. The VBox's ``run`` attribute is the
    current :class:`ValleyRun`.
    """
    lr_slider = ui.slider("minigrad-ch10-lr", "lr", lr, 0.01, 0.2, 0.01, readout_format=".2f")
    mu_slider = ui.slider("minigrad-ch10-momentum", "momentum", momentum, 0.0, 0.95, 0.05,
                          readout_format=".2f")
    readout, plot = ui.readout("minigrad-ch10-readout"), ui.figure_output("minigrad-ch10-plot")
    box = ui.vbox([lr_slider, mu_slider], readout, plot)

    def redraw():
        box.run = ValleyRun(round(lr_slider.value, 2), round(mu_slider.value, 2), steps)
        readout.value = ui.pre(box.run.readout())
        ui.show_figure(plot, _draw(box.run))

    ui.redraw_on_change([lr_slider, mu_slider], redraw)
    return box
