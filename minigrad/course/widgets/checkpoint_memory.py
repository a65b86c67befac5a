r"""Gradient checkpointing on a deep MLP: memory kept for backward against extra forward
work (chapter 16).

The network is ``depth`` blocks, each :math:`h \mapsto \tanh(\tanh(h W_1) W_2)` with
seeded ``width x width`` float64 weights, on a seeded ``batch x width`` input that
requires grad. With ``every = k > 0`` the blocks are run in segments of ``k``, each
through ``checkpoint(segment, h, use_reentrant=True)`` (minigrad's and torch's); ``k = 0``
runs them plainly.

* :class:`CheckpointMemory` measures, in both libraries: the bytes kept for backward
  after the forward pass (minigrad: ``graph_memory.saved_bytes``; torch: its saved-tensor
  hooks, ``graph_memory.torch_saved_tensors``), both without the weights, which are kept
  anyway; the peak during backward (what is kept plus the graph of the largest segment,
  recorded again when backward reaches it); the bytes kept without checkpointing; how
  many block forwards the backward pass runs (counted); and whether the weights'
  gradients agree with torch's.
  ``measure()`` times forward + backward, best of ``repeats``. ``compare=False`` skips
  torch and the plain network (``torch_kept``, ``plain``... are then ``None``): what
  Exercise 16.4's check measures, many times.

:func:`checkpoint_memory_widget` draws it: a depth slider, an "every k blocks" slider, a
"measure" button and a readout.
"""

import numpy as np

import minigrad
from minigrad.course.graph_memory import saved_bytes, torch_saved_tensors
from minigrad.course.widgets import controls as ui
from minigrad.course.widgets.jacobian_modes import best_time

__all__ = ["CheckpointMemory", "best_time", "checkpoint_memory_widget"]


class CheckpointMemory:
    """A deep MLP run with checkpointing every ``every`` blocks (0: none), both libraries."""

    def __init__(self, depth=6, every=0, width=32, batch=16, seed=16, max_depth=12,
                 compare=True):
        self.compare = compare
        rng = np.random.default_rng(seed)
        self.width, self.batch = width, batch
        self.weights = [(rng.standard_normal((width, width)) / np.sqrt(width),
                         rng.standard_normal((width, width)) / np.sqrt(width))
                        for _ in range(max_depth)]
        self.x0 = rng.standard_normal((batch, width))
        self.calls = 0
        self.times = None
        self.set(depth, every)

    def set(self, depth, every):
        """Choose the depth (1 to max_depth) and the segment length (0: no checkpointing)."""
        if not 1 <= depth <= len(self.weights):
            raise ValueError(f"depth must be 1 to {len(self.weights)}, not {depth}")
        self.depth, self.every = depth, max(0, every)
        self.times = None
        self.results = self._run()

    # --- the network ------------------------------------------------------------------
    def segments(self):
        """The blocks' indices, one list per checkpointed segment (one list if none)."""
        blocks = list(range(self.depth))
        if not self.every:
            return [blocks]
        return [blocks[i:i + self.every] for i in range(0, self.depth, self.every)]

    def _params(self, lib):
        return [(lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True))
                for a, b in self.weights[:self.depth]]

    def _segment(self, params, indices):
        def run(h):
            for i in indices:
                self.calls += 1
                w1, w2 = params[i]
                h = ((h @ w1).tanh() @ w2).tanh()
            return h
        return run

    def forward(self, lib, params):
        """The network's output and its input, with this setting's checkpointing."""
        if lib is minigrad:
            from minigrad.utils.checkpoint import checkpoint
        else:
            from torch.utils.checkpoint import checkpoint
        x = lib.tensor(self.x0, requires_grad=True)
        h = x
        for indices in self.segments():
            run = self._segment(params, indices)
            h = checkpoint(run, h, use_reentrant=True) if self.every else run(h)
        return h, x

    def _run(self):
        import torch

        flat = []
        params = self._params(minigrad)
        for pair in params:
            flat += pair
        out, x = self.forward(minigrad, params)
        kept = saved_bytes(out, exclude=flat)
        peak_extra = 0
        plain = kept if self.compare else None
        if self.every:  # the largest segment, recorded again as backward reaches it; its
            # input is the array the checkpoint kept, not counted twice
            for indices in self.segments():
                h = minigrad.tensor(self.x0, requires_grad=True)
                inner = self._segment(params, indices)(h)
                peak_extra = max(peak_extra, saved_bytes(inner, exclude=[*flat, h]))
        if self.every and self.compare:
            every, self.every = self.every, 0
            try:
                plain = saved_bytes(self.forward(minigrad, params)[0], exclude=flat)
            finally:
                self.every = every
        self.calls = 0
        out.sum().backward()
        recomputed = self.calls
        if not self.compare:
            return {"kept": kept, "peak": kept + peak_extra, "plain": None,
                    "recomputed": recomputed, "torch_kept": None, "torch_count": None,
                    "grads_agree": None, "out": out._data.copy()}

        params_t = self._params(torch)
        flat_t = [w for pair in params_t for w in pair]
        (out_t, _), saved_t = torch_saved_tensors(lambda: self.forward(torch, params_t),
                                                  exclude=flat_t)
        out_t.sum().backward()
        grads_agree = all(np.allclose(m.grad._data, t.grad.numpy(), rtol=1e-10, atol=1e-12)
                          for m, t in zip(flat, flat_t, strict=True))
        return {"kept": kept, "peak": kept + peak_extra, "plain": plain, "recomputed": recomputed,
                "torch_kept": sum(b for _, b in saved_t), "torch_count": len(saved_t),
                "grads_agree": grads_agree, "out": out._data.copy()}

    def measure(self, repeats=5):
        """Best-of-``repeats`` seconds of minigrad's forward + backward: (this setting,
        no checkpointing)."""
        params = self._params(minigrad)
        every = self.every

        def step(k):
            self.every = k
            out, _ = self.forward(minigrad, params)
            out.sum().backward()

        try:
            self.times = (best_time(lambda: step(every), repeats),
                          best_time(lambda: step(0), repeats))
        finally:
            self.every = every
        return self.times

    # --- the readout --------------------------------------------------------------------
    def text(self):
        r = self.results
        setting = (f"checkpoint every {self.every} block(s): {len(self.segments())} segment(s)"
                   if self.every else "no checkpointing")
        scale = max(r["plain"], r["peak"], 1)

        def bar(n):
            return "#" * max(1, round(30 * n / scale)) if n else ""

        lines = [f"{self.depth} blocks of tanh(tanh(h W1) W2), batch {self.batch}, width "
                 f"{self.width}; {setting}",
                 f"kept for backward (minigrad) {r['kept'] / 1024:7.1f} KiB "
                 f"{bar(r['kept'])}",
                 f"kept for backward (torch)    {r['torch_kept'] / 1024:7.1f} KiB in "
                 f"{r['torch_count']} saved tensors",
                 f"peak during backward         {r['peak'] / 1024:7.1f} KiB {bar(r['peak'])}",
                 f"without checkpointing        {r['plain'] / 1024:7.1f} KiB "
                 f"{bar(r['plain'])}",
                 f"block forwards run again in backward: {r['recomputed']}",
                 "weight gradients match torch's" if r["grads_agree"]
                 else "weight gradients DIFFER from torch's"]
        if self.times is not None:
            now, plain = self.times
            lines.append(f"measured (best of 5): forward + backward {now * 1e3:.2f} ms, "
                         f"without checkpointing {plain * 1e3:.2f} ms")
        return "\n".join(lines)


def checkpoint_memory_widget(depth=6, every=0, seed=16):
    """Sliders for the depth and the segment length, a "measure" button, the readout.

    CSS classes: ``minigrad-ch16-depth``, ``minigrad-ch16-every``, ``minigrad-ch16-measure``,
    ``minigrad-ch16-readout``. The VBox's ``memory`` is the model.
    """
    memory = CheckpointMemory(depth, every, seed=seed)
    sliders = [ui.slider("minigrad-ch16-depth", "depth", depth, 1, 12, kind="int",
                         continuous_update=True),
               ui.slider("minigrad-ch16-every", "every k", every, 0, 12, kind="int",
                         continuous_update=True)]
    measure = ui.button("measure", "minigrad-ch16-measure")
    readout = ui.readout("minigrad-ch16-readout")

    def show():
        readout.value = ui.pre(memory.text())

    def change():
        memory.set(sliders[0].value, sliders[1].value)
        show()

    ui.redraw_on_change(sliders, change, draw=False)
    ui.on_click(measure, memory.measure, show)
    show()
    return ui.vbox(sliders, measure, readout, memory=memory)
