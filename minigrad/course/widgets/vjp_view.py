r"""``y.backward(g)`` with a ``g`` you choose, and the Jacobian one backward pass per row
(chapter 06).

For ``y = tanh(A x)`` (a fixed matrix ``A``, a point ``x0``):

* :class:`VJPView`: ``set_g(g)`` runs ``y.backward(g)`` in minigrad and in torch, each on a
  fresh graph of its own, and keeps both ``x.grad`` (:math:`g^\top J`).
* :class:`JacobianFiller`: ``next_row()`` runs one more backward pass, with the one-hot
  :math:`e_i`, on one retained graph, clearing ``x.grad`` first; row :math:`i` of the
  Jacobian is that ``x.grad``. Each row is compared with torch's
  ``torch.autograd.functional.jacobian``.

:func:`vjp_widget` draws both: one slider per entry of ``g`` with ``x.grad`` live, and a
"next row" button that fills the Jacobian.
"""

import numpy as np

import minigrad
from minigrad.course.widgets import controls as ui

__all__ = ["VJPView", "JacobianFiller", "vjp_widget"]


def _vector(v):
    return "(" + ", ".join(f"{x:+.4f}" for x in v) + ")"


class _Tanh:
    def __init__(self, A, x0):
        self.A = np.array(A, dtype=np.float64)
        self.x0 = np.array(x0, dtype=np.float64)
        self.m = self.A.shape[0]

    def minigrad_graph(self):
        x = minigrad.tensor(self.x0.copy(), requires_grad=True)
        return x, (minigrad.tensor(self.A) @ x).tanh()

    def torch_graph(self):
        import torch

        x = torch.tensor(self.x0.copy(), requires_grad=True)
        return x, torch.tanh(torch.tensor(self.A) @ x)


class VJPView(_Tanh):
    """``x.grad`` after ``y.backward(g)``, minigrad and torch, for the ``g`` last set."""

    def __init__(self, A, x0, g=None):
        super().__init__(A, x0)
        self.set_g(np.ones(self.m) if g is None else g)

    def set_g(self, g):
        import torch

        self.g = np.array(g, dtype=np.float64)
        x, y = self.minigrad_graph()
        y.backward(minigrad.tensor(self.g))
        self.grad = x.grad.data
        xt, yt = self.torch_graph()
        yt.backward(torch.tensor(self.g))
        self.torch_grad = xt.grad.numpy()
        return self.grad

    @property
    def matches(self):
        return bool(np.allclose(self.grad, self.torch_grad, rtol=1e-12, atol=1e-15))

    def text(self):
        return (f"g      = {_vector(self.g)}\n"
                f"x.grad = {_vector(self.grad)}   (g^T J, minigrad)\n"
                f"torch  = {_vector(self.torch_grad)}   "
                + ("matches" if self.matches else "DIFFERS"))


class JacobianFiller(_Tanh):
    """The Jacobian of ``y`` at ``x0``, filled one backward pass (one row) at a time."""

    def __init__(self, A, x0):
        import torch

        super().__init__(A, x0)
        self.reference = torch.autograd.functional.jacobian(
            lambda t: torch.tanh(torch.tensor(self.A) @ t), torch.tensor(self.x0)).numpy()
        self.reset()

    def reset(self):
        self.x, self.y = self.minigrad_graph()
        self.rows = []

    @property
    def done(self):
        return len(self.rows) == self.m

    def next_row(self):
        """One backward pass with e_i; returns row i."""
        if self.done:
            raise IndexError(f"all {self.m} rows are filled: press reset")
        i = len(self.rows)
        self.x.grad = None  # backward adds into x.grad (chapter 08)
        e_i = np.zeros(self.m)
        e_i[i] = 1.0
        self.y.backward(minigrad.tensor(e_i), retain_graph=i < self.m - 1)  # kept for the next row
        self.rows.append(self.x.grad.data.copy())
        return self.rows[-1]

    @property
    def matches(self):
        return all(np.allclose(row, self.reference[i], rtol=1e-12, atol=1e-15)
                   for i, row in enumerate(self.rows))

    def text(self):
        n = len(self.x0)
        lines = [f"backward passes: {len(self.rows)} of {self.m} (one per row)"]
        for i in range(self.m):
            cells = self.rows[i] if i < len(self.rows) else [None] * n
            lines.append(f"row {i}: " + "  ".join(
                "   .    " if c is None else f"{c:+.4f}" for c in cells))
        lines.append(("rows so far match torch's jacobian" if self.matches
                      else "rows DIFFER from torch's jacobian") if self.rows else
                     "press 'next row': one backward pass with e_0 = (1, 0, ..., 0)")
        return "\n".join(lines)


def vjp_widget(A, x0):
    """Sliders for g with x.grad live; a "next row" and a "reset" button with the Jacobian.

    CSS classes: ``minigrad-ch06-g0`` ... (one slider per output),
    ``minigrad-ch06-vjp-readout``, ``minigrad-ch06-next-row``, ``minigrad-ch06-reset``,
    ``minigrad-ch06-jacobian``. The VBox's ``vjp`` and ``filler`` are the two models.
    """
    vjp, filler = VJPView(A, x0), JacobianFiller(A, x0)
    sliders = [ui.slider(f"minigrad-ch06-g{i}", f"g[{i}]", 1.0, -2.0, 2.0, 0.5,
                         continuous_update=True) for i in range(vjp.m)]
    vjp_out = ui.readout("minigrad-ch06-vjp-readout")
    next_row = ui.button("next row", "minigrad-ch06-next-row")
    reset = ui.button("reset", "minigrad-ch06-reset")
    jac_out = ui.readout("minigrad-ch06-jacobian")

    def show_vjp():
        vjp.set_g([s.value for s in sliders])
        vjp_out.value = ui.pre(vjp.text())

    def show_jacobian():
        jac_out.value = ui.pre(filler.text())

    ui.redraw_on_change(sliders, show_vjp)
    ui.wire_step_controls(filler, show_jacobian, next_row, reset, step=filler.next_row)
    return ui.vbox([ui.vbox(*sliders), vjp_out], [next_row, reset], jac_out, vjp=vjp,
                   filler=filler)
