r"""Loss functions as single ops: ``mse_loss`` and ``cross_entropy`` (chapters 07, 10).

Mean squared error, :math:`L = \frac{1}{N} \sum (x - y)^2`, has
:math:`\partial L / \partial x = \frac{2}{N} (x - y)`.

Cross-entropy with class-index targets, over logits :math:`z` of shape ``(N, C)``:
:math:`L_n = -\log \mathrm{softmax}(z_n)_{y_n}`. Its log-softmax is computed stably,
by first subtracting each row's maximum (:math:`e^{z - \max z}` cannot overflow), and
the gradient is the famous

.. math:: \frac{\partial L_n}{\partial z_{nc}} = \mathrm{softmax}(z_n)_c - [c = y_n],

divided by :math:`N` for the mean. torch builds two nodes here (``LogSoftmaxBackward0``
then ``NllLossBackward0``); minigrad fuses them into one, named ``NllLossBackward0``.
"""

import warnings

import numpy as np

from minigrad.autograd.function import Function, constant, zeros_if_none
from minigrad.dtypes import Size, result_type, torch_name
from minigrad.ops import batching
from minigrad.ops.arithmetic import broadcast_error
from minigrad.ops.promotion import _to

__all__ = ["mse_loss", "cross_entropy"]

REDUCTIONS = ("mean", "sum", "none")


class MseLoss(Function):
    vmap = batching.Rule(batching.mse_loss)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, x, y, reduction):
        diff = x - y
        ctx.save_for_backward(x, y)  # as torch: the inputs (diff is recomputed in backward)
        ctx.reduction = reduction
        ctx.count = diff.size
        squared = diff * diff
        if reduction == "none":
            return squared
        return squared.mean() if reduction == "mean" else squared.sum()

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        diff = x - y  # the same lines on arrays and on tensors (create_graph)
        scale = 2 / max(ctx.count, 1) if ctx.reduction == "mean" else 2  # empty: no grad
        grad = diff * (grad_output * scale)
        need_x, need_y = ctx.needs_input_grad[:2]
        return (grad if need_x else None), (-grad if need_y else None), None

    @staticmethod
    def differentiable_jvp(ctx, tx, ty, _):  # nested forward levels: on tensors
        x, y, _ = ctx.inputs
        d = (constant(np.zeros(x._data.shape, x._data.dtype)) if tx is None else tx) - (
            0 if ty is None else ty)
        each = 2 * (x - y) * d
        if ctx.reduction == "none":
            return each
        return each.mean() if ctx.reduction == "mean" else each.sum()

    @staticmethod
    def jvp(ctx, tx, ty, _):
        x, y, _ = ctx.inputs
        d = zeros_if_none(tx, x) - (0 if ty is None else ty)
        each = 2 * (x - np.asarray(y)) * d
        if ctx.reduction == "none":
            return each
        return each.mean() if ctx.reduction == "mean" else each.sum()


class CrossEntropy(Function):
    backward_name = "NllLossBackward0"

    vmap = batching.Rule(batching.cross_entropy)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, logits, target, reduction):
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        rows = np.arange(len(target))
        losses = np.log(total[:, 0]) - shifted[rows, target]  # -log softmax at the target
        ctx.save_for_backward(logits, target)  # the softmax is recomputed in backward
        ctx.reduction = reduction
        if reduction == "none":
            return losses
        return losses.sum() / len(target) if reduction == "mean" else losses.sum()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        grad = exp / exp.sum(axis=1, keepdims=True)  # softmax
        grad[np.arange(len(target)), target] -= 1
        if ctx.reduction == "none":
            grad *= grad_output[:, None]
        else:
            scale = grad_output / len(target) if ctx.reduction == "mean" else grad_output
            grad *= scale
        return grad, None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        target = target._data if hasattr(target, "grad_fn") else target
        data = logits._data
        e = (logits - constant(data.max(axis=1, keepdims=True))).exp()
        softmax = e / e.sum(1, keepdim=True)
        onehot = np.zeros(data.shape, dtype=data.dtype)
        onehot[np.arange(len(target)), target] = 1
        grad = softmax - constant(onehot)
        if ctx.reduction == "none":
            return grad * grad_output.unsqueeze(1), None, None
        scale = grad_output / len(target) if ctx.reduction == "mean" else grad_output
        return grad * scale, None, None

    @staticmethod
    def differentiable_jvp(ctx, tl, _, __):  # nested forward levels: on tensors
        logits, target, _ = ctx.inputs
        target = getattr(target, "_data", target)
        shift = constant(logits._data.max(axis=1, keepdims=True))
        e = (logits - shift).exp()
        softmax = e / e.sum(1, keepdim=True)
        each = (softmax * tl).sum(1) - tl[np.arange(len(target)).tolist(), target.tolist()]
        if ctx.reduction == "none":
            return each
        return each.sum() / len(target) if ctx.reduction == "mean" else each.sum()

    @staticmethod
    def jvp(ctx, tl, _, __):
        logits, target, _ = ctx.inputs
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        softmax = e / e.sum(axis=1, keepdims=True)
        each = (softmax * tl).sum(axis=1) - tl[np.arange(len(target)), target]
        if ctx.reduction == "none":
            return each
        return each.sum() / len(target) if ctx.reduction == "mean" else each.sum()


def _check_reduction(reduction):
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction: use one of "
                         f"{', '.join(REDUCTIONS)}")


def mse_loss(x, y, reduction="mean"):
    """Mean (or sum, or elementwise) squared difference, as ``F.mse_loss``."""
    _check_reduction(reduction)
    for t in (y, x):  # torch reads target.size() first
        if not hasattr(t, "grad_fn"):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute 'size'. "
                                 "Fix: mse_loss takes two tensors, minigrad.tensor(x).")
    if x._data.shape != np.shape(getattr(y, "_data", y)):
        warnings.warn(
            f"Using a target size ({Size(np.shape(getattr(y, 'data', y)))!r}) that is "
            f"different to the input size ({Size(x._data.shape)!r}). This will likely lead to "
            "incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=2)
    error = broadcast_error(x._data, getattr(y, "_data", y))
    if error is not None:  # shapes first, as torch
        raise error
    # torch broadcasts first: a 0-d operand counts as a tensor with dimensions
    dtype = result_type(*np.broadcast_arrays(x._data, getattr(y, "_data", y)))
    if dtype.kind != "f":
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{torch_name(dtype)}'. "
                                  "Fix: make the input float, x.float().")
    x, y = _to(x, dtype), _to(y, dtype)  # a converted copy keeps the version counter
    try:
        return MseLoss.apply(x, y, reduction)
    except ValueError:
        error = broadcast_error(getattr(x, "_data", x), getattr(y, "_data", y))
        if error is None:
            raise
        raise error from None


def cross_entropy(logits, target, reduction="mean"):
    """Cross-entropy of ``(N, C)`` logits and ``N`` class indices, as ``F.cross_entropy``."""
    _check_reduction(reduction)
    labels = target._data if hasattr(target, "grad_fn") else np.asarray(target)
    _check_cross_entropy(logits._data, labels)
    n_classes = logits._data.shape[1]
    # One check for both ends: a negative int64 viewed as uint64 is huge.
    if len(labels) and labels.view(np.uint64).max() >= n_classes:
        bad = labels[(labels < 0) | (labels >= n_classes)][0]
        raise IndexError(f"Target {bad} is out of bounds. Fix: class indices must lie in "
                         f"[0, {n_classes}).")
    if hasattr(target, "_value"):  # inside vmap: the batched labels, for the rule
        labels = target
    return CrossEntropy.apply(logits, labels, reduction)


def _check_cross_entropy(logits, labels):
    """torch's checks, in torch's order, then minigrad's own limits (README)."""
    unsupported = RuntimeError(
        "minigrad's cross_entropy takes (N, C) logits and N integer class indices; got "
        f"shapes {list(logits.shape)} and {list(labels.shape)} ({labels.dtype}). "
        "Fix: pass class indices as an int64 tensor (class probabilities are not "
        "supported).")
    float_logits = NotImplementedError(
        f"\"log_softmax_lastdim_kernel_impl\" not implemented for "
        f"'{torch_name(logits.dtype)}'. Fix: make the logits float, z.float().")
    if labels.shape == logits.shape:  # torch: class probabilities
        if labels.dtype.kind != "f":
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {torch_name(labels.dtype)}. Fix: "
                               "class indices have one dimension less than the logits.")
        raise float_logits if logits.dtype.kind != "f" else unsupported
    if logits.ndim == 0:  # torch: log_softmax over dim 1
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                         "got 1). Fix: logits are (N, C), one row per example.")
    if logits.dtype.kind != "f" and logits.size:  # torch's kernel skips an empty input
        raise float_logits
    batch = labels.shape[0] if labels.ndim else 0
    if logits.ndim == 2 and batch != logits.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({logits.shape[0]}) to match target batch_size "
            f"({batch}). Fix: one class index per row of logits.")
    if logits.ndim != 2:
        raise unsupported
    if labels.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported. "
                           "Fix: one class index per row of logits, a vector.")
    if labels.dtype.kind not in "iu":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{torch_name(labels.dtype)}. Fix: class indices are ints, "
                           "target.long().")
    if logits.ndim != 2 or labels.ndim != 1:
        raise unsupported
    if logits.dtype.kind != "f":  # empty int logits: torch's nll_loss kernel refuses
        raise NotImplementedError(f"\"nll_loss_out_frame\" not implemented for "
                                  f"'{torch_name(logits.dtype)}'. Fix: make the logits "
                                  "float, z.float().")
