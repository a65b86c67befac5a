r"""Matrix products: ``a @ b``, ``mm``, ``matmul`` (chapters 06 and 07).

For :math:`C = A B` with :math:`A` of shape ``(n, k)`` and :math:`B` of shape
``(k, m)``, each :math:`C_{ij} = \sum_p A_{ip} B_{pj}`, so

.. math::
    \frac{\partial L}{\partial A} = \frac{\partial L}{\partial C} B^\top, \qquad
    \frac{\partial L}{\partial B} = A^\top \frac{\partial L}{\partial C}.

The example of the PyTorch forum thread on ``backward(gradient)`` (chapter 06):
``x = ones(2, 3)``, ``a = ones(3, 4)``, ``out = mm(x, a)`` and the upstream gradient
``[[1, 2, 3, 4], [5, 6, 7, 8]]`` give ``x.grad = gradient @ a.T = [[10, 10, 10],
[26, 26, 26]]``: each row of the gradient summed, since ``a`` is all ones.

:class:`Mm` is the two-dimensional case; :class:`Matmul` adds numpy's rules for
vectors (a 1-D operand gets a dimension of 1 for the product, removed afterwards) and
batches (leading dimensions broadcast; the engine sums them back).
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching

__all__ = ["mm", "matmul"]


class Mm(Function):
    """Matrix times matrix, both two-dimensional."""

    vmap = batching.Rule(batching.matmul)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        # As torch: keep b only if a needs a gradient and a only if b does.
        need_a, need_b = ctx.needs_input_grad or (False, False)
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_output @ b.T if need_a else None  # dL/dA = dL/dC B^T
        grad_b = a.T @ grad_output if need_b else None  # dL/dB = A^T dL/dC
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return (0 if ta is None else ta @ b) + (0 if tb is None else a @ tb)


class Matmul(Function):
    """Any ``a @ b`` numpy accepts: vectors, matrices and batches of matrices."""

    vmap = batching.Rule(batching.matmul)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad or (False, False)
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.ndims = (a.ndim, b.ndim)
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        a_ndim, b_ndim = ctx.ndims
        g = grad_output
        if b_ndim == 1:
            g = np.expand_dims(g, -1)
        if a_ndim == 1:
            g = np.expand_dims(g, -2)
        grad_a = grad_b = None
        if need_a:
            b2 = b[:, None] if b_ndim == 1 else b  # (k,) -> (k, 1)
            grad_a = g @ np.swapaxes(b2, -1, -2)
            grad_a = grad_a[..., 0, :] if a_ndim == 1 else grad_a
        if need_b:
            a2 = a[None, :] if a_ndim == 1 else a  # (k,) -> (1, k)
            grad_b = np.swapaxes(a2, -1, -2) @ g
            grad_b = grad_b[..., 0] if b_ndim == 1 else grad_b
        return grad_a, grad_b

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        a1, b1 = (n == 1 for n in ctx.ndims)
        g = grad_output
        if b1:
            g = g.unsqueeze(-1)
        if a1:
            g = g.unsqueeze(-2)
        grad_a = grad_b = None
        if need_a:
            b2 = b.unsqueeze(-1) if b1 else b
            grad_a = g @ b2.transpose(-1, -2)
            grad_a = grad_a.squeeze(-2) if a1 else grad_a
        if need_b:
            a2 = a.unsqueeze(0) if a1 else a
            grad_b = a2.transpose(-1, -2) @ g
            grad_b = grad_b.squeeze(-1) if b1 else grad_b
        return grad_a, grad_b

    @staticmethod
    def differentiable_jvp(ctx, ta, tb):  # nested forward levels: on tensors
        a, b = ctx.inputs
        return (0 if ta is None else ta @ b) + (0 if tb is None else a @ tb)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return ((0 if ta is None else np.matmul(ta, b))
                + (0 if tb is None else np.matmul(a, tb)))


class Mv(Matmul):
    """Matrix times vector."""


class Dot(Matmul):
    """Vector times vector."""


def _shape_text(shape):
    return "x".join(str(n) for n in shape)


def same_dtype(a, b, name="mm"):
    """torch multiplies matrices of one dtype only (numpy would promote silently), and
    not bool ones."""
    if a.dtype == np.bool_ and (b.dtype == np.bool_ or name == "bmm"):
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'. Fix: convert '
                                  "first, a.long() @ b.long().")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c_name(a.dtype)} != "
            f"{_c_name(b.dtype)}. Fix: convert one, e.g. w.to(x.dtype) or x.double().")


def _folds(a, b):
    """torch's ``should_fold``: does ``matmul`` fold the batch of the larger operand into
    one matrix (``mm``/``mv``) rather than call ``bmm``? It decides which of their dtype
    errors a mixed-dtype product raises."""
    larger, smaller = (a, b) if a._data.ndim >= b._data.ndim else (b, a)
    shape, strides = list(larger._data.shape), [s // larger._data.itemsize
                                               for s in larger._data.strides]
    if larger is b:  # torch folds b.mT
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    if not (len(shape) >= 3 and smaller._data.ndim <= 2):
        return False
    if smaller._requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if not larger._data.size:
        return True
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _c_name(dtype):
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(
        str(dtype), str(dtype))


def mm(a, b):
    """Product of two matrices, as ``torch.mm``."""
    if a._data.ndim != 2 or b._data.ndim != 2:
        raise RuntimeError("self must be a matrix. Fix: mm() takes two 2-D tensors; use "
                           "matmul() or @ for vectors and batches.")
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a._data.shape)} and "
            f"{_shape_text(b._data.shape)}). Fix: the columns of the first must equal the "
            "rows of the second; transpose one of them (w.t()) if that is what you meant.")
    same_dtype(a._data, b._data)
    return Mm.apply(a, b)


def matmul(a, b):
    """``a @ b``: ``mm`` for two matrices, numpy's ``matmul`` rules otherwise."""
    na, nb = a._data.ndim, b._data.ndim
    if na == 2 and nb == 2:
        return mm(a, b)
    if na == 0 or nb == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D. Fix: use * to multiply by a scalar.")
    sa, sb = a._data.shape, b._data.shape
    try:  # shapes first, as torch: then dtypes
        np.broadcast_shapes(sa[:-2], sb[:-2])
        fits = sa[-1] == (sb[-2] if nb > 1 else sb[0])
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shapes cannot be multiplied ({_shape_text(sa)} and {_shape_text(sb)}): the "
            "last dimension of the first must equal the second-to-last of the second (the "
            "only one of a vector). Fix: transpose or reshape one of them.")
    folded = "addmv" if min(na, nb) == 1 else "mm"  # torch folds a batch into one matrix
    same_dtype(a._data, b._data, "dot" if na == nb == 1 else "addmv" if nb == 1 else
               ("bmm" if not _folds(a, b) else folded) if max(na, nb) > 2 else "mm")
    cls = Dot if na == nb == 1 else Mv if (na == 2 and nb == 1) else Matmul
    return cls.apply(a, b)
