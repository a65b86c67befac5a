r"""Chapter 13's line-by-line puzzle (Exercise 13.8, after Karpathy's "Becoming a Backprop
Ninja"): torch's gradient of every intermediate of the puzzle's forward pass, read with
``retain_grad()``, and Karpathy's comparison table (exact / approximate / max diff).

Every gradient here comes from torch's autograd, never from a hand-written backward: the
exercise's check switches autograd off while the learner's code runs, so nothing here can
answer it. The ``variant`` of :func:`torch_puzzle` runs the same forward with one path cut
(``detach``) or one gradient rescaled: what the test cell names as a common slip.
"""

import html

import numpy as np

__all__ = ["EPS", "ORDER", "PARAMS", "cmp_table", "torch_puzzle"]

EPS = 1e-5
# the gradients of the puzzle, in the order a backward computes them (the loss up)
ORDER = ("logprobs", "probs", "counts_sum_inv", "counts_sum", "counts", "norm_logits",
         "logit_maxes", "logits", "h", "w2", "b2", "bnraw", "bnvar_inv", "bnvar", "bndiff2",
         "bndiff", "bnmeani", "hprebn", "w1")
PARAMS = ("w1", "w2", "b2")
# a value of one number per row (column) used across it: its gradient before the sum
WIDE = {"counts_sum_inv": "counts", "logit_maxes": "logits", "bnvar_inv": "bndiff",
        "bnmeani": "hprebn"}
VARIANTS = (None, "cut bndiff2", "cut bnmeani", "cut counts_sum", "mean undivided")


def torch_puzzle(x, labels, p, variant=None):
    """The puzzle's forward and backward in torch (float64): (values, gradients), numpy.

    ``gradients`` holds every name of :data:`ORDER`, and ``name + ":wide"`` for the values
    of :data:`WIDE` (the gradient of the value spread over the row or column it is used
    across, before the sum). ``variant``: ``"cut NAME"`` computes NAME from a detached
    copy of its input (that path carries no gradient); ``"mean undivided"`` sends the
    mean's gradient back to ``hprebn`` without the 1/n.
    """
    import torch

    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {VARIANTS}")
    x_t = torch.tensor(np.asarray(x, dtype=np.float64))
    q = {name: torch.tensor(np.asarray(p[name], dtype=np.float64), requires_grad=True)
         for name in PARAMS}
    n = x_t.shape[0]
    v, wide = {}, {}

    def cut(name, t):
        return t.detach() if variant == f"cut {name}" else t

    def spread(name, t, like):
        wide[name] = t.expand_as(like)
        return wide[name]

    v["hprebn"] = x_t @ q["w1"]
    total = cut("bnmeani", v["hprebn"]).sum(0, keepdim=True)
    v["bnmeani"] = total / n
    if variant == "mean undivided":  # the same value, the gradient of the sum
        v["bnmeani"] = total + (total / n - total).detach()
    v["bndiff"] = v["hprebn"] - spread("bnmeani", v["bnmeani"], v["hprebn"])
    v["bndiff2"] = cut("bndiff2", v["bndiff"]) ** 2
    v["bnvar"] = v["bndiff2"].sum(0, keepdim=True) / (n - 1)
    v["bnvar_inv"] = (v["bnvar"] + EPS) ** -0.5
    v["bnraw"] = v["bndiff"] * spread("bnvar_inv", v["bnvar_inv"], v["bndiff"])
    v["h"] = v["bnraw"].tanh()
    v["logits"] = v["h"] @ q["w2"] + q["b2"]
    v["logit_maxes"] = v["logits"].max(1, keepdim=True).values
    v["norm_logits"] = v["logits"] - spread("logit_maxes", v["logit_maxes"], v["logits"])
    v["counts"] = v["norm_logits"].exp()
    v["counts_sum"] = cut("counts_sum", v["counts"]).sum(1, keepdim=True)
    v["counts_sum_inv"] = v["counts_sum"] ** -1
    v["probs"] = v["counts"] * spread("counts_sum_inv", v["counts_sum_inv"], v["counts"])
    v["logprobs"] = v["probs"].log()
    loss = -v["logprobs"][torch.arange(n), torch.as_tensor(np.asarray(labels))].mean()
    for t in (*v.values(), *wide.values()):
        if t.requires_grad:  # a cut path carries none
            t.retain_grad()
    loss.backward()
    values = {"x": x_t.numpy()} | {name: t.detach().numpy() for name, t in v.items()}
    values["loss"] = loss.detach().numpy()
    grads = {name: _grad((v | q)[name]) for name in ORDER}
    grads |= {f"{name}:wide": _grad(t) for name, t in wide.items()}
    return values, grads


def _grad(t):
    return None if t.grad is None else t.grad.numpy()


def _numpy(value):
    from minigrad.course.compare import to_numpy

    try:
        return to_numpy(value)
    except (TypeError, ValueError):
        return None


class CmpTable:
    """Karpathy's ``cmp`` rows: for each gradient, exact (every entry equal), approximate
    (close with the check's tolerance) and the largest absolute difference."""

    HEADER = ("gradient", "shape", "exact", "approximate", "max diff")

    def __init__(self, yours, reference, rtol=1e-10, atol=1e-14, order=ORDER):
        self.rows = []
        for name in order:
            a, b = _numpy(yours.get(name)) if isinstance(yours, dict) else None, reference[name]
            if a is None or a.shape != b.shape:
                shape = "missing" if a is None else f"{a.shape}, torch {b.shape}"
                self.rows.append((f"d{name}", shape, "False", "False", "-"))
                continue
            diff = float(np.max(np.abs(a - b))) if a.size else 0.0
            self.rows.append((f"d{name}", str(a.shape), str(bool(np.array_equal(a, b))),
                              str(bool(np.allclose(a, b, rtol=rtol, atol=atol))),
                              f"{diff:.1e}"))

    def __repr__(self):
        cells = [self.HEADER, *self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.HEADER))]
        return "\n".join(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
                         .rstrip() for row in cells)

    def _repr_html_(self):
        head = "".join(f"<th>{h}</th>" for h in self.HEADER)
        body = "".join(
            ("<tr>" if row[3] == "True" else "<tr style='background:#fdd;color:#a00'>")
            + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def cmp_table(yours, reference, rtol=1e-10, atol=1e-14):
    """The :class:`CmpTable` of a dict of gradients against torch's (``reference``)."""
    return CmpTable(yours, reference, rtol, atol)
