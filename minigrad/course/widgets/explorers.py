r"""Interactive explorers for the notebooks (chapter 01: the tangent-line explorer).

The pure part, :func:`slopes_at`, computes the three slopes a reader compares: the
derivative from ``minigrad.Value.backward()``, the numeric slope
:math:`(f(x + h) - f(x)) / h`, and torch's derivative. :data:`EXAMPLES` holds two more
functions to explore (each works on a float, a ``minigrad.Value`` and a torch tensor).
The widget only draws them.
"""

import html
import math

from minigrad.course.widgets import controls as ui

__all__ = ["EXAMPLES", "cubic", "slopes_at", "tanh", "tangent_explorer", "torch_slope"]


def cubic(x):
    """x**3 - 3x: slope zero at -1 and 1, negative between them."""
    return x ** 3 - 3 * x


def tanh(x):
    """tanh on a float (math.tanh), a minigrad.Value or a torch tensor (their .tanh())."""
    return math.tanh(x) if isinstance(x, int | float) else x.tanh()


EXAMPLES = {"y = x**3 - 3x": cubic, "y = tanh(x)": tanh}


def torch_slope(f, x):
    """The derivative of f at x as torch computes it (float64): the oracle for chapter 01."""
    import torch

    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    f(t).backward()
    return t.grad.item()


def slopes_at(f, x, h=1e-6):
    """Return ``{"minigrad": ..., "numeric": ..., "torch": ...}``: three slopes of f at x.

    ``f`` must work on a ``minigrad.Value``, a float and a torch tensor, as
    ``lambda x: x ** 2`` does.
    """
    from minigrad.value import Value

    v = Value(x)
    f(v).backward()
    return {"minigrad": v.grad, "numeric": (f(x + h) - f(x)) / h, "torch": torch_slope(f, x)}


def _readout(x, slopes, label=""):
    agree = abs(slopes["minigrad"] - slopes["torch"]) <= 1e-9 * max(1.0, abs(slopes["torch"]))
    mark = "&#10003; matches torch" if agree else "&#10007; differs from torch"
    name = f"{html.escape(label)}: &nbsp; " if label else ""
    return (f"{name}<b>x = {x:.2f}</b> &nbsp; minigrad slope <b>{slopes['minigrad']:.4f}</b>"
            f" &nbsp; numeric slope {slopes['numeric']:.4f}"
            f" &nbsp; torch slope {slopes['torch']:.4f} &nbsp; {mark}")


def tangent_explorer(f, x=3.0, xmin=-4.0, xmax=4.0, label="f(x)", others=None):
    """A slider for x, the curve of f, its tangent at x, and the slopes side by side.

    The readout (CSS class ``minigrad-readout``) updates with the slider (CSS class
    ``minigrad-x-slider``) so a browser test can move one and read the other. With
    ``others`` (a dict label -> function, e.g. :data:`EXAMPLES`), a dropdown (CSS class
    ``minigrad-ch01-function``) switches between ``f`` and them; the VBox's children are
    then the slider, the readout, the dropdown and the plot.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    import numpy as np

    slider = ui.slider("minigrad-x-slider", "x", x, xmin, xmax, 0.25)
    readout, plot = ui.readout("minigrad-readout"), ui.figure_output()
    functions = {label: f, **(others or {})}
    choice = widgets.Dropdown(options=list(functions), value=label, description="function")
    choice.add_class("minigrad-ch01-function")
    xs = np.linspace(xmin, xmax, 200)
    curves = {name: np.array([fn(float(v)) for v in xs]) for name, fn in functions.items()}

    def draw():
        x0, label = slider.value, choice.value
        f, ys = functions[label], curves[label]
        slopes = slopes_at(f, x0)
        readout.value = _readout(x0, slopes, label)
        y0 = f(x0)
        fig, ax = plt.subplots(figsize=(5.5, 3.5))
        ax.plot(xs, ys, label=label)
        ax.plot(xs, y0 + slopes["minigrad"] * (xs - x0), "--",
                label=f"tangent, slope {slopes['minigrad']:.2f}")
        ax.plot([x0], [y0], "o", color="black")
        ax.set_ylim(ys.min() - 1, ys.max() + 1)
        ax.set_xlabel("x")
        ax.legend(loc="upper center")
        ax.set_title(f"{label} and its tangent at x = {x0:.2f}")
        ui.show_figure(plot, fig)

    ui.redraw_on_change([slider, choice], draw)
    return ui.vbox(*([slider, readout, choice, plot] if others else [slider, readout, plot]))
