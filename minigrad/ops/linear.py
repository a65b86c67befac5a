r"""The linear layer as one op, ``y = x W^T + b``, and its backward (chapter 07).

This is the fast.ai forum thread's ``lin_grad`` (chapter 07) in torch's layout (``W`` of
shape ``(out, in)``).
With :math:`y_{ni} = \sum_j x_{nj} W_{ij} + b_i` and :math:`g = \partial L / \partial y`:

.. math::
    \frac{\partial L}{\partial x} = g\, W, \qquad
    \frac{\partial L}{\partial W_{ij}} = \sum_n g_{ni}\, x_{nj} = (g^\top x)_{ij}, \qquad
    \frac{\partial L}{\partial b_i} = \sum_n g_{ni}.

The bias gradient is a *sum over the batch*: the same :math:`b_i` is added to every
row, so every row's gradient lands on it. The thread writes the weight gradient
element by element as ``(inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)``; ``g.T @ x``
is the same sum done by one matrix product. Fusing the layer into one op (instead of
``x @ W.T + b``, two nodes) halves the bookkeeping of a training step, and the input's
gradient is only computed when the input needs one (a data batch does not).
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching
from minigrad.ops.matmul import same_dtype

__all__ = ["linear"]


class Linear(Function):
    """``x @ weight.T + bias`` in one node, named as torch's ``AddmmBackward0``."""

    backward_name = "AddmmBackward0"

    vmap = batching.Rule(batching.linear)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, x, weight, bias):
        # As torch: keep W only if x needs a gradient, x only if W does, so updating W
        # in place before backward is no error when x is a data batch.
        need_x, need_weight = ctx.needs_input_grad[:2] or (False, False)
        ctx.save_for_backward(x if need_weight else None, weight if need_x else None)
        out = x @ weight.T
        if bias is not None:
            out += bias
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        need_x, need_weight, need_bias = ctx.needs_input_grad
        g = grad_output
        if g.ndim != 2:  # one sample, or extra leading dimensions: rows of a matrix
            g = g.reshape(-1, g.shape[-1])
            x = x.reshape(-1, x.shape[-1]) if need_weight else x
        grad_x = grad_output @ weight if need_x else None  # inp.g = out.g @ w.t()
        grad_weight = g.T @ x if need_weight else None  # w.g, as (out, in)
        grad_bias = g.sum(0) if need_bias else None  # b.g = out.g.sum(0)
        return grad_x, grad_weight, grad_bias

    @staticmethod
    def jvp(ctx, tx, tw, tb):
        x, w, _ = ctx.inputs
        result = np.zeros_like(ctx.result)
        if tx is not None:
            result = result + tx @ w.T
        if tw is not None:
            result = result + x @ tw.T
        if tb is not None:
            result = result + tb
        return result


class LinearNoBias(Linear):
    backward_name = "MmBackward0"


def linear(x, weight, bias=None):
    """``torch.nn.functional.linear``: ``x @ weight.T + bias``."""
    if not x._data.ndim or not weight._data.ndim or weight._data.ndim > 2:
        _refuse_dims(x._data.ndim, weight._data.ndim)
    if weight._data.ndim == 1:  # torch: x @ weight.t(), the weight a vector
        from minigrad.ops.matmul import matmul

        if x._data.ndim == 2 and bias is not None:  # torch: addmm
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor. Fix: the weight is "
                               "(out_features, in_features), w.reshape(1, -1).")

        out = matmul(x, weight)
        return out if bias is None else out + bias
    if x._data.shape[-1] != weight._data.shape[-1]:
        rows = "x".join(str(n) for n in x._data.shape)
        cols = "x".join(str(n) for n in weight._data.shape[::-1])
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows} and {cols}). Fix: the "
            f"input's last dimension must be in_features = {weight._data.shape[-1]}.")
    same_dtype(x._data, weight._data)
    if bias is None:
        return LinearNoBias.apply(x, weight, None)
    return Linear.apply(x, weight, bias)


def _refuse_dims(x_dims, weight_dims):
    if weight_dims > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{weight_dims}D. Fix: the weight is (out_features, in_features).")
    raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                       f"{x_dims}D and {weight_dims}D. Fix: make a number a vector, "
                       "t.reshape(1).")
