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
from minigrad.dtypes import Size
from minigrad.ops import batching
from minigrad.ops.arithmetic import broadcast_error

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
        scale = 2 / ctx.count if ctx.reduction == "mean" else 2
        grad = diff * (grad_output * scale)
        need_x, need_y = ctx.needs_input_grad[:2]
        return (grad if need_x else None), (-grad if need_y else None), None

    @staticmethod
    def differentiable_jvp(ctx, tx, ty, _):  # nested forward levels: on tensors
        x, y, _ = ctx.inputs
        d = (constant(np.zeros(x.data.shape, x.data.dtype)) if tx is None else tx) - (
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
        target = target.data if hasattr(target, "grad_fn") else target
        data = logits.data
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
        target = getattr(target, "data", target)
        shift = constant(logits.data.max(axis=1, keepdims=True))
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
    if x.data.shape != np.shape(getattr(y, "data", y)):
        warnings.warn(
            f"Using a target size ({Size(np.shape(getattr(y, 'data', y)))!r}) that is "
            f"different to the input size ({Size(x.data.shape)!r}). This will likely lead to "
            "incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=2)
    try:
        return MseLoss.apply(x, y, reduction)
    except ValueError:
        error = broadcast_error(getattr(x, "data", x), getattr(y, "data", y))
        if error is None:
            raise
        raise error from None


def cross_entropy(logits, target, reduction="mean"):
    """Cross-entropy of ``(N, C)`` logits and ``N`` class indices, as ``F.cross_entropy``."""
    _check_reduction(reduction)
    labels = target.data if hasattr(target, "grad_fn") else np.asarray(target)
    if logits.data.ndim != 2 or labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise RuntimeError(
            "minigrad's cross_entropy takes (N, C) logits and N integer class indices; got "
            f"shapes {list(logits.data.shape)} and {list(labels.shape)} ({labels.dtype}). "
            "Fix: pass class indices as an int64 tensor (class probabilities are not "
            "supported).")
    if len(labels) != logits.data.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({logits.data.shape[0]}) to match target batch_size "
            f"({len(labels)}). Fix: one class index per row of logits.")
    n_classes = logits.data.shape[1]
    # One check for both ends: a negative int64 viewed as uint64 is huge.
    if len(labels) and labels.view(np.uint64).max() >= n_classes:
        bad = labels[(labels < 0) | (labels >= n_classes)][0]
        raise IndexError(f"Target {bad} is out of bounds. Fix: class indices must lie in "
                         f"[0, {n_classes}).")
    if hasattr(target, "_value"):  # inside vmap: the batched labels, for the rule
        labels = target
    return CrossEntropy.apply(logits, labels, reduction)
