r"""Tests of each element and the repair of non-finite ones (chapter 12's NaN hunting):
``isnan``, ``isinf``, ``logical_not``, ``count_nonzero`` and ``nan_to_num``.

The tests give bool tensors (``count_nonzero`` an int64 count) outside any graph: they
are step functions, with no gradient, as torch. ``nan_to_num(nan=0.0, posinf=None,
neginf=None)`` replaces NaN by ``nan`` and the infinities by the dtype's largest and
smallest finite numbers (or the values given); its gradient is the upstream gradient where
the input was finite and zero where it was replaced (torch's ``NanToNumBackward0``).
"""

import numpy as np

from minigrad.autograd.function import Function, constant
from minigrad.ops import batching
from minigrad.ops.reductions import _axes

__all__ = ["isnan", "isinf", "logical_not", "count_nonzero", "nan_to_num"]


def isnan(input):  # noqa: A002 - torch's argument name
    return constant(np.isnan(input._data) if input._data.dtype.kind == "f"
                    else np.zeros(input._data.shape, np.bool_))


def isinf(input):  # noqa: A002 - torch's argument name
    return constant(np.isinf(input._data) if input._data.dtype.kind == "f"
                    else np.zeros(input._data.shape, np.bool_))


def logical_not(input):  # noqa: A002 - torch's argument name
    return constant(np.logical_not(input._data))


def count_nonzero(input, dim=None):  # noqa: A002 - torch's argument name
    axes = None if dim is None else _axes(dim, input._data.ndim)
    return constant(np.asarray(np.count_nonzero(input._data, axis=axes), dtype=np.int64))


class NanToNum(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.finite = np.isfinite(a)
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad_output):
        finite = ctx.finite.astype(grad_output.dtype if not hasattr(grad_output, "grad_fn")
                                   else grad_output._data.dtype)
        if hasattr(grad_output, "grad_fn"):
            finite = constant(finite)
        return grad_output * finite, None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        finite = ctx.finite
        return tangent * (constant(finite) if hasattr(tangent, "grad_fn") else finite)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002 - torch's name
    if input._data.dtype.kind != "f":
        return input.clone()
    return NanToNum.apply(input, nan, posinf, neginf)
