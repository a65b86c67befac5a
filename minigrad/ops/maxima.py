r"""``amax``, ``amin`` and ``logsumexp``, the smooth maximum (chapters 05 and 07):

.. math::
    \operatorname{logsumexp}(x) = m + \log \sum_i e^{x_i - m}, \quad m = \max_i x_i,
    \qquad \frac{\partial}{\partial x_i} = e^{x_i - \operatorname{logsumexp}(x)} .

Unlike ``max(dim)``, ``amax`` returns only the values and shares the gradient evenly
between tied maxima (torch's ``AmaxBackward0``); ``dim`` may be a tuple, and the default
``()`` means every dimension. ``logsumexp`` subtracts the maximum first (an infinite one is
replaced by 0, as torch), so large inputs do not overflow; its gradient is the softmax.
"""

import numpy as np

from minigrad.autograd.function import Function, constant
from minigrad.ops import batching
from minigrad.ops.activations import _floating
from minigrad.ops.reductions import _axes, _expand, _expand_tensor
from minigrad.ops.special import call

__all__ = ["amax", "amin", "logsumexp"]


def _is_tensor(x):
    return hasattr(x, "grad_fn")


def _back(grad_output, meta):
    """The reduced gradient brought back to the input's shape (recorded on tensors)."""
    return (_expand_tensor if _is_tensor(grad_output) else _expand)(grad_output, *meta)


def _kept(out, axes, keepdim):
    """A reduced array with its reduced axes back (size 1), for broadcasting."""
    if keepdim or axes is None:
        return out
    if _is_tensor(out):
        for axis in axes:
            out = out.unsqueeze(axis)
        return out
    return np.expand_dims(out, axes)


def _sum(x, axes, keepdim):
    if _is_tensor(x):
        return x if axes is None else x.sum(axes, keepdim)
    return np.asarray(np.sum(x, axis=axes, keepdims=keepdim))


class Amax(Function):
    vmap = batching.Rule(batching.reduction)  # its batching rule (vmap)
    numpy_op = staticmethod(np.amax)

    @classmethod
    def forward(cls, ctx, a, axes, keepdim):
        out = np.asarray(cls.numpy_op(a, axis=axes, keepdims=keepdim))
        ctx.meta = (axes, keepdim, a.shape)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def share(a, out, axes, keepdim):
        """Where the extreme is, divided by how many times it occurs (an array)."""
        a, out = getattr(a, "_data", a), getattr(out, "_data", out)
        mask = a == _kept(out, axes, keepdim)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (mask / np.sum(mask, axis=axes, keepdims=True)).astype(a.dtype)

    @classmethod
    def backward(cls, ctx, grad_output):
        a, out = ctx.saved_tensors
        axes, keepdim, _ = ctx.meta
        share = cls.share(a, out, axes, keepdim)
        back = _back(grad_output, ctx.meta)
        return back * (constant(share) if _is_tensor(back) else share), None, None

    @classmethod
    def jvp(cls, ctx, ta, *_):
        axes, keepdim, _ = ctx.meta
        share = cls.share(ctx.inputs[0], ctx.result, axes, keepdim)
        return _sum(ta * (constant(share) if _is_tensor(ta) else share), axes, keepdim)


class Amin(Amax):
    numpy_op = staticmethod(np.amin)


class Logsumexp(Function):
    vmap = batching.Rule(batching.reduction)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        peak = np.amax(a, axis=axes, keepdims=True) if a.size else np.zeros((1,) * a.ndim)
        peak = np.where(np.isinf(peak), 0, peak).astype(a.dtype)
        with np.errstate(divide="ignore"):  # log(0) = -inf: every input -inf
            out = np.log(np.sum(np.exp(a - peak), axis=axes, keepdims=True)) + peak
        if not keepdim:
            out = out.reshape(np.sum(a, axis=axes).shape)
        out = np.asarray(out, dtype=a.dtype)
        ctx.meta = (axes, keepdim, a.shape)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, out = ctx.saved_tensors
        axes, keepdim, _ = ctx.meta
        return _back(grad_output, ctx.meta) * call("exp", a - _kept(out, axes, keepdim)), \
            None, None

    @staticmethod
    def jvp(ctx, ta, *_):
        axes, keepdim, _ = ctx.meta
        a, out = ctx.inputs[0], ctx.result
        return _sum(ta * call("exp", a - _kept(out, axes, keepdim)), axes, keepdim)


def _reduce(cls, name, input, dim, keepdim):  # noqa: A002 - torch's name
    data = input._data
    axes = _axes(dim, data.ndim)
    for axis in axes or ():
        if data.shape[axis] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size. "
                             f"Fix: {name} over an empty dimension has no value.")
    return cls.apply(input, axes, keepdim)


def amax(input, dim=(), keepdim=False):  # noqa: A002 - torch's argument name
    return _reduce(Amax, "amax", input, dim, keepdim)


def amin(input, dim=(), keepdim=False):  # noqa: A002 - torch's argument name
    return _reduce(Amin, "amin", input, dim, keepdim)


def logsumexp(input, dim, keepdim=False):  # noqa: A002 - torch's argument name
    return Logsumexp.apply(_floating(input), _axes(dim, input._data.ndim), keepdim)
