r"""The instructor's reference: chapter 13's backward of the 64-32-10 network, in numpy.

Kept out of the installed package (``minigrad.course.capstone``), since it is the answer
to Exercises 13.1, 13.3 and 13.5; ``tests/test_capstone.py`` checks it against torch.
"""

import numpy as np

from minigrad.course.capstone import STEPS, forward_numpy


def backward_numpy(x, labels, p):
    """The gradients of :data:`~minigrad.course.capstone.STEPS`, by hand."""
    v = forward_numpy(x, p)
    onehot = np.eye(v["logits"].shape[1])[labels]
    g = {"logp": -onehot / len(x)}
    g["logits"] = g["logp"] - np.exp(v["logp"]) * g["logp"].sum(axis=1, keepdims=True)

    def lin(inp, out, w, b):
        g[w] = v[inp].T @ g[out]
        g[b] = g[out].sum(axis=0)
        g[inp] = g[out] @ p[w].T

    lin("a1", "logits", "w2", "b2")
    g["l1"] = g["a1"] * (v["l1"] > 0)
    lin("x", "l1", "w1", "b1")
    return {name: g[name] for name in STEPS}
