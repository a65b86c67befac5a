r"""``where(condition, input, other)``: pick each element from one of two tensors
(chapters 07 and 15).

.. math::
    \text{out}_i = \begin{cases} \text{input}_i & \text{condition}_i \\
                                 \text{other}_i & \text{otherwise,} \end{cases}
    \qquad \frac{\partial L}{\partial \text{input}} = \text{where}(c, g, 0), \quad
    \frac{\partial L}{\partial \text{other}} = \text{where}(c, 0, g).

The gradient is *selected*, not multiplied by a mask, so an ``inf`` arriving for an
element that was not picked gives 0 there, not ``0 * inf = nan`` (torch's rule, which
matters for ``where(x > 0, x.log(), 0)``-style guards). ``input`` and ``other`` may be
numbers; the three broadcast together, and the dtype is torch's promotion of the two
values. The condition gets no gradient.
"""

import numpy as np

from minigrad import tensors
from minigrad.autograd.function import Function
from minigrad.dtypes import result_type, torch_name
from minigrad.ops import batching
from minigrad.ops.arithmetic import broadcast_error
from minigrad.ops.promotion import promote

__all__ = ["where"]


class Where(Function):
    vmap = batching.Rule(batching.pointwise)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, condition, a, b, dtype):
        ctx.save_for_backward(condition)
        return np.where(condition, a, b).astype(dtype, copy=False)

    @staticmethod
    def backward(ctx, grad_output):
        (condition,) = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[1:3]
        grad_a = np.where(condition, grad_output, 0) if need_a else None
        grad_b = np.where(condition, 0, grad_output) if need_b else None
        return None, grad_a, grad_b, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        (condition,) = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[1:3]
        dtype = grad_output._data.dtype
        grad_a = Where.apply(condition, grad_output, 0.0, dtype) if need_a else None
        grad_b = Where.apply(condition, 0.0, grad_output, dtype) if need_b else None
        return None, grad_a, grad_b, None

    @staticmethod
    def differentiable_jvp(ctx, t_condition, t_a, t_b, t_dtype):  # nested levels: tensors
        condition, _, _, dtype = ctx.inputs
        condition = getattr(condition, "_data", condition)
        return Where.apply(condition, 0.0 if t_a is None else t_a,
                           0.0 if t_b is None else t_b, dtype)

    @staticmethod
    def jvp(ctx, t_condition, t_a, t_b, t_dtype):
        condition, a, b, dtype = ctx.inputs
        return np.where(condition, 0 if t_a is None else t_a,
                        0 if t_b is None else t_b).astype(dtype, copy=False)


def where(condition, input=None, other=None):  # noqa: A002 - torch's argument names
    """``where(c, a, b)``; ``where(c)`` alone is ``c.nonzero(as_tuple=True)``, as torch."""
    if input is None and other is None:
        return tuple(tensors.make(index, None) for index in np.nonzero(condition._data))
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {torch_name(condition._data.dtype)}. Fix: "
                           "compare first, e.g. where(x > 0, x, y).")
    target = result_type(getattr(input, "_data", input), getattr(other, "_data", other))
    input, other = promote(input, other)  # noqa: A001 - torch's argument name
    for x, y in ((condition, input), (condition, other), (input, other)):
        error = broadcast_error(getattr(x, "_data", x), getattr(y, "_data", y))
        if error is not None:
            raise error
    return Where.apply(condition, input, other, target)
