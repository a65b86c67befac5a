r"""``sin`` and ``cos`` (chapters 05 and 15), each the other's derivative:

.. math::
    \frac{d}{dx} \sin x = \cos x, \qquad \frac{d}{dx} \cos x = -\sin x .

Both save their input. Their backward on numpy arrays calls ``np.cos``/``np.sin``; the
same gradient on tensors (``create_graph=True``) goes through the other op, so a second
derivative (:math:`-\sin x` for ``sin``) is one more backward away. As torch, an int or
bool tensor gives a float32 result.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching
from minigrad.ops.activations import _floating

__all__ = ["sin", "cos"]


class Sin(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(a)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output * np.cos(a)

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output * Cos.apply(a)

    @staticmethod
    def differentiable_jvp(ctx, tangent):  # nested forward levels: on tensors
        return tangent * ctx.inputs[0].cos()

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * np.cos(ctx.inputs[0])


class Cos(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(a)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return -grad_output * np.sin(a)

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return -grad_output * Sin.apply(a)

    @staticmethod
    def differentiable_jvp(ctx, tangent):  # nested forward levels: on tensors
        return -tangent * ctx.inputs[0].sin()

    @staticmethod
    def jvp(ctx, tangent):
        return -tangent * np.sin(ctx.inputs[0])


def sin(input):  # noqa: A002 - torch's argument name
    return Sin.apply(_floating(input))


def cos(input):  # noqa: A002 - torch's argument name
    return Cos.apply(_floating(input))
