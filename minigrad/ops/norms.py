r"""``dot`` and the vector norms, ``norm`` / ``linalg.vector_norm`` (chapters 06 and 11).

.. math::
    \|x\|_p = \Big(\sum_i |x_i|^p\Big)^{1/p}, \qquad
    \frac{\partial \|x\|_p}{\partial x_i} = \frac{x_i\, |x_i|^{p-2}}{\|x\|_p^{p-1}}
    \quad (p = 2:\ x_i / \|x\|_2),

with torch's special cases (``linalg_vector_norm_backward``): ``p = 1`` gives
:math:`\operatorname{sgn} x_i`; ``p = inf`` (``-inf``) splits the gradient evenly
between the elements whose magnitude is the norm; ``p = 0`` counts nonzeros and sends
no gradient (``.grad`` stays None, as torch's); and where a norm is 0 the gradient is 0
(a subgradient), not ``0/0``.
"""

import math

import numpy as np

from minigrad import tensors
from minigrad.autograd.function import Function
from minigrad.dtypes import torch_name
from minigrad.ops import batching
from minigrad.ops.pointwise import sgn
from minigrad.ops.reductions import _axes, _expand
from minigrad.ops.selection import Where

__all__ = ["dot", "vector_norm", "norm"]


class Dot(Function):
    vmap = batching.Rule(batching.dot)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.dot(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad_output * b if need_a else None), (grad_output * a if need_b else None)

    @staticmethod
    def differentiable_jvp(ctx, t_a, t_b):  # nested forward levels: on tensors
        a, b = ctx.inputs
        return (0 if t_a is None else (t_a * b).sum()) + (0 if t_b is None else (a * t_b).sum())

    @staticmethod
    def jvp(ctx, t_a, t_b):
        a, b = ctx.inputs
        return (0 if t_a is None else np.dot(t_a, b)) + (0 if t_b is None else np.dot(a, t_b))


def _weights(a, out, ord, axes, keepdim):  # noqa: A002 - torch's name
    r""":math:`\partial \|x\| / \partial x` as two factors: ``scaled`` (the input's part) and
    ``scale`` (the norm's, 0 where the norm is 0), each broadcasting to ``a``'s shape."""
    norm = _expand(out, axes, keepdim, a.shape)
    if ord == 1:
        return sgn(a), np.ones_like(norm)
    if math.isinf(ord):
        mask = np.abs(a) == norm
        count = np.sum(mask, axis=axes, keepdims=True)
        return sgn(a) * mask / count, np.ones_like(norm)
    with np.errstate(divide="ignore", invalid="ignore"):
        if ord == 2:
            scaled, scale = a, 1 / norm
        elif ord < 2:
            scaled, scale = sgn(a) * np.abs(a) ** (ord - 1), 1 / norm ** (ord - 1)
        else:
            scaled, scale = a * np.abs(a) ** (ord - 2), 1 / norm ** (ord - 1)
    return scaled, np.where(norm == 0, 0, scale)


def _kept_shape(shape, axes):
    """The shape of a reduction over ``axes`` with ``keepdim=True``."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


class LinalgVectorNorm(Function):
    vmap = batching.Rule(batching.vector_norm)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, ord, axes, keepdim):  # noqa: A002 - torch's name
        ctx.meta = (ord, axes, keepdim)
        magnitude = np.abs(a)
        if ord == 2:
            out = np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
        elif ord == math.inf:
            out = np.max(magnitude, axis=axes, keepdims=keepdim)
        elif ord == -math.inf:
            out = np.min(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 0:
            out = np.sum(magnitude != 0, axis=axes, keepdims=keepdim)
        elif ord == 1:
            out = np.sum(magnitude, axis=axes, keepdims=keepdim)
        else:
            with np.errstate(divide="ignore"):
                out = np.sum(magnitude ** ord, axis=axes, keepdims=keepdim) ** (1 / ord)
        out = np.asarray(out, dtype=a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, out = ctx.saved_tensors
        order, axes, keepdim = ctx.meta
        if order == 0:  # no gradient at all (torch leaves .grad None), not zeros
            return None, None, None, None
        scaled, scale = _weights(a, out, order, axes, keepdim)
        return scaled * (_expand(grad_output, axes, keepdim, a.shape) * scale), None, None, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        a, norm = ctx.saved_tensors  # the input and the output, joined to the graph
        order, axes, keepdim = ctx.meta
        shape, dtype = a._data.shape, a._data.dtype
        if order == 0:
            return None, None, None, None
        g = grad_output
        if order == 1 or math.isinf(order):  # piecewise linear: constant weights
            scaled, _ = _weights(a._data, norm._data, order, axes, keepdim)
            g = g if axes is None or keepdim else g.reshape(_kept_shape(shape, axes))
            return g * tensors.make(scaled, None), None, None, None
        if axes is not None and not keepdim:
            g, norm = g.reshape(_kept_shape(shape, axes)), norm.reshape(_kept_shape(shape, axes))
        zero = tensors.make(norm._data == 0, None)
        if order == 2:
            scaled, scale = a, 1 / norm
        elif order < 2:
            scaled = tensors.make(sgn(a._data), None) * a.abs() ** (order - 1)
            scale = 1 / norm ** (order - 1)
        else:
            scaled, scale = a * a.abs() ** (order - 2), 1 / norm ** (order - 1)
        scale = Where.apply(zero, 0.0, scale, dtype)
        return scaled * (g * scale), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *unused):
        a, order, axes, keepdim = ctx.inputs
        if order == 0:
            return np.zeros_like(ctx.result)
        scaled, scale = _weights(a, ctx.result, order, axes, keepdim)
        return np.sum(scaled * scale * tangent, axis=axes, keepdims=keepdim)


def dot(input, tensor):  # noqa: A002 - torch's argument names
    """The inner product of two 1-d tensors of one size and one dtype."""
    a, b = input._data, tensor._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors. "
                           "Fix: flatten them, or use matmul / @ for matrices.")
    if a.size != b.size:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.size}] and src "
                           f"[{b.size}] to have the same number of elements, but got "
                           f"{a.size} and {b.size} elements respectively. Fix: the vectors "
                           "must be the same length.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{torch_name(a.dtype)} and {torch_name(b.dtype)}. Fix: convert "
                           "one, e.g. b.to(a.dtype).")
    if a.dtype.kind == "b":
        raise NotImplementedError('"dot" not implemented for \'Bool\'. Fix: convert first, '
                                  "a.long() or a.float().")
    return Dot.apply(input, tensor)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """``linalg.vector_norm``: the ``ord``-norm over ``dim`` (all elements by default)."""
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {torch_name(x._data.dtype)}. Fix: convert first, "
                           "x.float().")
    if dtype is not None:
        x = x.to(dtype)
    axes = _axes(dim, x._data.ndim)
    if not x._data.ndim:
        axes = None
    ord = float(ord)  # noqa: A001
    if math.isinf(ord) and x._data.size == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty "
                           "tensor because the operation does not have an identity. Fix: "
                           "use a finite ord, or a non-empty tensor.")
    return LinalgVectorNorm.apply(x, ord, axes, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):  # noqa: A002
    """``torch.norm``: a vector norm (``p="fro"`` is 2); the matrix norms are not here."""
    if p == "fro" or p is None:
        p = 2
    elif isinstance(p, str):
        raise NotImplementedError(f"minigrad's norm has the vector norms only, not p='{p}'. "
                                  "Fix: use a number p, or 'fro'.")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)
