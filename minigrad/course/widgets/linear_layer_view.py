r"""A linear layer seen one number at a time (chapter 07).

:class:`LayerTouches` is the logic of the fast.ai forum thread's argument, for a batch
``X`` of shape ``(N, n)``, a weight ``w`` of shape ``(n, m)`` (the thread's layout:
:math:`f_j = \sum_i x_i w_{ij} + b_j`), a bias ``b`` and an incoming gradient ``G`` of
shape ``(N, m)``. Pick one number (:math:`x_{ki}`, :math:`w_{ij}` or :math:`b_j`) and it
says which outputs that number touches, and its gradient as the sum of one term per
output it touches and per example that uses it:

.. math:: \frac{\partial L}{\partial x_{ki}} = \sum_j g_{kj} w_{ij}, \qquad
          \frac{\partial L}{\partial w_{ij}} = \sum_k x_{ki} g_{kj}, \qquad
          \frac{\partial L}{\partial b_j} = \sum_k g_{kj}.

:class:`ReductionScale` holds the weight gradient of ``mse_loss`` with ``reduction="mean"``
and ``"sum"`` for every batch size up to a maximum, in minigrad and in torch: the mean
divides by all ``N * m`` elements, so its gradient keeps about the same size whatever
``N``; the sum's grows with ``N``.

:func:`layer_widget` and :func:`reduction_widget` draw them (ipywidgets + matplotlib,
imported when called).
"""

import numpy as np

from minigrad.course.widgets import controls as ui

__all__ = ["LayerTouches", "ReductionScale", "layer_widget", "reduction_widget"]


def _torch_grads(X, w, b, G):
    """dL/dX, dL/dw, dL/db from torch's autograd: the reference of every number here."""
    import torch

    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (X, w, b)]
    (ts[0] @ ts[1] + ts[2]).backward(torch.tensor(G, dtype=torch.float64))
    return tuple(t.grad.numpy() for t in ts)


class LayerTouches:
    """Which outputs one number of a linear layer touches, and its gradient term by term.

    ``pick(name)`` takes ``"x_ki"`` (input i of example k), ``"w_ij"`` or ``"b_j"``
    (1-based indices, as the thread writes them) and returns a dict: ``kind``, the
    0-based ``index``, ``outputs`` (the output columns j it touches), ``terms`` (one
    ``(k, j, factor, g)`` per example and output; the gradient is the sum of
    ``factor * g``), ``grad`` (that sum) and ``torch`` (torch's autograd on the same
    numbers).
    """

    def __init__(self, X, w, b, G):
        self.X, self.w = np.asarray(X, float), np.asarray(w, float)
        self.b, self.G = np.asarray(b, float), np.asarray(G, float)
        self.N, self.n = self.X.shape
        self.m = self.w.shape[1]
        if self.w.shape[0] != self.n or self.b.shape != (self.m,) or \
                self.G.shape != (self.N, self.m):
            raise ValueError("shapes: X (N, n), w (n, m), b (m,), G (N, m)")
        self.torch = dict(zip("xwb", _torch_grads(self.X, self.w, self.b, self.G),
                              strict=True))

    def names(self):
        """Every number one can pick: x_ki for example 1, then w_ij, then b_j."""
        xs = [f"x_1{i + 1}" for i in range(self.n)]
        ws = [f"w_{i + 1}{j + 1}" for i in range(self.n) for j in range(self.m)]
        return xs + ws + [f"b_{j + 1}" for j in range(self.m)]

    def pick(self, name):
        kind, digits = name[0], [int(c) - 1 for c in name[2:]]
        if kind == "x":
            k, i = digits
            terms = [(k, j, self.w[i, j], self.G[k, j]) for j in range(self.m)]
            outputs = list(range(self.m))
        elif kind == "w":
            i, j = digits
            terms = [(k, j, self.X[k, i], self.G[k, j]) for k in range(self.N)]
            outputs = [j]
        elif kind == "b":
            (j,) = digits
            terms = [(k, j, 1.0, self.G[k, j]) for k in range(self.N)]
            outputs = [j]
        else:
            raise ValueError(f"pick x_ki, w_ij or b_j, not {name!r}")
        grad = float(sum(f * g for _, _, f, g in terms))
        return {"kind": kind, "index": tuple(digits), "outputs": outputs, "terms": terms,
                "grad": grad, "torch": float(self.torch[kind][tuple(digits)])}

    def text(self, name):
        """The readout: what the number touches, the terms, the sum, and torch's value."""
        p = self.pick(name)
        outs = ", ".join(f"f_{j + 1}" for j in p["outputs"])
        lines = [f"{name} touches {outs}" + (" in every example" if p["kind"] != "x"
                                              else f" of example {p['index'][0] + 1} only")]
        rule = {"x": "sum over outputs j of g_kj * w_ij",
                "w": "sum over examples k of x_ki * g_kj",
                "b": "sum over examples k of g_kj"}[p["kind"]]
        lines.append(f"dL/d{name} = {rule}")
        terms = " + ".join(f"({f:.3g})({g:.3g})" for _, _, f, g in p["terms"])
        lines.append(f"  = {terms}")
        same = abs(p["grad"] - p["torch"]) <= 1e-12 + 1e-9 * abs(p["torch"])
        lines.append(f"  = {p['grad']:.6f}   torch: {p['torch']:.6f} "
                     + ("(matches)" if same else "(DIFFERS)"))
        return "\n".join(lines)


class ReductionScale:
    """The weight gradient of ``mse_loss`` for batch sizes 1..``max_batch``.

    A fixed layer ``pred = X @ W.T + b`` (``W`` of shape ``(m, n)``) on the first ``N``
    rows of seeded data. ``norms[reduction][N - 1]`` is the norm of ``W``'s gradient in
    minigrad, ``torch_norms`` the same from torch.
    """

    def __init__(self, max_batch=32, n=3, m=3, seed=0):
        import torch

        import minigrad

        rng = np.random.default_rng(seed)
        self.max_batch, self.m = max_batch, m
        self.X = rng.standard_normal((max_batch, n))
        self.Y = rng.standard_normal((max_batch, m))
        self.W = rng.standard_normal((m, n)) / np.sqrt(n)
        self.b = np.zeros(m)
        self.norms = {"mean": [], "sum": []}
        self.torch_norms = {"mean": [], "sum": []}
        for lib, store in [(minigrad, self.norms), (torch, self.torch_norms)]:
            for reduction in ("mean", "sum"):
                for N in range(1, max_batch + 1):
                    W = lib.tensor(self.W, requires_grad=True)
                    pred = lib.tensor(self.X[:N]) @ W.T + lib.tensor(self.b)
                    lib.nn.functional.mse_loss(pred, lib.tensor(self.Y[:N]),
                                               reduction=reduction).backward()
                    store[reduction].append(float(np.linalg.norm(W.grad.numpy())))

    def text(self, N):
        mean, tmean = self.norms["mean"][N - 1], self.torch_norms["mean"][N - 1]
        total, ttotal = self.norms["sum"][N - 1], self.torch_norms["sum"][N - 1]
        same = np.allclose([mean, total], [tmean, ttotal], rtol=1e-9, atol=1e-12)
        return (f"N = {N}: |weight.grad| mean {mean:.4f} (torch {tmean:.4f}), "
                f"sum {total:.4f} (torch {ttotal:.4f}) "
                + ("(matches torch)" if same else "(DIFFERS from torch)")
                + f"\nsum / mean = {total / mean:.1f} = N x m = {N} x {self.m}")


def _draw_layer(view, name):
    """The layer as a bipartite graph: inputs left, outputs right, biases below."""
    from matplotlib.figure import Figure

    p = view.pick(name)
    fig = Figure(figsize=(5.2, 3.2))
    ax = fig.subplots()
    n, m = view.n, view.m
    ys_in = np.linspace(1, 0, n)
    ys_out = np.linspace(0.85, 0.15, m)
    for i in range(n):
        for j in range(m):
            on = (p["kind"] == "x" and p["index"][1] == i) or \
                 (p["kind"] == "w" and p["index"] == (i, j))
            ax.plot([0, 1], [ys_in[i], ys_out[j]], color="tab:red" if on else "0.8",
                    lw=3 if on else 1, zorder=1)
            ax.text(0.3, ys_in[i] + 0.3 * (ys_out[j] - ys_in[i]) + 0.02, f"w_{i + 1}{j + 1}",
                    fontsize=7, color="tab:red" if on else "0.5")
    for j in range(m):
        on = p["kind"] == "b" and p["index"] == (j,)
        ax.plot([1, 1.35], [ys_out[j], ys_out[j] - 0.2], color="tab:red" if on else "0.8",
                lw=3 if on else 1, zorder=1)
        ax.text(1.38, ys_out[j] - 0.24, f"b_{j + 1}", fontsize=9,
                color="tab:red" if on else "0.3")
    for i in range(n):
        on = p["kind"] == "x" and p["index"][1] == i
        ax.scatter([0], [ys_in[i]], s=500, color="tab:red" if on else "tab:blue", zorder=2)
        ax.text(-0.12, ys_in[i], f"x_{i + 1}", ha="right", va="center")
    for j in range(m):
        on = j in p["outputs"]
        ax.scatter([1], [ys_out[j]], s=500, color="tab:orange" if on else "0.7", zorder=2)
        ax.text(1.1, ys_out[j] + 0.06, f"f_{j + 1}", va="center")
    ax.set_xlim(-0.4, 1.6)
    ax.set_ylim(-0.2, 1.1)
    ax.axis("off")
    ax.set_title(f"{name}: the outputs it touches are orange", fontsize=10)
    return fig


def layer_widget(X, w, b, G, start="w_21", dpi=72):
    """A dropdown of the layer's numbers, the diagram and the readout; returns a VBox.

    CSS classes: ``minigrad-ch07-pick`` (the dropdown), ``minigrad-ch07-layer``
    (the picture), ``minigrad-ch07-touches`` (the readout). Works on copies of the arrays.
    """
    import ipywidgets as widgets

    view = LayerTouches(np.array(X), np.array(w), np.array(b), np.array(G))
    pick = widgets.Dropdown(options=view.names(), value=start, description="pick")
    return ui.control_panel(pick.add_class("minigrad-ch07-pick"),
                            lambda name: _draw_layer(view, name), view.text,
                            "minigrad-ch07-layer", "minigrad-ch07-touches", dpi, view=view)


def _draw_reduction(scale, N):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2, 3.0))
    ax = fig.subplots()
    sizes = np.arange(1, scale.max_batch + 1)
    for reduction, color in [("mean", "tab:blue"), ("sum", "tab:orange")]:
        ax.plot(sizes, scale.norms[reduction], color=color, label=f"minigrad, {reduction}")
        ax.plot(sizes, scale.torch_norms[reduction], "k:", lw=1)
        ax.plot([N], [scale.norms[reduction][N - 1]], "o", color=color)
    ax.plot([], [], "k:", lw=1, label="torch (dotted)")
    ax.axvline(N, color="0.7", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("batch size N")
    ax.set_ylabel("|weight.grad|")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def reduction_widget(max_batch=32, start=8, dpi=72):
    """A batch-size slider, the two curves and the readout; returns a VBox.

    CSS classes: ``minigrad-ch07-batch`` (the slider), ``minigrad-ch07-scale`` (the
    picture), ``minigrad-ch07-scale-readout`` (the readout).
    """
    scale = ReductionScale(max_batch=max_batch)
    slider = ui.slider("minigrad-ch07-batch", "N", start, 1, max_batch, kind="int")
    return ui.control_panel(slider, lambda N: _draw_reduction(scale, N), scale.text,
                            "minigrad-ch07-scale", "minigrad-ch07-scale-readout", dpi,
                            scale=scale)
