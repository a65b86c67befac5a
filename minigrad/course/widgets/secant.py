r"""Secant to tangent (chapter 01): the numeric slope as the step ``h`` shrinks.

:class:`SecantSlope` is the logic: for a function ``f`` and a point ``x`` it gives the
secant slope :math:`(f(x + h) - f(x)) / h`, torch's derivative (the oracle) and the
error between them. In exact arithmetic the error of :math:`x^2` is exactly ``h``; in
floating point it falls with ``h`` down to about ``1e-8`` and then grows again, because
:math:`f(x + h) - f(x)` loses digits to rounding (chapter 11). :func:`secant_widget`
puts it behind a log-scale slider for ``h``.
"""

from minigrad.course.widgets import controls as ui
from minigrad.course.widgets.explorers import torch_slope

__all__ = ["SecantSlope", "secant_widget"]

EXPONENTS = tuple(range(0, -13, -1))  # h = 1, 0.1, ..., 1e-12: the slider's stops


class SecantSlope:
    """The secant slope of ``f`` at ``x`` for any step ``h``, and its error."""

    def __init__(self, f, x):
        self.f = f
        self.x = float(x)
        self.exact = torch_slope(f, self.x)  # torch's derivative, float64

    def slope(self, h):
        """The slope of the line through (x, f(x)) and (x + h, f(x + h))."""
        return (self.f(self.x + h) - self.f(self.x)) / h

    def error(self, h):
        """``|slope(h) - exact|``: how far the secant is from torch's derivative."""
        return abs(self.slope(h) - self.exact)

    def best_h(self, hs=None):
        """The step among ``hs`` (default: the slider's stops) with the smallest error."""
        hs = [10.0 ** e for e in EXPONENTS] if hs is None else hs
        return min(hs, key=self.error)

    def readout(self, h):
        """One line: the step, the slope, torch's derivative and the error."""
        best = self.best_h()
        trend = ("the error shrinks with h" if h >= best else
                 f"below the best step, {best:.0e}: rounding makes the error grow again, "
                 "as chapter 11 explains")
        return (f"h = {h:.0e}   secant slope = {self.slope(h):.9f}   "
                f"torch's derivative = {self.exact:.9f}   error = {self.error(h):.1e}   "
                f"({trend})")


def secant_widget(f, x=3.0, label="f(x)", h=0.1):
    """A log-scale slider for ``h`` (CSS class ``minigrad-ch01-h-slider``) from 1 down to
    1e-12, a readout (``minigrad-ch01-secant-readout``), and two plots: the curve with the
    secant and the tangent, and the error against ``h`` with the current step marked."""
    import matplotlib.pyplot as plt
    import numpy as np

    secant = SecantSlope(f, x)
    slider = ui.slider("minigrad-ch01-h-slider", "h", h, EXPONENTS[-1], EXPONENTS[0], 1,
                       kind="log", readout_format=".0e")
    readout = ui.readout("minigrad-ch01-secant-readout")
    plot = ui.figure_output("minigrad-ch01-secant-plot")
    xs = np.linspace(secant.x - 1.5, secant.x + 1.5, 100)
    ys = np.array([f(float(v)) for v in xs])
    y0 = f(secant.x)
    hs = 10.0 ** np.linspace(EXPONENTS[-1], EXPONENTS[0], 49)
    errors = np.array([secant.error(float(v)) for v in hs])

    def draw():
        step = slider.value
        readout.value = secant.readout(step)
        slope = secant.slope(step)
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
        left.plot(xs, ys, label=label)
        left.plot(xs, y0 + secant.exact * (xs - secant.x), ":", color="black",
                  label=f"tangent, slope {secant.exact:g}")
        left.plot(xs, y0 + slope * (xs - secant.x), "--", color="crimson",
                  label=f"secant, h = {step:.0e}")
        left.plot([secant.x, secant.x + step], [y0, f(secant.x + step)], "o", color="crimson")
        left.set_xlabel("x")
        left.legend(loc="upper left", fontsize=8)
        right.loglog(hs, np.maximum(errors, 1e-17), color="gray")
        right.loglog([step], [max(secant.error(step), 1e-17)], "o", color="crimson")
        right.set_xlabel("h")
        right.set_ylabel("|secant slope - torch|")
        right.set_title("error against the step")
        fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.9, wspace=0.3)
        ui.show_figure(plot, fig)

    ui.redraw_on_change([slider], draw)
    return ui.vbox(slider, readout, plot, secant=secant)
