r"""Partial derivatives as slopes of slices (chapter 02).

:class:`PartialSlices` is the logic: for a function ``fn(x, y)`` and a point it gives
the gradient from one ``minigrad.Value`` backward pass and from torch (the oracle), and
the two slices through the point, :math:`t \mapsto fn(t, y)` and :math:`t \mapsto fn(x,
t)`, whose slopes at the point are :math:`\partial fn / \partial x` and
:math:`\partial fn / \partial y`. :func:`slices_widget` draws the contour plot with the
point and its gradient arrow, and the two slices with their tangents.
"""

from minigrad.course.widgets import controls as ui

__all__ = ["PartialSlices", "minigrad_gradient", "slices_widget", "torch_gradient"]


def minigrad_gradient(fn, *point):
    """The gradient of ``fn`` at ``point``, from one ``minigrad.Value`` backward pass."""
    from minigrad.value import Value

    inputs = [Value(float(p)) for p in point]
    fn(*inputs).backward()
    return [v.grad for v in inputs]


def torch_gradient(fn, *point):
    """The gradient of ``fn`` at ``point`` as torch computes it (float64)."""
    import torch

    inputs = [torch.tensor(float(p), dtype=torch.float64, requires_grad=True) for p in point]
    fn(*inputs).backward()
    return [t.grad.item() for t in inputs]


class PartialSlices:
    """A function of two numbers at one point: its gradient and its two slices."""

    def __init__(self, fn, x, y, name="L"):
        self.fn, self.name = fn, name
        self.move(x, y)

    def move(self, x, y):
        """Go to the point (x, y) and compute the gradient there, in minigrad and torch."""
        self.x, self.y = float(x), float(y)
        self.value = self.fn(self.x, self.y)
        self.gradient = minigrad_gradient(self.fn, self.x, self.y)
        self.torch = torch_gradient(self.fn, self.x, self.y)

    @property
    def agrees(self):
        """Whether minigrad's gradient equals torch's (to 1e-9, relative)."""
        return all(abs(a - b) <= 1e-9 * max(1.0, abs(b))
                   for a, b in zip(self.gradient, self.torch, strict=True))

    def slice_x(self, ts):
        """``fn(t, y)`` for each t: the curve along x, y held fixed."""
        return [self.fn(float(t), self.y) for t in ts]

    def slice_y(self, ts):
        """``fn(x, t)`` for each t: the curve along y, x held fixed."""
        return [self.fn(self.x, float(t)) for t in ts]

    def tangent_x(self, ts):
        """The tangent of the x-slice at the point: slope dfn/dx."""
        return [self.value + self.gradient[0] * (float(t) - self.x) for t in ts]

    def tangent_y(self, ts):
        """The tangent of the y-slice at the point: slope dfn/dy."""
        return [self.value + self.gradient[1] * (float(t) - self.y) for t in ts]

    def readout(self):
        dx, dy = self.gradient
        mark = "matches torch" if self.agrees else "DIFFERS from torch"
        n = self.name
        return (f"(x, y) = ({self.x:.2f}, {self.y:.2f}): d{n}/dx = {dx:.4f} (slope of "
                f"{n}(., {self.y:.2f}) at x = {self.x:.2f}), d{n}/dy = {dy:.4f} (slope of "
                f"{n}({self.x:.2f}, .) at y = {self.y:.2f}); torch ({self.torch[0]:.4f}, "
                f"{self.torch[1]:.4f}): {mark}")


def slices_widget(fn, x=2.0, y=4.0, span=(-2.0, 6.0), name="L"):
    """Sliders for x and y (CSS classes ``minigrad-ch02-x``, ``minigrad-ch02-y``), a
    readout (``minigrad-ch02-slices-readout``) and three plots: the contours of ``fn``
    (which must also work on numpy arrays) with the point and its gradient arrow, then
    ``fn(., y)`` and ``fn(x, .)`` with their tangents at the point."""
    import matplotlib.pyplot as plt
    import numpy as np

    view = PartialSlices(fn, x, y, name)
    lo, hi = span
    sliders = [ui.slider(f"minigrad-ch02-{var}", var, value, lo, hi, 0.5)
               for var, value in (("x", x), ("y", y))]
    readout = ui.readout("minigrad-ch02-slices-readout")
    plot = ui.figure_output("minigrad-ch02-slices-plot")
    ts = np.linspace(lo, hi, 60)
    GX, GY = np.meshgrid(ts, ts)
    levels = np.linspace(fn(GX, GY).min(), fn(GX, GY).max(), 14)

    def draw():
        view.move(sliders[0].value, sliders[1].value)
        readout.value = view.readout()
        gx, gy = view.gradient
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
        axes[0].contour(GX, GY, fn(GX, GY), levels=levels, cmap="viridis")
        axes[0].plot([view.x], [view.y], "o", color="black")
        axes[0].quiver([view.x], [view.y], [gx], [gy], color="crimson", angles="xy",
                       scale_units="xy", scale=max(1.0, np.hypot(gx, gy) / 2))
        axes[0].axhline(view.y, color="tab:blue", lw=0.8)
        axes[0].axvline(view.x, color="tab:orange", lw=0.8)
        axes[0].set_aspect("equal")
        axes[0].set_title(f"{name}(x, y): contours, gradient")
        axes[0].set_xlabel("x")
        axes[0].set_ylabel("y")
        for ax, curve, tangent, var, color, slope in (
                (axes[1], view.slice_x, view.tangent_x, "x", "tab:blue", gx),
                (axes[2], view.slice_y, view.tangent_y, "y", "tab:orange", gy)):
            ax.plot(ts, curve(ts), color=color)
            ax.plot(ts, tangent(ts), "--", color="crimson", label=f"slope {slope:.2f}")
            ax.plot([view.x if var == "x" else view.y], [view.value], "o", color="black")
            ax.set_xlabel(var)
            ax.legend(loc="upper left", fontsize=8)
        axes[1].set_title(f"{name}(x, {view.y:g}), y held fixed")
        axes[2].set_title(f"{name}({view.x:g}, y), x held fixed")
        fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.9, wspace=0.3)
        ui.show_figure(plot, fig)

    ui.redraw_on_change(sliders, draw)
    return ui.vbox(sliders, readout, plot, view=view)
