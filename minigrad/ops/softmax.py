r"""``softmax`` and ``log_softmax`` (``torch.softmax``, ``Tensor.softmax`` and
``torch.nn.functional``'s; the makemore chapters: the classifier's probabilities, and the
manual backprop through cross entropy).

$y = \mathrm{softmax}(x)_i = e^{x_i - m} / \sum_j e^{x_j - m}$ with $m = \max_j x_j$ (it
cancels). One node each, as torch's ``SoftmaxBackward0`` and ``LogSoftmaxBackward0``,
saving the output: the backward is $y \odot (g - \sum_j g_j y_j)$, and for
$\ell = \log y$, $g - e^{\ell} \sum_j g_j$ (so an in-place change of the output is caught
as in torch). Under ``create_graph`` both are written in minigrad's ops on the saved
output, so derivatives of every order follow. As torch's kernels: floating inputs only
(``dtype=`` converts first), and an empty input comes back empty.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.dtypes import torch_name
from minigrad.ops import batching
from minigrad.ops.shape import dim_index

__all__ = ["softmax", "log_softmax"]


def _batched(cls, info, in_dims, a, axis):
    """The sample's axis, one further on (vmap); a 0-d sample's softmax is its own."""
    return cls.apply(a, tuple(x + 1 for x in axis)), 0


def _keep(t, axis):
    """``t.sum(axis, keepdim=True)`` of a tensor (``axis`` a tuple, maybe empty)."""
    return t.sum(axis, keepdim=True) if axis else t


class Softmax(Function):
    backward_name = "SoftmaxBackward0"
    vmap = batching.Rule(_batched)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axis):
        ctx.meta = axis
        if a.size == 0:
            y = a.copy()
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                e = np.exp(a - np.max(a, axis=axis, keepdims=True))
                y = e / np.sum(e, axis=axis, keepdims=True)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        gy = grad_output * y
        return gy - y * np.sum(gy, axis=ctx.meta, keepdims=True), None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        gy = grad_output * y
        return gy - y * _keep(gy, ctx.meta), None

    @staticmethod
    def jvp(ctx, tangent, *_):
        y = ctx.result
        ty = tangent * y
        return ty - y * np.sum(ty, axis=ctx.meta, keepdims=True)

    @staticmethod
    def differentiable_jvp(ctx, tangent, *_):  # nested forward levels: on tensors
        y = ctx.result
        ty = tangent * y
        return ty - y * _keep(ty, ctx.meta)


class LogSoftmax(Function):
    backward_name = "LogSoftmaxBackward0"
    vmap = batching.Rule(_batched)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axis):
        ctx.meta = axis
        if a.size == 0:
            out = a.copy()
        else:
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                shifted = a - np.max(a, axis=axis, keepdims=True)
                out = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output - np.exp(out) * np.sum(grad_output, axis=ctx.meta,
                                                  keepdims=True), None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output - out.exp() * _keep(grad_output, ctx.meta), None

    @staticmethod
    def jvp(ctx, tangent, *_):
        return tangent - np.sum(np.exp(ctx.result) * tangent, axis=ctx.meta, keepdims=True)

    @staticmethod
    def differentiable_jvp(ctx, tangent, *_):  # nested forward levels: on tensors
        return tangent - _keep(ctx.result.exp() * tangent, ctx.meta)


def _prepare(input, dim, dtype, name):  # noqa: A002 - torch's name
    if dim is None:
        raise TypeError(f"{name}() missing the dim argument. Fix: {name}(x, dim=-1) (torch's "
                        "implicit dim is deprecated).")
    x = input if dtype is None else input.to(dtype)
    ndim = x._data.ndim
    axis = (dim_index(dim, ndim),)  # checked as torch does, 0-d taking dim 0 or -1
    axis = axis if ndim else ()  # a 0-d tensor: nothing to reduce, its softmax is 1
    if x._data.dtype.kind != "f" and x._data.size:
        last = dim in (-1, ndim - 1) or ndim == 0
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{torch_name(x._data.dtype)}'. Fix: convert first, "
                                  f"x.float().{name}(dim) or {name}(x, dim, "
                                  "dtype=torch.float64).")
    return x, axis


def softmax(input, dim=None, dtype=None):  # noqa: A002 - torch's name
    x, axis = _prepare(input, dim, dtype, "softmax")
    return Softmax.apply(x, axis) if x._data.dtype.kind == "f" else x.clone()


def log_softmax(input, dim=None, dtype=None):  # noqa: A002 - torch's name
    x, axis = _prepare(input, dim, dtype, "log_softmax")
    return LogSoftmax.apply(x, axis) if x._data.dtype.kind == "f" else x.clone()
