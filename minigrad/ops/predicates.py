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


def _physical(function):
    """Inside vmap: the test of the physical tensor, batched again (a sample's stand-in
    data holds no numbers)."""

    def run(input, *args):  # noqa: A002 - torch's argument name
        from minigrad._functorch.batched import BatchedTensor, wrap

        if isinstance(input, BatchedTensor):
            return wrap(run(input._value, *args), input._level)
        return function(input, *args)

    run.__name__ = run.__qualname__ = function.__name__
    run.__doc__ = function.__doc__
    return run


@_physical
def isnan(input):  # noqa: A002 - torch's argument name
    return constant(np.isnan(input._data) if input._data.dtype.kind == "f"
                    else np.zeros(input._data.shape, np.bool_))


@_physical
def isinf(input):  # noqa: A002 - torch's argument name
    return constant(np.isinf(input._data) if input._data.dtype.kind == "f"
                    else np.zeros(input._data.shape, np.bool_))


@_physical
def logical_not(input):  # noqa: A002 - torch's argument name
    return constant(np.logical_not(input._data))


def count_nonzero(input, dim=None):  # noqa: A002 - torch's argument name
    from minigrad._functorch.batched import BatchedTensor, wrap

    ndim = input._data.ndim
    axes = None if dim is None else _axes(dim, ndim)
    if isinstance(input, BatchedTensor):  # the sample's axes, one further on
        axes = tuple(range(ndim)) if axes is None else axes
        return wrap(count_nonzero(input._value, tuple(a + 1 for a in axes)), input._level)
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
