r"""``t[key] = v`` recorded (chapter 12's in-place ops): one node, torch's
``IndexPutBackward0``. The output is ``t`` with ``v`` written at ``key``; the gradient
of ``t`` is the output's with zeros at ``key`` (never $g \cdot 0$, so an infinite element
that was overwritten gives no NaN), the gradient of ``v`` the output's gradient gathered
at ``key`` (the engine sums it back to ``v``'s shape where ``v`` was broadcast); with
a basic key (ints, slices) the node is named ``CopySlices``, as torch's. Being
an op of ``(t, v)``, it goes through the in-place machinery like ``add_``: into a view,
it rewrites the base's graph (``CopySlices``), as torch.
"""

import numpy as np

from minigrad.autograd.function import Function, constant

__all__ = ["IndexPut", "SlicePut"]


class IndexPut(Function):
    backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, a, value, key):
        ctx.key = key
        out = a.copy()
        out[key] = value
        return out

    @staticmethod
    def backward(ctx, grad_output):
        grad_a = np.array(grad_output, copy=True)
        grad_a[ctx.key] = 0
        return grad_a, np.asarray(grad_output)[ctx.key], None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        from minigrad.ops.indexing import index
        from minigrad.ops.selection import where

        keep = np.ones(grad_output._data.shape, dtype=bool)
        keep[ctx.key] = False
        zero = constant(np.zeros((), grad_output._data.dtype))
        return where(constant(keep), grad_output, zero), index(grad_output, ctx.key), None

    @staticmethod
    def jvp(ctx, ta, tv, *_):
        a = ctx.inputs[0]
        out = np.zeros_like(a) if ta is None else np.array(ta, dtype=a.dtype, copy=True)
        out[ctx.key] = 0 if tv is None else tv
        return out


class SlicePut(IndexPut):
    """The same with a basic key (ints and slices): torch's node is ``CopySlices``."""

    backward_name = "CopySlices"
