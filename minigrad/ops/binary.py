r"""Elementwise functions of two tensors (chapters 05-07): ``maximum``, ``minimum``,
``atan2``, ``logaddexp`` and ``lerp``, broadcasting and promoting as torch.

.. math::
    \frac{\partial \max(a, b)}{\partial a} = [a > b] + \tfrac12 [a = b], \qquad
    \frac{\partial \operatorname{atan2}(a, b)}{\partial a} = \frac{b}{a^2 + b^2}, \qquad
    \frac{\partial \log(e^a + e^b)}{\partial a} = \frac{1}{1 + e^{b - a}} .

At a tie ``maximum`` and ``minimum`` give each side half the gradient, and where one side
is NaN both get all of it (torch's rule). ``lerp(input, end, weight)`` is
:math:`a + w (b - a)`, computed as torch's kernel (from the nearer end), ``LerpBackward0``
for a number weight and ``LerpBackward1`` for a tensor one. A backward returns gradients in
the broadcast shape; the engine sums them back to each input's shape.
"""

import numpy as np

from minigrad.autograd.function import Function, constant
from minigrad.dtypes import torch_name
from minigrad.ops import batching
from minigrad.ops.promotion import promote
from minigrad.ops.special import call

__all__ = ["maximum", "minimum", "atan2", "logaddexp", "lerp"]


def _data(x):
    return getattr(x, "_data", x)


def _like(x, array):
    """A mask ``array`` beside ``x``: a constant tensor in a recorded backward."""
    return constant(array) if hasattr(x, "grad_fn") else array


def _zero(t):
    return 0 if t is None else t


class Maximum(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)
    numpy_op = staticmethod(np.maximum)
    beaten = staticmethod(np.less)  # a loses to b where a < b

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(cls.numpy_op(a, b))

    @classmethod
    def backward(cls, ctx, grad_output):
        a, b = ctx.saved_tensors
        da, db = _data(a), _data(b)
        dtype = _data(grad_output).dtype
        tie = da == db
        wa = np.where(tie, 0.5, np.where(cls.beaten(da, db), 0.0, 1.0)).astype(dtype)
        wb = np.where(tie, 0.5, np.where(cls.beaten(db, da), 0.0, 1.0)).astype(dtype)
        return grad_output * _like(grad_output, wa), grad_output * _like(grad_output, wb)

    @classmethod
    def jvp(cls, ctx, ta, tb):  # torch: tb + w (ta - tb), w = 1/2 at ties, [a wins] else
        da, db = _data(ctx.inputs[0]), _data(ctx.inputs[1])
        ta, tb = _zero(ta), _zero(tb)
        w = np.where(da == db, 0.5, cls.beaten(db, da)).astype(_data(ctx.result).dtype)
        return tb + _like(ctx.result, w) * (ta - tb)


class Minimum(Maximum):
    numpy_op = staticmethod(np.minimum)
    beaten = staticmethod(np.greater)


class Atan2(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(np.arctan2(a, b))

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        with np.errstate(all="ignore"):  # 0/0 at the origin: nan, as torch
            scale = grad_output / (a * a + b * b)
            return scale * b, -(scale * a)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        with np.errstate(all="ignore"):
            return (_zero(ta) * b - _zero(tb) * a) / (a * a + b * b)


class Logaddexp(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(np.logaddexp(a, b))

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        with np.errstate(over="ignore"):
            return (grad_output / (call("exp", b - a) + 1),
                    grad_output / (call("exp", a - b) + 1))

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        with np.errstate(over="ignore"):
            return (_zero(ta) / (call("exp", b - a) + 1)
                    + _zero(tb) / (call("exp", a - b) + 1))


class Lerp(Function):
    """``a + w (b - a)``; ``w`` a number (``LerpBackward0``) or a tensor (``...1``)."""

    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b, w):
        if isinstance(w, np.ndarray):
            ctx.backward_name = "LerpBackward1"
            ctx.save_for_backward(a, b, w)
        else:
            ctx.save_for_backward(a, b)
            ctx.weight = w
        diff = b - a
        near = np.asarray(np.abs(w) < 0.5)
        return np.asarray(np.where(near, a + w * diff, b - diff * (1 - w))).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        saved = ctx.saved_tensors
        a, b = saved[:2]
        w = saved[2] if len(saved) == 3 else ctx.weight
        grad_w = grad_output * (b - a) if len(saved) == 3 else None
        return grad_output * (1 - w), grad_output * w, grad_w

    @staticmethod
    def jvp(ctx, ta, tb, tw):
        a, b, w = ctx.inputs
        out = _zero(ta) * (1 - w) + _zero(tb) * w
        return out if tw is None else out + tw * (b - a)


def _pair(a, b, name):
    """Both promoted to torch's dtype; shapes that do not broadcast are torch's error."""
    from minigrad.ops.arithmetic import broadcast_error

    error = broadcast_error(a._data, b._data)
    if error is not None:
        raise error
    return promote(a, b, true_divide=name == "atan2")


def maximum(input, other):  # noqa: A002 - torch's argument names
    return Maximum.apply(*_pair(input, other, "maximum"))


def minimum(input, other):  # noqa: A002 - torch's argument names
    return Minimum.apply(*_pair(input, other, "minimum"))


def atan2(input, other):  # noqa: A002 - torch's argument names
    return Atan2.apply(*_pair(input, other, "atan2"))


def logaddexp(input, other):  # noqa: A002 - torch's argument names
    a, b = _pair(input, other, "logaddexp")
    if a._data.dtype.kind != "f":
        raise NotImplementedError(f"\"logaddexp_cpu\" not implemented for "
                                  f"'{torch_name(a._data.dtype)}'. Fix: make the tensors "
                                  "float first, a.double().logaddexp(b.double()).")
    return Logaddexp.apply(a, b)


_C_NAMES = {"float64": "double", "float32": "float", "int64": "long int", "int32": "int",
            "bool": "bool"}  # torch's words for dtypes in lerp's message


def lerp(input, end, weight):  # noqa: A002 - torch's argument names
    from minigrad.ops.arithmetic import broadcast_error

    for name, t in (("end", end), ("weight", weight)):
        if hasattr(t, "grad_fn") and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {_C_NAMES[str(input._data.dtype)]} for "
                               f"`{name}` but got dtype {_C_NAMES[str(t._data.dtype)]}. "
                               f"Fix: convert {name} to the input's dtype, "
                               f"{name}.to(input.dtype).")
    if input._data.dtype.kind != "f":
        kernel = "lerp_kernel_tensor" if hasattr(weight, "grad_fn") else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{torch_name(input._data.dtype)}'. Fix: make the tensors "
                                  "float first, a.double().lerp(b.double(), 0.5).")
    error = broadcast_error(input._data, end._data)
    if error is not None:
        raise error
    return Lerp.apply(input, end, weight)
