r"""``tril``, ``triu`` and ``trace``: a matrix's triangles and its diagonal's sum (chapter
05; ``triu`` builds the causal mask of attention).

``tril(diagonal=k)`` keeps the elements on and below the ``k``-th diagonal and zeroes the
rest; the zeroed elements do not depend on the input, so the gradient is the same
triangle of the upstream gradient. ``trace`` is :math:`\sum_i A_{ii}`, whose gradient is
the identity matrix times the upstream number. As torch, ``trace`` of an int matrix is
int64, and both need a matrix.
"""

import numpy as np

from minigrad.autograd.function import Function, constant, linear_jvp
from minigrad.ops import batching

__all__ = ["tril", "triu", "trace"]


def _same_rule(cls, info, in_dims, a, k):
    """The last two dims of a batch of matrices: the op as is."""
    return cls.apply(a, k), 0


class Tril(Function):
    vmap = batching.Rule(_same_rule)  # its batching rule (vmap)
    numpy_op = staticmethod(np.tril)

    @classmethod
    def forward(cls, ctx, a, k):
        ctx.k = k
        return cls.numpy_op(a, k)

    @classmethod
    def backward(cls, ctx, grad_output):
        if hasattr(grad_output, "grad_fn"):
            return cls.apply(grad_output, ctx.k), None
        return cls.numpy_op(grad_output, ctx.k), None

    jvp = staticmethod(linear_jvp)


class Triu(Tril):
    numpy_op = staticmethod(np.triu)


def _trace_rule(cls, info, in_dims, a):
    """A batch of matrices: each one's diagonal, picked by an identity mask, summed."""
    eye = np.eye(*a._data.shape[1:], dtype=a._data.dtype)
    if a._data.dtype.kind in "biu":
        a = a.long()
    return (a * constant(eye.astype(a._data.dtype))).sum((1, 2)), 0


class Trace(Function):
    vmap = batching.Rule(_trace_rule)  # its batching rule (vmap)
    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.asarray(np.trace(a), dtype=np.int64 if a.dtype.kind in "biu" else a.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        eye = np.eye(*ctx.shape, dtype=getattr(grad_output, "_data", grad_output).dtype)
        return grad_output * (constant(eye) if hasattr(grad_output, "grad_fn") else eye)

    jvp = staticmethod(linear_jvp)


def _triangle(cls, name, input, diagonal):  # noqa: A002 - torch's argument name
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions. Fix: "
                           "make it a matrix first, t.reshape(n, m).")
    return cls.apply(input, int(diagonal))


def tril(input, diagonal=0):  # noqa: A002 - torch's argument name
    return _triangle(Tril, "tril", input, diagonal)


def triu(input, diagonal=0):  # noqa: A002 - torch's argument name
    return _triangle(Triu, "triu", input, diagonal)


def trace(input):  # noqa: A002 - torch's argument name
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                           f"{input._data.ndim}. Fix: trace takes a 2-d tensor.")
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'. Fix: convert first, "
                                  "t.long().trace().")
    return Trace.apply(input)
