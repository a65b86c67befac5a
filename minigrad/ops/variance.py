r"""``var`` and ``std`` with torch's ``correction`` (chapter 09's BatchNorm, makemore's
statistics): $\mathrm{var}(x) = \sum_i (x_i - \bar x)^2 / (N - c)$, $c = 1$ (Bessel's
correction, torch's default) unless ``unbiased=False`` or ``correction=`` says otherwise.

One node, as torch's ``VarBackward0``, with torch's formula for the gradient,
$2 (x_i - \bar x) / (N - c)$, written in minigrad's ops when the graph is recorded
(``create_graph=True``: the Hessian keeps the $-1/N$ through $\bar x$). A composite of
mean, subtraction and sum would give the same numbers except next to an infinite element:
there the mean's path adds NaN where torch's gradient is $\pm\infty$.
"""

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching
from minigrad.ops.reductions import _axes, _expand, _expand_tensor

__all__ = ["var"]


def _count(shape, axes):
    return math.prod(shape if axes is None else [shape[a] for a in axes])


def _batched_var(cls, info, in_dims, a, axes, keepdim, correction):
    """The same axes of each sample, one further on (vmap)."""
    if axes is None:  # a 0-d sample
        axes = ()
    return cls.apply(a, tuple(x + 1 for x in axes), keepdim, correction), 0


class Var(Function):
    backward_name = "VarBackward0"
    vmap = batching.Rule(_batched_var)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axes, keepdim, correction):
        ctx.save_for_backward(a)
        ctx.meta = (axes, keepdim, a.shape, max(_count(a.shape, axes) - correction, 0))
        centred = a - np.mean(a, axis=axes, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.sum(centred * centred, axis=axes, keepdims=keepdim) / np.asarray(
                ctx.meta[3], dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        axes, keepdim, shape, dof = ctx.meta
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.asarray(2.0, a.dtype) / np.asarray(dof, a.dtype)
            centred = a - np.mean(a, axis=axes, keepdims=True)
            return _expand(grad_output, axes, keepdim, shape) * scale * centred, None, None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        axes, keepdim, shape, dof = ctx.meta
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = float(np.float64(2.0) / np.float64(dof))
        centred = a - (a.mean() if axes is None else a.mean(axes, keepdim=True))
        return _expand_tensor(grad_output, axes, keepdim, shape) * scale * centred, None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        a = ctx.inputs[0]
        axes, keepdim, _shape, dof = ctx.meta
        with np.errstate(divide="ignore", invalid="ignore"):
            centred = a - np.mean(a, axis=axes, keepdims=True)
            return np.sum(2 * centred * tangent, axis=axes, keepdims=keepdim) / np.asarray(
                dof, a.dtype)

    @staticmethod
    def differentiable_jvp(ctx, tangent, *_):  # nested forward levels: on tensors
        a = ctx.inputs[0]
        axes, keepdim, _shape, dof = ctx.meta
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = float(np.float64(2.0) / np.float64(dof))
        centred = a - (a.mean() if axes is None else a.mean(axes, keepdim=True))
        total = (centred * tangent).sum() if axes is None else (centred * tangent).sum(
            axes, keepdim=keepdim)
        return total * scale


def var(x, dim=None, unbiased=None, keepdim=False, correction=None):
    """torch's ``Tensor.var(dim, unbiased, keepdim, *, correction)``."""
    if isinstance(dim, bool):  # x.var(False): the old (unbiased) signature
        dim, unbiased = None, dim
    if x._data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes. "
                           "Fix: x.double().var() (or .float()).")
    if unbiased is not None and correction is not None:
        raise TypeError("var() received an invalid combination of arguments - got both "
                        "unbiased and correction. Fix: give only correction= (unbiased=False "
                        "is correction=0).")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    if isinstance(dim, list):
        dim = tuple(dim)
    axes = _axes(dim, x._data.ndim)
    if dim is None and x._data.ndim:
        keepdim = False
    return Var.apply(x, axes, keepdim, c)
