"""Broadcasting and its reverse, for one pair of shapes, as a widget (chapter 05).

:class:`BroadcastView` holds an input ``x`` (the numbers 1, 2, ... in ``in_shape``) that
is broadcast to ``out_shape``: the forward pass uses each element of ``x`` several times
(the copies), and the backward pass sums the upstream gradient ``G`` over the axes
broadcasting added or stretched, with ``minigrad.autograd.engine.sum_to_shape``. It runs minigrad's
backward of ``(x + zeros(out_shape)) * G`` summed, and torch's of ``x.expand(out_shape)``
the same way, and compares the two ``x.grad``. Shapes that do not broadcast give torch's
own error. :func:`broadcast_widget` draws it: two dropdowns and a text readout.
"""

import math

import numpy as np

import minigrad
from minigrad.autograd.engine import sum_to_shape
from minigrad.course.widgets import controls as ui

__all__ = ["BroadcastView", "SHAPES", "broadcast_widget"]

SHAPES = [(), (1,), (4,), (3, 1), (1, 4), (3, 4), (2, 1, 4), (2, 3, 1), (2, 3, 4)]


def _shape(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


class BroadcastView:
    """One broadcast ``in_shape -> out_shape``: copies, summed axes, gradients."""

    def __init__(self, in_shape, out_shape):
        import torch

        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        self.x = np.arange(1.0, math.prod(self.in_shape) + 1).reshape(self.in_shape)
        self.G = (np.arange(math.prod(self.out_shape)) % 5 - 2.0).reshape(self.out_shape)
        try:
            torch.broadcast_to(torch.tensor(self.x), self.out_shape)
            self.error = None
        except RuntimeError as error:
            self.error = f"RuntimeError: {error}"
            return
        lead = len(self.out_shape) - len(self.in_shape)
        self.added = tuple(range(lead))
        self.stretched = tuple(lead + i for i, n in enumerate(self.in_shape)
                               if n == 1 and self.out_shape[lead + i] != 1)
        self.copies = math.prod(self.out_shape) // max(math.prod(self.in_shape), 1)
        self.forward = np.broadcast_to(self.x, self.out_shape)
        self.summed = sum_to_shape(self.G, self.in_shape)
        x = minigrad.tensor(self.x, requires_grad=True)
        ((x + minigrad.zeros(*self.out_shape, dtype=minigrad.float64))
         * minigrad.tensor(self.G)).sum().backward()
        self.grad = x.grad.data
        xt = torch.tensor(self.x, requires_grad=True)
        (xt.expand(self.out_shape) * torch.tensor(self.G)).sum().backward()
        self.torch_grad = xt.grad.numpy()

    @property
    def matches(self):
        return self.error is None and self.grad.shape == self.torch_grad.shape and bool(
            np.array_equal(self.grad, self.torch_grad))

    def text(self):
        """What the widget shows, as plain text."""
        head = f"x {_shape(self.in_shape)} -> {_shape(self.out_shape)}"
        if self.error is not None:
            return f"{head}: does not broadcast; torch says\n{self.error}"
        axes = self.added + self.stretched
        lines = [
            f"{head}: axes added {self.added or 'none'}, axes stretched "
            f"{self.stretched or 'none'}; each element of x is used {self.copies} times",
            f"x =\n{self.x}",
            f"forward: x broadcast to {_shape(self.out_shape)} (the copies) =\n{self.forward}",
            f"upstream gradient G =\n{self.G}",
            f"backward: sum_to_shape sums G over axes {axes or 'none'}: x.grad =\n{self.grad}",
            "x.grad " + ("matches" if self.matches else "DIFFERS FROM") + " torch's "
            f"x.expand({', '.join(map(str, self.out_shape))}) backward: {self.torch_grad.tolist()}",
        ]
        return "\n\n".join(lines)


def broadcast_widget(in_shape=(3, 1), out_shape=(2, 3, 4)):
    """Two dropdowns (input shape, output shape) and the readout; returns a VBox.

    CSS classes: ``minigrad-ch05-in-shape``, ``minigrad-ch05-out-shape``,
    ``minigrad-ch05-readout``. The VBox's ``view`` is the current :class:`BroadcastView`.
    """
    import ipywidgets as widgets

    options = [(_shape(s), s) for s in SHAPES]
    inp = widgets.Dropdown(options=options, value=tuple(in_shape), description="x shape")
    out = widgets.Dropdown(options=options, value=tuple(out_shape), description="to shape")
    inp.add_class("minigrad-ch05-in-shape")
    out.add_class("minigrad-ch05-out-shape")
    readout = ui.readout("minigrad-ch05-readout")
    box = ui.vbox([inp, out], readout)

    def refresh():
        box.view = BroadcastView(inp.value, out.value)
        readout.value = ui.pre(box.view.text())

    ui.redraw_on_change([inp, out], refresh)
    return box
