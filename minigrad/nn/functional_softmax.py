r"""``softmax``, ``log_softmax`` and ``one_hot`` of ``torch.nn.functional`` (the makemore
chapters: the classifier's probabilities, and the manual backprop through cross entropy).
The softmaxes live in ``minigrad/ops/softmax.py`` (``torch.softmax`` is the same function).

$\mathrm{softmax}(x)_i = e^{x_i - m} / \sum_j e^{x_j - m}$ with $m = \max_j x_j$ held
constant (it cancels: the value and the gradient are the same for any $m$), built out of
differentiable ops, so gradients of every order follow.
"""

import numpy as np

from minigrad.ops.softmax import log_softmax, softmax

__all__ = ["softmax", "log_softmax", "one_hot"]


def one_hot(tensor, num_classes=-1):
    """int64 rows with a 1 at each class index, as torch's ``F.one_hot``."""
    from minigrad.factories import _leaf

    labels = tensor._data
    if labels.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor. "
                           "Fix: pass t.long().")
    if labels.size and labels.min() < 0:
        raise RuntimeError("Class values must be non-negative. Fix: labels run from 0 to "
                           "num_classes - 1.")
    if num_classes == -1:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and labels.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes. Fix: "
                           "num_classes=int(t.max()) + 1, or leave it out.")
    return _leaf((labels[..., None] == np.arange(num_classes)).astype(np.int64), False)
