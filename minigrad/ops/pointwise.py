r"""``abs``, ``sqrt`` and ``sign`` (chapters 05-07), with torch's values at the kinks:

.. math::
    \frac{d}{dx} |x| = \operatorname{sgn} x, \qquad
    \frac{d}{dx} \sqrt{x} = \frac{1}{2 \sqrt{x}}, \qquad
    \frac{d}{dx} \operatorname{sign} x = 0 .

At :math:`x = 0` the gradient of ``abs`` is 0 (torch's subgradient), and ``sgn`` of NaN
is 0 too: torch's ``sign(nan)`` is 0, not numpy's NaN. ``sqrt`` saves its output and
divides by it, so its gradient at 0 is ``inf``, as torch's. ``abs`` and ``sign`` keep an
int tensor's dtype (``abs`` of a bool tensor is refused, as torch); ``sqrt`` of one is
float32.
"""

import numpy as np

from minigrad import tensors
from minigrad.autograd.function import Function, constant
from minigrad.dtypes import torch_name
from minigrad.ops import batching
from minigrad.ops.activations import _floating

__all__ = ["abs", "sqrt", "sign", "sgn"]


def sgn(a):
    """torch's ``sign`` of an array: -1, 0 or 1, and 0 for NaN."""
    if a.dtype.kind == "b":
        return a.copy()
    out = np.asarray(np.sign(a))  # a 0-d array stays an array (numpy gives a scalar)
    if out.dtype.kind == "f":
        out[np.isnan(out)] = 0
    return out


class Abs(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output * sgn(a)

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (a,) = ctx.saved_tensors  # its sign is a constant: the second derivative is 0
        return grad_output * tensors.make(sgn(a._data), None)

    @staticmethod
    def differentiable_jvp(ctx, tangent):  # nested forward levels: on tensors
        return tangent * constant(sgn(ctx.inputs[0]._data))

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * sgn(ctx.inputs[0])


class Sqrt(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        with np.errstate(invalid="ignore"):  # sqrt of a negative number is nan, as torch
            out = np.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        with np.errstate(divide="ignore", invalid="ignore"):  # inf at 0, as torch
            return grad_output / (2 * out)

    @staticmethod
    def jvp(ctx, tangent):
        with np.errstate(divide="ignore", invalid="ignore"):
            return tangent / (2 * ctx.result)


class Sign(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        return sgn(a)

    @staticmethod
    def backward(ctx, grad_output):
        return np.zeros_like(grad_output)  # zeros, even where grad_output is inf or nan

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        return tensors.make(np.zeros_like(grad_output._data), None)

    @staticmethod
    def jvp(ctx, tangent):
        return np.zeros_like(ctx.result)


def abs(input):  # noqa: A001, A002 - torch's names
    if input._data.dtype.kind == "b":
        raise NotImplementedError(f"\"abs_cpu\" not implemented for '{torch_name('bool')}'. "
                                  "Fix: convert first, t.long().abs().")
    return Abs.apply(input)


def sqrt(input):  # noqa: A002 - torch's argument name
    return Sqrt.apply(_floating(input))


def sign(input):  # noqa: A002 - torch's argument name
    return Sign.apply(input)
