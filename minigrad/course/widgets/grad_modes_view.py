"""What ``no_grad``, ``inference_mode``, ``detach`` and ``eval`` each change, measured in
minigrad and in torch (chapter 09).

:class:`ModesComparison` holds one small network twice, in minigrad and in torch with the
same weights: ``Linear, ReLU, Dropout(0.5), Linear``. :meth:`ModesComparison.run` sends a
batch through both under a chosen set of modes and returns one :class:`Row` per quantity,
each measured by running the library, never assumed:

* ``grad_fn recorded``: does the output have a ``grad_fn``?
* ``requires_grad`` of the output;
* ``inference tensor``: ``is_inference()``, in both libraries;
* ``bytes saved by the forward``: what the forward pass saved for backward, parameters
  left out (``graph_memory``: minigrad's graph walked, torch's saved-tensor hooks). With
  ``detach`` it is counted before the output is detached: detaching afterwards does not
  undo what the forward pass saved;
* ``dropout active``: did the dropout layer change its input?

The modes: ``no_grad`` and ``inference_mode`` wrap the forward pass, ``detach`` detaches
its output, ``eval`` calls ``model.eval()`` first (``model.train()`` otherwise).
The dropout layer is ``minigrad.nn.Dropout`` (re-exported here as :class:`Dropout`), as
torch's on the CPU: in training it multiplies its input by a mask of zeros (probability
``p``) and ``1 / (1 - p)``, so the product's node (``MulBackward0``) saves the mask, a
float array the size of the input; in eval it returns its input.

:func:`modes_widget` puts a comparison behind four toggles and a batch-size slider, with
the table and a plot of bytes saved against batch size.
"""

import contextlib
from dataclasses import dataclass

import minigrad
from minigrad.course.graph_memory import saved_bytes, torch_saved_tensors
from minigrad.course.widgets import controls as ui

__all__ = ["MODES", "QUANTITIES", "BATCHES", "Dropout", "ModesComparison", "Row",
           "modes_widget", "table_text"]

MODES = ("no_grad", "inference_mode", "detach", "eval")
QUANTITIES = ("grad_fn recorded", "requires_grad", "inference tensor",
              "bytes saved by the forward", "dropout active")
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


Dropout = minigrad.nn.Dropout  # this module defined its own before minigrad had one


@dataclass(frozen=True)
class Row:
    """One quantity, as minigrad and torch give it."""

    name: str
    minigrad: object
    torch: object

    @property
    def agree(self):
        return self.minigrad is None or self.minigrad == self.torch


def _changed(before, after):
    return before is not after and (before.shape != after.shape or bool((before != after).any()))


class ModesComparison:
    """The same small network in minigrad and torch, run under chosen modes.

    Each call to :meth:`run` makes its own batch (seeded by its size) and reseeds both
    dropout generators (torch's and minigrad's global ones), so the same arguments give
    the same rows on every call.
    """

    def __init__(self, n_in=16, hidden=32, n_out=4, p=0.5, seed=0):
        import torch

        self.seed = seed
        torch.manual_seed(seed)
        self.torch_model = torch.nn.Sequential(
            torch.nn.Linear(n_in, hidden), torch.nn.ReLU(), torch.nn.Dropout(p),
            torch.nn.Linear(hidden, n_out))
        self.model = minigrad.nn.Sequential(
            minigrad.nn.Linear(n_in, hidden), minigrad.nn.ReLU(), minigrad.nn.Dropout(p),
            minigrad.nn.Linear(hidden, n_out))
        self.model.load_state_dict(self.torch_model.state_dict())
        self.n_in = n_in
        self._seen = {}
        self._curves = {}
        self.torch_model[2].register_forward_hook(self._torch_dropout_hook)

    def _torch_dropout_hook(self, module, inputs, output):
        self._seen["torch"] = _changed(inputs[0], output)

    def _minigrad_forward(self, x):
        hidden = self.model[1](self.model[0](x))
        dropped = self.model[2](hidden)
        self._seen["minigrad"] = _changed(hidden.data, dropped.data)
        return self.model[3](dropped)

    def run(self, modes=(), batch=8):
        """The rows of :data:`QUANTITIES` for one forward pass of ``batch`` rows."""
        import torch

        unknown = set(modes) - set(MODES)
        if unknown:
            raise ValueError(f"unknown modes {sorted(unknown)}; choose from {MODES}")
        torch.manual_seed(self.seed + batch)
        x_t = torch.randn(batch, self.n_in)
        x = minigrad.tensor(x_t.numpy().copy())
        minigrad.manual_seed(self.seed + batch)
        for model in (self.model, self.torch_model):
            model.train("eval" not in modes)
        params = list(self.model.parameters())
        with contextlib.ExitStack() as stack:
            if "no_grad" in modes:
                stack.enter_context(minigrad.no_grad())
            if "inference_mode" in modes:
                stack.enter_context(minigrad.inference_mode())
            out = self._minigrad_forward(x)
        ours_saved = saved_bytes(out, params)
        with contextlib.ExitStack() as stack:
            if "no_grad" in modes:
                stack.enter_context(torch.no_grad())
            if "inference_mode" in modes:
                stack.enter_context(torch.inference_mode())
            out_t, saved_t = torch_saved_tensors(
                lambda: self.torch_model(x_t), exclude=list(self.torch_model.parameters()))
        if "detach" in modes:
            out, out_t = out.detach(), out_t.detach()
        ours_inference = out.is_inference() if hasattr(out, "is_inference") else None
        self.outputs = (out, out_t)
        return [
            Row("grad_fn recorded", out.grad_fn is not None, out_t.grad_fn is not None),
            Row("requires_grad", out.requires_grad, out_t.requires_grad),
            Row("inference tensor", ours_inference, out_t.is_inference()),
            Row("bytes saved by the forward", ours_saved, sum(b for _, b in saved_t)),
            Row("dropout active", self._seen["minigrad"], self._seen["torch"]),
        ]

    def saved_curve(self, modes=(), batches=BATCHES):
        """``(batch, minigrad bytes, torch bytes)`` for each batch size (kept: the same
        arguments give the same curve)."""
        key = (tuple(m for m in MODES if m in modes), tuple(batches))
        if key not in self._curves:
            self._curves[key] = self._measure_curve(modes, batches)
        return self._curves[key]

    def _measure_curve(self, modes, batches):
        curve = []
        for batch in batches:
            row = self.run(modes, batch)[QUANTITIES.index("bytes saved by the forward")]
            curve.append((batch, row.minigrad, row.torch))
        return curve


def _cell(value):
    if value is None:
        return "not marked"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:,}"


def table_text(rows, modes=(), batch=None):
    """The rows as plain text: quantity, minigrad, torch, and whether they agree."""
    title = "modes: " + (", ".join(m for m in MODES if m in modes) or "none (training)")
    if batch is not None:
        title += f"; batch {batch}"
    lines = [title, f"{'':28s}{'minigrad':>12s}{'torch':>12s}  same?"]
    for row in rows:
        same = "same" if row.minigrad is not None and row.agree else (
            "-" if row.minigrad is None else "DIFFERENT")
        lines.append(f"{row.name:28s}{_cell(row.minigrad):>12s}{_cell(row.torch):>12s}  {same}")
    return "\n".join(lines)


def _plot(curve, batch):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2, 2.8))
    ax = fig.add_subplot()
    sizes = [b for b, _, _ in curve]
    ax.plot(sizes, [m / 1024 for _, m, _ in curve], "o-", label="minigrad")
    ax.plot(sizes, [t / 1024 for _, _, t in curve], "k:", lw=2, label="torch")
    current = [m for b, m, _ in curve if b == batch]
    if current:
        ax.plot([batch], [current[0] / 1024], "s", color="tab:red", ms=9,
                label=f"batch {batch}")
    ax.set(xscale="log", xlabel="batch size", ylabel="KiB saved",
           title="bytes saved by the forward pass")
    ax.set_xticks(sizes, [str(b) for b in sizes])
    ax.legend(loc="upper left", fontsize=8)
    fig.subplots_adjust(left=0.14, right=0.97, bottom=0.17, top=0.89)
    return fig


def modes_widget(comparison=None, batch=8):
    """Four toggles (one per mode), a batch-size slider, the table and the bytes plot.

    CSS classes for a browser test: ``minigrad-ch09-<mode>`` (the toggles, ``<mode>`` one
    of :data:`MODES` with ``_`` written ``-``), ``minigrad-ch09-batch`` (the slider),
    ``minigrad-ch09-table`` (the readout), ``minigrad-ch09-plot`` (the image). The
    widget makes its own :class:`ModesComparison` unless given one; its ``comparison``
    attribute is the one it drives.
    """
    import ipywidgets as widgets

    comparison = comparison or ModesComparison()
    toggles = [widgets.ToggleButton(value=False, description=mode).add_class(
        "minigrad-ch09-" + mode.replace("_", "-")) for mode in MODES]
    slider = widgets.SelectionSlider(options=list(BATCHES), value=batch,
                                     description="batch", continuous_update=False)
    slider.add_class("minigrad-ch09-batch")
    readout = ui.readout("minigrad-ch09-table")
    image = ui.png_image("minigrad-ch09-plot", layout=widgets.Layout(width="480px"))

    def refresh():
        modes = tuple(m for m, toggle in zip(MODES, toggles, strict=True) if toggle.value)
        rows = comparison.run(modes, slider.value)
        ui.show_figure(image, _plot(comparison.saved_curve(modes), slider.value), 72)
        # The table last: when its text has changed, the picture has been sent too.
        readout.value = ui.pre(table_text(rows, modes, slider.value))

    ui.redraw_on_change([*toggles, slider], refresh)
    return ui.vbox(toggles, slider, readout, image, comparison=comparison)
