r"""``F.binary_cross_entropy``, ``F.binary_cross_entropy_with_logits`` and
``F.cross_entropy``'s shapes and checks, as torch (``cross_entropy``: chapter 10; the
binary ones are torch's surface beyond the chapters).

Binary cross-entropy of probabilities :math:`x \in [0, 1]` and targets :math:`y`:

.. math:: \ell = -w \left( y \log x + (1 - y) \log (1 - x) \right),

with each log clamped to :math:`\geq -100` as torch (so :math:`x = 0, y = 1` costs 100,
not infinity). Its gradient is :math:`w (x - y) / (x (1 - x))`, which torch computes as
:math:`w (x - y) / \max(x (1 - x), 10^{-12})`. Where :math:`x (1 - x) < 10^{-12}` (the
ends of the interval) the composition below keeps torch's values as constants and adds
:math:`(x - y)^2 / (2 \cdot 10^{-12})` minus its own value (zero, with torch's first
derivative): torch's first-order gradients everywhere; there, the second derivative
and the target's gradient at exactly 0 or 1 are not torch's. Inside, ``log(1 - x)``
stands for torch's ``log1p(-x)`` (the same to 1e-16 absolute).

With logits :math:`z` (``_with_logits``, the stable form), as torch:

.. math:: \ell = w \left( (1 - y) z - (1 + (p - 1) y) \log \sigma(z) \right), \qquad
          \log \sigma(z) = \min(z, 0) - \log(1 + e^{-|z|}),

``p`` being ``pos_weight``, the weight of the positive examples (along the last dimension).
``log(1 + e)`` stands for torch's ``log1p``: equal to 1e-16 absolute, not relative (for
:math:`|z| > 37` a loss of about :math:`e^{-|z|}` is 0 here).

Both are compositions of minigrad's ops, so second derivatives and tangents come with
them; the graph ends in ``MeanBackward0`` (or ``MulBackward0``...), not torch's fused
``BinaryCrossEntropyBackward0`` / ``BinaryCrossEntropyWithLogitsBackward0``.
"""

import warnings

import numpy as np

from minigrad.dtypes import Size, torch_name
from minigrad.ops import losses
from minigrad.tensors import make

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "legacy_reduction", "apply_reduction"]

EPSILON = float(np.float32(1e-12))  # torch's `const float EPSILON = 1e-12` (a float32)


def legacy_reduction(size_average, reduce, reduction):
    """torch's deprecated ``size_average`` / ``reduce`` as a ``reduction``."""
    if size_average is None and reduce is None:
        losses._check_reduction(reduction)
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='mean' instead.", UserWarning, stacklevel=3)
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def apply_reduction(loss, reduction):
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def _const(array, dtype):
    return make(np.asarray(array, dtype=dtype), None)


def _not_differentiable(function, **weights):
    """As torch: the weights of the BCE losses get no gradient, and may not ask for one."""
    for name, w in weights.items():
        if w is not None and getattr(w, "_requires_grad", False):
            raise RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True. Fix: pass "
                f"{name}.detach().")


def _tensor_like(t, like):
    if hasattr(t, "grad_fn"):
        return t
    return make(np.asarray(t, dtype=like._data.dtype), None)


def binary_cross_entropy(input, target, weight=None, size_average=None,  # noqa: A002
                         reduce=None, reduction="mean"):  # noqa: A002
    """``torch.nn.functional.binary_cross_entropy`` of probabilities ``input``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _not_differentiable("binary_cross_entropy", weight=weight)
    target = _tensor_like(target, input)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({Size(target._data.shape)!r}) that is different to the "
            f"input size ({Size(input._data.shape)!r}) is deprecated. Please ensure they have "
            "the same size. Fix: one target per probability.")
    x, y = input._data, target._data
    if not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1. Fix: pass "
                           "probabilities (apply sigmoid), or use "
                           "binary_cross_entropy_with_logits on the raw scores.")
    dtype = x.dtype
    inner = x * (1 - x) >= EPSILON
    if inner.all():
        loss = -(target * input.log() + (1 - target) * (1 - input).log())
    else:
        m = _const(inner, dtype)
        safe = input * m + _const(np.where(inner, 0, 0.5), dtype)  # no log(0) in the graph
        smooth = -(target * safe.log() + (1 - target) * (1 - safe).log())
        with np.errstate(divide="ignore"):
            value = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
            logit = np.log(x) - np.log1p(-x)
        edge = (input - _const(y, dtype)) ** 2 / (2 * EPSILON)
        edge = edge - _const(edge._data, dtype) + _const(value, dtype)
        if target._requires_grad:  # the target's gradient, -logit(x), where it is finite
            ok = np.isfinite(logit)
            edge = edge - (target - _const(y, dtype)) * _const(np.where(ok, logit, 0), dtype)
        loss = smooth * m + edge * (1 - m)
    if weight is not None:
        loss = loss * weight
    return apply_reduction(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None,  # noqa: A002
                                     size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    """``torch.nn.functional.binary_cross_entropy_with_logits``: BCE of ``sigmoid(input)``,
    computed stably from the logits."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight,
                        pos_weight=pos_weight)
    target = _tensor_like(target, input)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Target size ({Size(target._data.shape)!r}) must be the same as input size "
            f"({Size(input._data.shape)!r}). Fix: one target per logit.")
    z = input._data
    below = _const(z < 0, z.dtype)
    sign = _const(np.where(z < 0, -1, 1), z.dtype)  # |z| = z * sign; sign(0) = 1, as torch
    log_sigmoid = input * below - (1 + (-(input * sign)).exp()).log()
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sigmoid
    if weight is not None:
        loss = loss * weight
    return apply_reduction(loss, reduction)


def cross_entropy(input, target, weight=None, size_average=None,  # noqa: A002
                  ignore_index=-100, reduce=None, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """``torch.nn.functional.cross_entropy`` with class indices: logits ``(C,)``,
    ``(N, C)`` or ``(N, C, d1, ...)`` (``ops/losses.py`` computes the ``(N, C)`` case)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if weight is not None or label_smoothing:
        raise NotImplementedError("minigrad's cross_entropy has no class weights nor "
                                  "label_smoothing. Fix: leave them out.")
    labels = target._data if hasattr(target, "grad_fn") else np.asarray(target)
    shape = input._data.shape
    if labels.dtype.kind not in "iu" or labels.shape == shape:  # torch: probabilities;
        return losses.cross_entropy(input, target, reduction)  # ops/losses.py's checks
    if not shape:  # torch: log_softmax over dim 1 of a 0-d tensor
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                         "got 1). Fix: logits have a class dimension, (C,) or (N, C).")
    if input._data.dtype.kind != "f" and input._data.size:  # torch's log_softmax first
        raise NotImplementedError(f"\"log_softmax_lastdim_kernel_impl\" not implemented for "
                                  f"'{torch_name(input._data.dtype)}'. Fix: make the logits "
                                  "float, z.float().")
    if len(shape) == 1:
        if labels.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported."
                               " Fix: one class index for one sample.")
        if labels.size != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                             f"size: {labels.size}. Fix: one class index for one sample.")
        out = losses.cross_entropy(input.unsqueeze(0), labels.reshape(1), reduction)
        return out.reshape(labels.shape) if reduction == "none" else out
    batch = labels.shape[0] if labels.ndim else 0
    if batch != shape[0]:
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target "
                         f"batch_size ({batch}). Fix: one class index per sample.")
    if len(shape) == 2:
        if labels.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported."
                               " Fix: give one class index per row, shape (N,).")
        return losses.cross_entropy(input, target, reduction)
    expected = (shape[0], *shape[2:])
    if labels.shape != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(labels.shape)}."
                           " Fix: one class index per position, the input without dim 1.")
    moved = input.transpose(1, -1)  # classes last; the target's axes swapped alike
    swapped = np.swapaxes(labels, 1, -1)
    out = losses.cross_entropy(moved.reshape(-1, shape[1]), swapped.reshape(-1), reduction)
    if reduction == "none":
        return out.reshape(swapped.shape).transpose(1, -1)
    return out
