r"""The capstone's network and its checks (chapter 13).

The network is 64-32-10 on scikit-learn's digits: :math:`l_1 = x W_1 + b_1`,
:math:`a_1 = \mathrm{relu}(l_1)`, :math:`z = a_1 W_2 + b_2` (the logits),
:math:`\ell = \mathrm{log\_softmax}(z)` and the loss
:math:`L = -\frac{1}{N}\sum_n \ell_{n, y_n}`; weights have shape ``(in, out)``.

- :func:`broken_gradients` is torch's backward spoilt the way each of four common
  slips of a hand-written backward would spoil it (:data:`BREAKS`), so that the chapter
  can show what a wrong line does before the learner writes any line (no hand-written
  backward ships with the course: that is the chapter's exercises, and the instructor's
  reference is ``tests/capstone_solution.py``); :class:`BackwardCheck` compares them,
  intermediate by intermediate, with torch's autograd and says which is the first wrong
  one. :func:`break_widget` puts the switches behind check boxes.
- :func:`epoch_batches`, :func:`train_torch`, :func:`train_minigrad` and
  :func:`accuracy` train the same network (or logistic regression) on the same
  batches for the comparison plot.
"""

import html
from dataclasses import dataclass

import numpy as np

from minigrad.course.compare import _diff_text

__all__ = ["BREAKS", "STEPS", "BackwardCheck", "Row", "accuracy", "broken_gradients",
           "break_widget", "epoch_batches", "forward_numpy", "init_params",
           "load_digits_split", "torch_gradients", "train_minigrad", "train_torch"]

# The gradients of the backward pass, in the order it computes them.
STEPS = ("logp", "logits", "w2", "b2", "a1", "l1", "w1", "b1")

# Four common slips of a hand-written backward, described (not the lines themselves:
# those are the exercises' answers).
BREAKS = {
    "relu mask": "the ReLU's mask dropped: l1's gradient is a1's",
    "1/N": "the 1/N of the mean forgotten in the loss's gradient",
    "transpose": "the weights' gradients in torch's (out, in) layout",
    "bias sum axis": "the biases' gradients summed over the other axis",
}


def load_digits_split(n_train=1500, seed=0):
    """Digits scaled to [0, 1], shuffled with ``seed``: x_train, y_train, x_test, y_test."""
    data, target = load_digits_arrays()
    order = np.random.default_rng(seed).permutation(len(target))
    images, labels = data[order] / 16.0, target[order]
    return images[:n_train], labels[:n_train], images[n_train:], labels[n_train:]


def load_digits_arrays():
    """``sklearn.datasets.load_digits()``'s ``data`` and ``target``, read as it reads them
    from the file scikit-learn ships, without importing scikit-learn (1 s of CPU, in every
    kernel that runs chapter 13); scikit-learn's own loader where that file is not found."""
    import importlib.util
    import pathlib

    spec = importlib.util.find_spec("sklearn")  # finds the package, does not import it
    path = pathlib.Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz"
    if not path.is_file():
        from sklearn.datasets import load_digits

        digits = load_digits()
        return digits.data, digits.target
    data = np.loadtxt(path, delimiter=",")
    return data[:, :-1], data[:, -1].astype(int, copy=False)


def init_params(sizes=(64, 32, 10), seed=0):
    """Weights ``(in, out)`` drawn with ``seed``, scaled by sqrt(2 / in); biases 0."""
    rng = np.random.default_rng(seed)
    p = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True), 1):
        p[f"w{i}"] = rng.standard_normal((n_in, n_out)) * np.sqrt(2 / n_in)
        p[f"b{i}"] = np.zeros(n_out)
    return p


def forward_numpy(x, p):
    """Every value of the forward pass of the 64-32-10 network, by name."""
    l1 = x @ p["w1"] + p["b1"]
    a1 = np.maximum(l1, 0.0)
    logits = a1 @ p["w2"] + p["b2"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return {"x": x, "l1": l1, "a1": a1, "logits": logits, "logp": logp}


def broken_gradients(x, labels, p, breaks=()):
    """torch's gradients of :data:`STEPS`, spoilt as the slips named in ``breaks`` would.

    No hand-written backward: torch's autograd computes every gradient (``retain_grad``
    on the intermediates); a slip changes what torch differentiates (the ReLU made
    transparent to the gradient, the loss summed instead of averaged) or what is read off
    afterwards (the weights' gradients transposed, the biases' summed over the other
    axis of their layer's output gradient).
    """
    import torch

    unknown = set(breaks) - set(BREAKS)
    if unknown:
        raise KeyError(f"unknown break {sorted(unknown)}; known: {list(BREAKS)}")
    t = {name: torch.tensor(value, requires_grad=True) for name, value in p.items()}
    l1 = torch.tensor(x) @ t["w1"] + t["b1"]
    # the mask dropped: relu's value, with the identity's gradient
    a1 = l1 + (l1.relu() - l1).detach() if "relu mask" in breaks else l1.relu()
    logits = a1 @ t["w2"] + t["b2"]
    logp = torch.log_softmax(logits, dim=1)
    values = {"l1": l1, "a1": a1, "logits": logits, "logp": logp}
    for value in values.values():
        value.retain_grad()
    reduction = "sum" if "1/N" in breaks else "mean"
    torch.nn.functional.nll_loss(logp, torch.as_tensor(labels), reduction=reduction).backward()
    g = {name: (values | t)[name].grad.numpy() for name in STEPS}
    for w, b, out in (("w2", "b2", "logits"), ("w1", "b1", "l1")):
        if "transpose" in breaks:
            g[w] = g[w].T.copy()
        if "bias sum axis" in breaks:
            g[b] = g[out].sum(axis=1)
    return {name: g[name] for name in STEPS}


def torch_gradients(x, labels, p):
    """torch's gradients of :data:`STEPS` (``retain_grad`` on the intermediates)."""
    import torch

    t = {name: torch.tensor(value, requires_grad=True) for name, value in p.items()}
    l1 = torch.tensor(x) @ t["w1"] + t["b1"]
    a1 = l1.relu()
    logits = a1 @ t["w2"] + t["b2"]
    logp = torch.log_softmax(logits, dim=1)
    values = {"l1": l1, "a1": a1, "logits": logits, "logp": logp}
    for value in values.values():
        value.retain_grad()
    torch.nn.functional.nll_loss(logp, torch.as_tensor(labels)).backward()
    return {name: (values | t)[name].grad.numpy() for name in STEPS}


@dataclass(frozen=True)
class Row:
    """One gradient: its shape, torch's shape, the max abs difference, pass or not."""

    name: str
    shape: tuple
    torch_shape: tuple
    diff: float | None
    ok: bool


class BackwardCheck:
    """The hand-written backward of one batch against torch's, intermediate by intermediate.

    Works on its own copies of ``x``, ``labels`` and the parameters ``p`` (numpy arrays);
    torch's gradients are computed once.
    """

    def __init__(self, x, labels, p, rtol=1e-10, atol=1e-14):
        self.x = np.array(x, dtype=np.float64)
        self.labels = np.array(labels)
        self.p = {name: np.array(value, dtype=np.float64) for name, value in p.items()}
        self.rtol, self.atol = rtol, atol
        self.reference = torch_gradients(self.x, self.labels, self.p)

    def rows(self, breaks=()):
        ours = broken_gradients(self.x, self.labels, self.p, breaks)
        rows = []
        for name in STEPS:
            a, b = ours[name], self.reference[name]
            same = a.shape == b.shape
            ok = same and bool(np.allclose(a, b, rtol=self.rtol, atol=self.atol))
            diff = float(np.max(np.abs(a - b))) if same else None
            rows.append(Row(f"{name}.g", a.shape, b.shape, diff, ok))
        return rows

    def first_wrong(self, breaks=()):
        """The name of the first gradient that differs from torch's, or None."""
        return next((row.name for row in self.rows(breaks) if not row.ok), None)

    def table(self, breaks=()):
        return CheckRows(self.rows(breaks), tuple(breaks))


class CheckRows:
    """Rows of a :class:`BackwardCheck`, as text and as HTML (failing rows in red)."""

    HEADER = ("gradient", "shape", "torch's shape", "max abs diff", "result")

    def __init__(self, rows, breaks=()):
        self.rows = rows
        self.breaks = breaks

    @property
    def first_wrong(self):
        return next((row.name for row in self.rows if not row.ok), None)

    def _cells(self):
        for row in self.rows:
            yield (row.name, str(row.shape), str(row.torch_shape), _diff_text(row.diff),
                   "pass" if row.ok else "FAIL")

    def summary(self):
        broken = ", ".join(self.breaks) if self.breaks else "nothing"
        where = self.first_wrong or "none: every gradient matches torch"
        return f"broken: {broken}; first wrong gradient: {where}"

    def __repr__(self):
        cells = [self.HEADER, *self._cells()]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.HEADER))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                 for row in cells]
        return self.summary() + "\n" + "\n".join(lines)

    def _repr_html_(self):
        head = "".join(f"<th>{h}</th>" for h in self.HEADER)
        body = ""
        for cells in self._cells():
            ok = cells[-1] == "pass"
            style = "" if ok else " style='background:#fdd;color:#a00'"
            body += (f"<tr{style}>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells)
                     + "</tr>")
        return (f"<p>{html.escape(self.summary())}</p><table><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>")


def break_widget(check):
    """Check boxes that break one line each of the backward; the table against torch.

    CSS classes: ``minigrad-ch13-break-<name>`` on each box (``relu-mask``, ``1-n``,
    ``transpose``, ``bias-sum-axis``), ``minigrad-ch13-table`` on the table.
    """
    import ipywidgets as widgets

    boxes = {}
    for name, line in BREAKS.items():
        box = widgets.Checkbox(value=False, description=f"break: {line}", indent=False,
                               layout=widgets.Layout(width="auto"))
        box.add_class("minigrad-ch13-break-" + name.replace("/", "-").replace(" ", "-")
                      .lower())
        boxes[name] = box
    table = widgets.HTML()
    table.add_class("minigrad-ch13-table")

    def draw(change=None):
        breaks = [name for name, box in boxes.items() if box.value]
        table.value = check.table(breaks)._repr_html_()

    for box in boxes.values():
        box.observe(draw, names="value")
    draw()
    return widgets.VBox([*boxes.values(), table])


# --- training, for the comparison of chapter 13 -------------------------------------

def epoch_batches(n, batch, rng):
    """One epoch's batches: the rows in the order ``rng.permutation(n)``, cut every ``batch``."""
    order = rng.permutation(n)
    return [order[i:i + batch] for i in range(0, n, batch)]


def accuracy(p, x, labels):
    """The share of rows whose largest logit is the label (numpy parameters)."""
    h = x
    layers = len(p) // 2
    for i in range(1, layers + 1):
        h = h @ np.asarray(p[f"w{i}"]) + np.asarray(p[f"b{i}"])
        h = np.maximum(h, 0.0) if i < layers else h
    return float((h.argmax(axis=1) == labels).mean())


def train_torch(p0, data, epochs, batch, lr, seed, loss="cross_entropy"):
    """SGD with torch's autograd on ``p0``'s layers; per-step losses, per-epoch test accuracy.

    ``data`` is (x_train, y_train, x_test, y_test); ``loss`` is "cross_entropy" or "mse"
    (on one-hot rows). Batches come from :func:`epoch_batches` with ``seed``. The step is
    ``torch.optim.SGD``'s, written out as it computes it on the CPU (``add_(grad,
    alpha=-lr)``, grads set to None): the same numbers, bit for bit (tests/test_capstone.py),
    in two thirds of the time (the optimizer's bookkeeping is a third of a step here).
    """
    import torch

    x, y, x_test, y_test = data
    p = [torch.tensor(value, requires_grad=True) for value in p0.values()]
    layers = len(p) // 2
    x_t, y_t = torch.tensor(x), torch.as_tensor(y)
    onehot = torch.nn.functional.one_hot(y_t, 10).double()
    rng = np.random.default_rng(seed)
    losses, accs = [], []
    for _ in range(epochs):
        for rows in epoch_batches(len(x), batch, rng):
            h = x_t[rows]
            for i in range(layers):
                h = h @ p[2 * i] + p[2 * i + 1]
                h = h.relu() if i < layers - 1 else h
            if loss == "mse":
                value = torch.nn.functional.mse_loss(h, onehot[rows])
            else:
                value = torch.nn.functional.cross_entropy(h, y_t[rows])
            for t in p:
                t.grad = None  # optimizer.zero_grad()
            value.backward()
            with torch.no_grad():  # optimizer.step()
                for t in p:
                    t.add_(t.grad, alpha=-lr)
            losses.append(value.item())
        accs.append(accuracy(dict(zip(p0, [t.detach().numpy() for t in p], strict=True)),
                             x_test, y_test))
    return losses, accs


def train_minigrad(p0, data, epochs, batch, lr, seed):
    """The same training with minigrad's autograd (``cross_entropy``, ``optim.SGD``)."""
    import minigrad

    x, y, x_test, y_test = data
    p = [minigrad.tensor(value.copy(), requires_grad=True) for value in p0.values()]
    layers = len(p) // 2
    x_m = minigrad.tensor(x)
    optimizer = minigrad.optim.SGD(p, lr=lr)
    rng = np.random.default_rng(seed)
    losses, accs = [], []
    for _ in range(epochs):
        for rows in epoch_batches(len(x), batch, rng):
            h = x_m[rows]
            for i in range(layers):
                h = h @ p[2 * i] + p[2 * i + 1]
                h = h.relu() if i < layers - 1 else h
            value = minigrad.nn.functional.cross_entropy(h, y[rows])
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            losses.append(value.item())
        accs.append(accuracy(dict(zip(p0, [t._data for t in p], strict=True)), x_test, y_test))
    return losses, accs
