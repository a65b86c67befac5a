r"""Matrix products beyond ``mm`` (chapters 05 and 07): ``bmm``, ``addmm`` and
``outer``.

``bmm`` multiplies two batches of matrices, ``(b, n, m) @ (b, m, p)``, with ``@``'s
gradients per batch (torch's ``BmmBackward0``). ``addmm(input, mat1, mat2, beta=1,
alpha=1)`` is the fused layer :math:`\beta\,\mathrm{input} + \alpha\,\mathrm{mat1}\,
\mathrm{mat2}` (``input`` broadcast, as a bias): gradients :math:`\beta\,G` (summed back
to the bias' shape), :math:`\alpha\,G\,\mathrm{mat2}^T` and :math:`\alpha\,
\mathrm{mat1}^T G`. With ``beta=0`` the input is ignored, NaNs included, as torch.
``outer(u, v)`` is :math:`u_i v_j`, torch's own composition ``u[:, None] * v`` (its node
is ``MulBackward0``).
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops import batching
from minigrad.ops.matmul import Matmul, _shape_text, mm, same_dtype

__all__ = ["bmm", "addmm", "outer"]


class Bmm(Matmul):
    """Batches of matrices, both three-dimensional."""


def _mT(x):  # noqa: N802 - the matrix transpose, torch's mT
    return x.transpose(-1, -2) if hasattr(x, "grad_fn") else np.swapaxes(x, -1, -2)


def _addmm_rule(cls, info, in_dims, bias, a, b, beta, alpha):
    """Per sample: ``@``'s batching rule, then the scaled bias broadcast as a sample's."""
    product_batched = in_dims[1] == 0 or in_dims[2] == 0
    if not product_batched:  # only the bias is batched: one product, then per sample
        return batching._batched().fallback(cls, info, in_dims, [bias, a, b, beta, alpha])
    product = batching._matmul(a, in_dims[1] == 0, b, in_dims[2] == 0)
    product = product * alpha if alpha != 1 else product
    if beta == 0:
        return product, 0
    scaled = bias * beta if beta != 1 else bias
    left, right = batching._batched()._aligned([(product, True), (scaled, in_dims[0] == 0)])
    return left + right, 0


class Addmm(Function):
    """``beta * bias + alpha * (a @ b)``."""

    vmap = batching.Rule(_addmm_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, bias, a, b, beta, alpha):
        ctx.scales = (beta, alpha)
        ctx.save_for_backward(a, b)
        product = a @ b
        if alpha != 1:
            product = product * np.asarray(alpha, dtype=a.dtype)
        if beta == 0:
            return np.broadcast_to(product, np.broadcast_shapes(bias.shape, product.shape))
        return product + (bias if beta == 1 else bias * np.asarray(beta, dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        beta, alpha = ctx.scales
        need_bias, need_a, need_b = ctx.needs_input_grad[:3]
        g = grad_output * alpha if alpha != 1 else grad_output
        return (grad_output * beta if need_bias else None,
                g @ _mT(b) if need_a else None,
                _mT(a) @ g if need_b else None, None, None)

    @staticmethod
    def jvp(ctx, tbias, ta, tb, *_):
        bias, a, b = ctx.inputs[:3]
        beta, alpha = ctx.scales
        product = (0 if ta is None else ta @ b) + (0 if tb is None else a @ tb)
        out = product * alpha
        return out if tbias is None or beta == 0 else out + tbias * beta


def bmm(input, mat2):  # noqa: A002 - torch's argument name
    for name, t in (("batch1", input), ("batch2", mat2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor. Fix: bmm takes (b, n, m) and "
                               "(b, m, p); use matmul() for other shapes.")
    (b, _, m), shape = input._data.shape, mat2._data.shape
    if shape[:2] != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {m}] but got: [{shape[0]}, {shape[1]}]. Fix: the second "
                           "batch must have as many rows as the first has columns.")
    same_dtype(input._data, mat2._data)
    return Bmm.apply(input, mat2)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002 - torch's argument name
    mm(mat1.detach(), mat2.detach())  # torch's checks of the two matrices, first
    rows, cols = mat1._data.shape[0], mat2._data.shape[1]
    try:
        np.broadcast_shapes(input._data.shape, (rows, cols))
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({cols}) must match the existing "
                           f"size ({input._data.shape[-1]}) at non-singleton dimension 1.  "
                           f"Target sizes: [{rows}, {cols}].  Tensor sizes: "
                           f"{list(input._data.shape)}. Fix: the bias must broadcast to "
                           f"{_shape_text((rows, cols))}.") from None
    return Addmm.apply(input, mat1, mat2, beta, alpha)


def outer(input, vec2):  # noqa: A002 - torch's argument name
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{t._data.ndim}-D. Fix: flatten it first, t.reshape(-1).")
    return input.reshape(-1, 1) * vec2

