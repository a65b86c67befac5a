r"""What a finite difference computes, number by number, and the eps explorer (chapter 11).

:class:`FiniteDifference` is the logic: for a function ``fn`` at a point ``x``, a step
``eps``, a dtype (float32 or float64) and a kind (one-sided or central) it computes the
estimate the way chapter 11 does, with minigrad tensors,

.. math:: \frac{f(x + \epsilon) - f(x)}{\epsilon} \quad\text{or}\quad
          \frac{f(x + \epsilon) - f(x - \epsilon)}{2 \epsilon},

and keeps every number on the way as it is stored: :math:`x \pm \epsilon` after
rounding to the dtype, the step actually taken (their difference, not
:math:`2\epsilon`), the two values of :math:`f`, the estimate, and its error against
torch's autograd. Beside it, the error model: truncation
(:math:`\tfrac{\epsilon}{2}|f''|` one-sided, :math:`\tfrac{\epsilon^2}{6}|f'''|` central)
and round-off, :math:`u\,(|x f'(x)| + |f(x)|) / \epsilon`, where :math:`u` is the unit
roundoff: the first term is the rounding of :math:`x + \epsilon`, the second that of
the values of :math:`f`. :func:`eps_explorer` puts it behind a log-scale slider and two
toggles.
"""

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from minigrad.course.widgets import controls as ui

__all__ = ["Estimate", "FiniteDifference", "eps_explorer", "exact_decimal", "UNIT_ROUNDOFF"]

UNIT_ROUNDOFF = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}
KINDS = ("central", "one-sided")


def exact_decimal(value):
    """The exact decimal value of a binary float (float32 or float64): every digit."""
    return str(Decimal(float(value)))


@dataclass(frozen=True)
class Estimate:
    """One finite difference, every number as stored in ``dtype``."""

    eps: float
    dtype: str
    kind: str
    plus: float        # x + eps, rounded to dtype
    minus: float       # x - eps rounded (central), or x itself (one-sided)
    step: float        # plus - minus: the step actually taken (exact)
    f_plus: float
    f_minus: float
    estimate: float    # (f_plus - f_minus) / (2 eps or eps), computed in dtype
    by_step: float     # (f_plus - f_minus) / step, in float64
    exact: float       # torch's autograd, float64
    error: float       # estimate - exact


class FiniteDifference:
    """Finite differences of ``fn`` at ``x``; ``fn`` runs on minigrad and torch tensors.

    ``exact``, ``second`` and ``third`` are f', f'' and f''' at ``x`` from torch's autograd
    (float64); ``value`` is f(x).
    """

    def __init__(self, fn, x, label="f(x)"):
        import torch

        self.fn, self.x, self.label = fn, float(x), label
        t = torch.tensor(self.x, dtype=torch.float64, requires_grad=True)
        y = fn(t)
        (d1,) = torch.autograd.grad(y, t, create_graph=True)
        (d2,) = torch.autograd.grad(d1, t, create_graph=True)
        d3 = torch.autograd.grad(d2, t, allow_unused=True)[0] if d2.requires_grad else None
        self.value, self.exact, self.second = y.item(), d1.item(), d2.item()
        self.third = 0.0 if d3 is None else d3.item()
        self._curves = {}

    def _points(self, eps, dtype, kind):
        """x + eps and x - eps (or x) as minigrad tensors of ``dtype``, the divisor."""
        import minigrad

        dt = getattr(minigrad, dtype)
        eps = np.asarray(eps, dtype=np.float64)
        plus = minigrad.tensor(self.x + eps, dtype=dt)
        if kind == "central":
            return plus, minigrad.tensor(self.x - eps, dtype=dt), 2 * eps
        return plus, minigrad.tensor(np.full(eps.shape, self.x), dtype=dt), eps

    def estimate(self, eps, dtype="float32", kind="central"):
        """One estimate, with every number on the way (an :class:`Estimate`)."""
        if dtype not in UNIT_ROUNDOFF or kind not in KINDS:
            raise ValueError(f"dtype is one of {list(UNIT_ROUNDOFF)}, kind one of {KINDS}")
        eps = float(eps)
        plus, minus, divisor = self._points(eps, dtype, kind)
        f_plus, f_minus = self.fn(plus), self.fn(minus)
        estimate = ((f_plus - f_minus) / float(divisor)).item()
        step = float(plus.item()) - float(minus.item())  # exact: both are close floats
        difference = float(f_plus.item()) - float(f_minus.item())
        return Estimate(eps, dtype, kind, float(plus.item()), float(minus.item()), step,
                        float(f_plus.item()), float(f_minus.item()), estimate,
                        difference / step if step else float("nan"), self.exact,
                        estimate - self.exact)

    def curve(self, dtype, kind, steps):
        """|estimate - exact| for every step in ``steps`` (one tensor computation, cached)."""
        key = (dtype, kind, tuple(np.asarray(steps, dtype=np.float64)))
        if key not in self._curves:
            import minigrad

            plus, minus, divisor = self._points(steps, dtype, kind)
            ours = (self.fn(plus) - self.fn(minus)) / minigrad.tensor(divisor, dtype=plus.dtype)
            self._curves[key] = np.abs(ours.data.astype(np.float64) - self.exact)
        return self._curves[key]

    def truncation(self, eps, kind):
        """The truncation error model: |f''| eps / 2 (one-sided), |f'''| eps^2 / 6 (central)."""
        eps = np.asarray(eps, dtype=np.float64)
        if kind == "central":
            return abs(self.third) * eps ** 2 / 6
        return abs(self.second) * eps / 2

    def roundoff(self, eps, dtype):
        """The round-off error model: u (|x f'(x)| + |f(x)|) / eps."""
        scale = abs(self.x * self.exact) + abs(self.value)
        return UNIT_ROUNDOFF[dtype] * scale / np.asarray(eps, dtype=np.float64)

    def lost_below(self, dtype):
        """Half the spacing of ``dtype``'s numbers at x: a smaller eps leaves x + eps = x."""
        return float(np.spacing(getattr(np, dtype)(abs(self.x)))) / 2


def readout_lines(fd, e):
    """The explorer's text for one :class:`Estimate`."""
    formula = "f(x+eps) - f(x-eps)" if e.kind == "central" else "f(x+eps) - f(x)"
    divisor = "2 eps" if e.kind == "central" else "eps"
    asked = 2 * e.eps if e.kind == "central" else e.eps
    minus_name = "x - eps" if e.kind == "central" else "x      "
    lines = [
        f"{fd.label} at x = {fd.x:g}, eps = {e.eps:.3e}, {e.dtype}, {e.kind}",
        f"x + eps as stored:  {exact_decimal(e.plus)}",
        f"{minus_name} as stored:  {exact_decimal(e.minus)}",
        f"step taken: {e.step:.6e}   (asked for {divisor} = {asked:.6e})",
        f"estimate ({formula}) / {divisor}:  {e.estimate:.10g}",
        "the same difference / the step taken:  "
        + (f"{e.by_step:.10g}" if e.step else "none (no step taken)"),
        f"torch's autograd: {e.exact:.10g}   error of the estimate: {e.error:+.3e}",
        f"model: truncation {float(fd.truncation(e.eps, e.kind)):.1e}, "
        f"round-off {float(fd.roundoff(e.eps, e.dtype)):.1e}",
    ]
    if e.step == 0:
        lines.append(f"the step is lost: eps <= {fd.lost_below(e.dtype):.3e}, half the spacing "
                     f"of {e.dtype} numbers at x, so x + eps rounds to x")
    return lines


def eps_explorer(fn, x, label="f(x)", eps=1e-4, steps=None, dpi=90):
    """A log-scale eps slider, float32/float64 and central/one-sided toggles, the readout of
    :func:`readout_lines` and the error curve with its models, the current eps marked.

    CSS classes for a browser test: ``minigrad-ch11-eps``, ``minigrad-ch11-dtype``,
    ``minigrad-ch11-kind``, ``minigrad-ch11-readout``, ``minigrad-ch11-plot``. The VBox's
    ``fd`` attribute is its :class:`FiniteDifference` (it holds ``fn`` and ``x`` only).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    fd = FiniteDifference(fn, x, label)
    steps = np.logspace(-1, -12, 45) if steps is None else np.asarray(steps)
    slider = ui.slider("minigrad-ch11-eps", "eps", eps, -12, -1, 0.25, kind="log",
                       readout_format=".2e")
    dtype = widgets.ToggleButtons(options=["float32", "float64"], value="float32",
                                  description="dtype").add_class("minigrad-ch11-dtype")
    kind = widgets.ToggleButtons(options=list(KINDS), value="central",
                                 description="kind").add_class("minigrad-ch11-kind")
    readout, plot = ui.readout("minigrad-ch11-readout"), ui.png_image("minigrad-ch11-plot")

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    plt.close(fig)  # drawn into the Image below, never shown by pyplot
    measured_line, = ax.loglog(steps, steps, "o-", markersize=3)
    truncation_line, = ax.loglog(steps, steps, "k:", label="truncation model")
    roundoff_line, = ax.loglog(steps, steps, "k--", label="round-off model")
    eps_line = ax.axvline(eps, color="tab:red", linewidth=1)
    marker, = ax.loglog([eps], [1.0], "D", color="tab:red")
    ax.set_ylim(1e-17, 1e3)
    ax.set_xlabel("eps")
    ax.set_ylabel("|estimate - f'(x)|")
    ax.set_title(f"{label} at x = {fd.x:g}; an error of 0 drawn at 1e-17", fontsize=9)
    fig.subplots_adjust(left=0.13, right=0.97, bottom=0.14, top=0.92)

    def draw():
        e = fd.estimate(slider.value, dtype.value, kind.value)
        readout.value = ui.pre(readout_lines(fd, e))
        measured_line.set_ydata(np.maximum(fd.curve(dtype.value, kind.value, steps), 1e-17))
        measured_line.set_label(f"measured, {dtype.value} {kind.value}")
        truncation = fd.truncation(steps, kind.value)
        truncation_line.set_ydata(np.where(truncation > 0, truncation, np.nan))
        roundoff_line.set_ydata(fd.roundoff(steps, dtype.value))
        eps_line.set_xdata([e.eps, e.eps])
        marker.set_data([e.eps], [max(abs(e.error), 1e-17)])
        marker.set_label(f"eps = {e.eps:.2e}")
        ax.legend(fontsize=7, loc="lower left", ncols=2)
        ui.show_figure(plot, fig, dpi)

    ui.redraw_on_change([slider, dtype, kind], draw)
    return ui.vbox(slider, [dtype, kind], readout, plot, fd=fd)
