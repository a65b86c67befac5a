r"""Elementwise functions: ``exp``, ``log``, ``tanh``, ``sigmoid``, ``relu`` (chapter 07).

.. math::
    \frac{d}{dx} e^x = e^x, \quad \frac{d}{dx} \ln x = \frac{1}{x}, \quad
    \frac{d}{dx} \tanh x = 1 - \tanh^2 x, \quad
    \frac{d}{dx} \sigma(x) = \sigma(x)\,(1 - \sigma(x)), \quad
    \frac{d}{dx} \max(x, 0) = [x > 0].

``exp``, ``tanh``, ``sigmoid`` and ``relu`` save their *output*, which is all their
derivative needs; ``log`` saves its input. As torch, an int tensor gives a float32
result, and relu's backward is a hard zero where the unit is off: an ``inf`` or
``nan`` arriving from upstream stays out of it (``0 * inf`` would be ``nan``).
"""

import math

import numpy as np

from minigrad.autograd.function import Function, constant
from minigrad.dtypes import DEFAULT_FLOAT
from minigrad.ops import batching

__all__ = ["exp", "log", "tanh", "sigmoid", "relu"]


class Exp(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        out = np.exp(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out

    @staticmethod
    def jvp(ctx, ta):
        return ctx.result * ta


class Log(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output / a

    @staticmethod
    def jvp(ctx, ta):
        return ta / ctx.inputs[0]


class Tanh(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        out = np.tanh(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (1 - out * out)

    @staticmethod
    def jvp(ctx, ta):
        return (1 - ctx.result * ctx.result) * ta


class Sigmoid(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        e = np.exp(-np.abs(a))  # never overflows: exp of a non-positive number
        out = np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out * (1 - out)

    @staticmethod
    def jvp(ctx, ta):
        return ctx.result * (1 - ctx.result) * ta


class Relu(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a):
        out = np.where(a < 0, np.zeros((), a.dtype), a)  # torch keeps -0.0 (and nan)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        # out is 0 where off, else positive or nan (relu(nan) is nan, and passes, as torch)
        grad = grad_output * (out != 0)  # the fast mask; 0 * inf would make a nan, so
        if not math.isfinite(np.add.reduce(grad, axis=None)):  # then, torch's threshold:
            grad = np.where(out == 0, 0, grad_output)  # 0 where off, whatever arrives
        return grad

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * constant(out._data != 0, grad_output._data.dtype)

    @staticmethod
    def differentiable_jvp(ctx, ta):  # nested forward levels: on tensors
        return ta * constant(ctx.result._data > 0, ctx.result._data.dtype)

    @staticmethod
    def jvp(ctx, ta):
        return np.where(ctx.result > 0, ta, 0)


def _floating(a):
    """An int or bool tensor as float32, as torch computes ``exp`` of one."""
    if a._data.dtype.kind == "f":
        return a
    return constant(a._data.astype(DEFAULT_FLOAT))


def exp(a):
    return Exp.apply(_floating(a))


def log(a):
    return Log.apply(_floating(a))


def tanh(a):
    return Tanh.apply(_floating(a))


def sigmoid(a):
    return Sigmoid.apply(_floating(a))


def relu(a):
    if a._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu. Fix: convert first, "
                           "t.float().relu().")
    return Relu.apply(a)
