r"""What the gradient predicts about a step (chapter 02).

:class:`FirstOrderStep` is the logic: from a point ``p`` of a function ``fn`` of two
numbers, a step ``s`` of length ``r`` at angle ``theta`` (degrees, measured from the
gradient's direction) changes ``fn`` by :math:`fn(p + s) - fn(p)`; the gradient predicts
:math:`g \cdot s = |g|\, r \cos\theta`. The gap between them is second order: it grows like
:math:`r^2`, so ``gap / r**2`` settles to a constant as ``r`` shrinks. For small steps the
best direction is the gradient's (theta = 0); for a large step it need not be.
:func:`step_widget` draws it.
"""

import math
from dataclasses import dataclass

from minigrad.course.widgets import controls as ui
from minigrad.course.widgets.slices import minigrad_gradient, torch_gradient

__all__ = ["FirstOrderStep", "StepResult", "step_widget"]


@dataclass(frozen=True)
class StepResult:
    r: float
    theta: float
    step: tuple        # (dx, dy)
    actual: float      # fn(p + s) - fn(p)
    predicted: float   # g . s
    gap: float         # actual - predicted

    @property
    def gap_over_r2(self):
        return self.gap / self.r ** 2


class FirstOrderStep:
    """Steps from ``point`` on ``fn``: the actual change against the gradient's prediction."""

    def __init__(self, fn, point, name="L"):
        self.fn, self.name = fn, name
        self.point = tuple(float(p) for p in point)
        self.value = fn(*self.point)
        self.gradient = tuple(minigrad_gradient(fn, *self.point))
        self.torch = tuple(torch_gradient(fn, *self.point))
        self.norm = math.hypot(*self.gradient)
        self.angle = math.atan2(self.gradient[1], self.gradient[0])  # the gradient's

    def step(self, r, theta):
        """The step of length ``r`` at ``theta`` degrees from the gradient's direction."""
        a = self.angle + math.radians(theta)
        s = (r * math.cos(a), r * math.sin(a))
        actual = self.fn(self.point[0] + s[0], self.point[1] + s[1]) - self.value
        predicted = self.gradient[0] * s[0] + self.gradient[1] * s[1]
        return StepResult(float(r), float(theta), s, actual, predicted, actual - predicted)

    def best_angle(self, r, angles=range(-180, 180)):
        """The angle among ``angles`` (whole degrees by default) whose step of length r
        increases fn the most."""
        return max(angles, key=lambda t: self.step(r, t).actual)

    def readout(self, r, theta):
        res = self.step(r, theta)
        tiny = 1e-12 * r * max(self.norm, 1.0)  # rounding of a prediction that is 0
        predicted = 0.0 if abs(res.predicted) < tiny else res.predicted
        return (f"r = {r:.3g}, theta = {theta:g} deg: actual change {res.actual:.6g}, "
                f"g . s = {predicted:.6g}, gap {res.gap:.3g} = {res.gap_over_r2:.4g} r^2; "
                f"the step of length {r:.3g} that increases {self.name} most: theta = "
                f"{self.best_angle(r)} deg")


def step_widget(fn, point=(2.0, 4.0), name="L"):
    """Sliders for r (log scale, ``minigrad-ch02-r``) and theta (``minigrad-ch02-theta``),
    a readout (``minigrad-ch02-step-readout``) and two plots: the step on the contours,
    and |gap| against r on log axes with an r**2 line."""
    import matplotlib.pyplot as plt
    import numpy as np

    model = FirstOrderStep(fn, point, name)
    r_slider = ui.slider("minigrad-ch02-r", "r", 0.01, -3, 0.5, 0.5, kind="log",
                         readout_format=".3g")
    theta = ui.slider("minigrad-ch02-theta", "theta", 0, -180, 180, 15, kind="int")
    readout = ui.readout("minigrad-ch02-step-readout")
    plot = ui.figure_output("minigrad-ch02-step-plot")
    px, py = model.point
    ts = np.linspace(-3.5, 3.5, 60)
    GX, GY = np.meshgrid(px + ts, py + ts)
    rs = 10.0 ** np.linspace(-3, 0.5, 36)

    def draw():
        r, t = r_slider.value, theta.value
        res = model.step(r, t)
        readout.value = model.readout(r, t)
        gaps = np.array([abs(model.step(float(v), t).gap) for v in rs])
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
        left.contour(GX, GY, fn(GX, GY), levels=14, cmap="viridis")
        left.quiver([px], [py], [model.gradient[0]], [model.gradient[1]], color="gray",
                    angles="xy", scale_units="xy", scale=max(1.0, model.norm / 2))
        left.plot([px, px + res.step[0]], [py, py + res.step[1]], color="crimson", lw=2)
        left.plot([px], [py], "o", color="black")
        left.set_aspect("equal")
        left.set_title(f"{name}(x, y): gradient (gray), step (red)")
        keep = gaps > 1e-300
        right.loglog(rs[keep], gaps[keep], color="crimson", label="|actual - g . s|")
        if abs(res.gap) > 1e-300:
            right.loglog(rs, abs(res.gap) * (rs / r) ** 2, ":", color="black",
                         label="a constant times r^2")
            right.loglog([r], [abs(res.gap)], "o", color="crimson")
        right.set_xlabel("r")
        right.set_title(f"the gap at theta = {t} deg")
        right.legend(loc="upper left", fontsize=8)
        fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.9, wspace=0.3)
        ui.show_figure(plot, fig)

    ui.redraw_on_change([r_slider, theta], draw)
    return ui.vbox([r_slider, theta], readout, plot, model=model)
