r"""Running and whole products and sums along a dimension (chapter 05's reductions):
``cumsum``, ``cumprod``, ``prod`` and ``diff``.

.. math::
    y_k = \sum_{i \le k} x_i \;\Rightarrow\; \frac{\partial L}{\partial x_i}
          = \sum_{k \ge i} \frac{\partial L}{\partial y_k},
    \qquad
    p = \prod_i x_i \;\Rightarrow\; \frac{\partial p}{\partial x_i} = \prod_{j \ne i} x_j .

``cumsum``'s gradient is a reversed cumulative sum. ``prod``'s is the product of the
*other* elements, computed without dividing by :math:`x_i` so a zero input is exact (as
torch): the products left and right of each element; recorded (double backward), the
quotient :math:`p / x_i` without zeros, each other-product as a ``prod`` of its own with
them. ``cumprod``'s is :math:`\sum_{k \ge i} G_k y_k / x_i`, and with zeros the sum of
the products that skip :math:`x_i` (recorded: one ``prod`` each). As torch, an int or
bool input gives int64 (or ``dtype=``). ``diff`` is torch's composition of two slices
and a subtraction.
"""

import numpy as np

from minigrad.autograd.function import Function, constant, linear_jvp
from minigrad.ops import batching
from minigrad.ops.reductions import _axes, _expand, _expand_tensor
from minigrad.ops.shape import dim_index

__all__ = ["cumsum", "cumprod", "prod", "diff"]


def _is_tensor(x):
    return hasattr(x, "grad_fn")


def _dim_rule(cls, info, in_dims, a, dim):
    return cls.apply(a, dim + 1), 0


def _reverse_cumsum(g, dim):
    if _is_tensor(g):
        from minigrad.ops.reorder import flip

        return flip(Cumsum.apply(flip(g, dim), dim), dim)
    return np.flip(np.cumsum(np.flip(g, dim), dim), dim)


class Cumsum(Function):
    vmap = batching.Rule(_dim_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return np.cumsum(a, dim)

    @staticmethod
    def backward(ctx, grad_output):
        return _reverse_cumsum(grad_output, ctx.dim), None

    jvp = staticmethod(linear_jvp)


def _exclusive(x, dim):
    """``cumprod`` of ``x`` shifted by one along ``dim`` (1 first): the products before."""
    ones = np.ones_like(np.take(x, [0], axis=dim))
    return np.concatenate([ones, np.cumprod(x, dim).take(range(x.shape[dim] - 1), dim)], dim)


def _others(x, dim):
    """Each element's product of the others along ``dim`` (exact with zeros)."""
    if not x.shape[dim]:  # an empty dimension: no elements, no others
        return np.ones_like(x)
    before = _exclusive(x, dim)
    after = np.flip(_exclusive(np.flip(x, dim), dim), dim)
    return before * after


class Cumprod(Function):
    vmap = batching.Rule(_dim_rule)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        out = np.cumprod(a, dim)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, out = ctx.saved_tensors
        dim = ctx.dim
        data = a._data if _is_tensor(a) else a
        if (data != 0).all():
            return _reverse_cumsum(grad_output * out, dim) / a, None
        if _is_tensor(grad_output):  # recorded: each y_k's gradient, the others' products
            from minigrad.ops.joining import cat

            x, g = a.movedim(dim, -1), grad_output.movedim(dim, -1)
            last, n = x._data.ndim - 1, x._data.shape[-1]
            total = 0
            for k in range(n):
                prefix = x[..., :k + 1]
                whole = Prod.apply(prefix, (last,), True)
                part = g[..., k:k + 1] * _others_over(prefix, (last,), whole)
                zeros = constant(np.zeros(part._data.shape[:-1] + (n - k - 1,),
                                          part._data.dtype))
                total = total + cat([part, zeros], -1)
            return total.movedim(-1, dim), None
        g = np.moveaxis(grad_output, dim, -1)
        x = np.moveaxis(a, dim, -1)
        grad = np.empty_like(g)
        for i in range(x.shape[-1]):  # the products that skip x_i, for every k >= i
            skipped = np.cumprod(np.concatenate([_exclusive(x, -1)[..., i:i + 1],
                                                 x[..., i + 1:]], -1), -1)
            grad[..., i] = (g[..., i:] * skipped).sum(-1)
        return np.moveaxis(grad, -1, dim), None

    @staticmethod
    def jvp(ctx, tangent, _):
        a, out = ctx.inputs[0], ctx.result
        if _is_tensor(a) and (a._data != 0).all():
            return Cumsum.apply(tangent / a, ctx.dim) * out
        if _is_tensor(a):  # nested forward levels through a zero: the products that skip it
            from minigrad.ops.joining import stack

            x, t = a.movedim(ctx.dim, -1), tangent.movedim(ctx.dim, -1)
            last = x._data.ndim - 1
            cols = []
            for k in range(x._data.shape[-1]):
                prefix = x[..., :k + 1]
                whole = Prod.apply(prefix, (last,), True)
                cols.append((t[..., :k + 1] * _others_over(prefix, (last,), whole)).sum(-1))
            return stack(cols, -1).movedim(-1, ctx.dim)
        with np.errstate(all="ignore"):
            if (a != 0).all():
                return np.cumsum(tangent / a, ctx.dim) * out
        x, t = np.moveaxis(a, ctx.dim, -1), np.moveaxis(tangent, ctx.dim, -1)
        cols = [(t[..., :k + 1] * _others(x[..., :k + 1], -1)).sum(-1)
                for k in range(x.shape[-1])]
        return np.moveaxis(np.stack(cols, -1), -1, ctx.dim)


def _others_over(x, axes, out=None):
    """Each element's product of the others over ``axes`` (None: all): the reduced axes
    moved last and flattened. On tensors (a recorded backward) ``out / x`` without zeros,
    else one ``prod`` per element of the others."""
    ndim = len(x.shape)
    axes = tuple(range(ndim)) if axes is None else axes
    last = tuple(range(ndim - len(axes), ndim))
    if not _is_tensor(x):
        moved = np.moveaxis(x, axes, last)
        flat = moved.reshape(moved.shape[:ndim - len(axes)] + (-1,))
        return np.moveaxis(_others(flat, -1).reshape(moved.shape), last, axes)
    if (x._data != 0).all():
        return out / x
    from minigrad.ops.joining import cat, stack

    moved = x.movedim(axes, last) if axes else x
    flat = moved.reshape(tuple(moved.shape[:ndim - len(axes)]) + (-1,))
    n, end = flat._data.shape[-1], flat._data.ndim - 1
    parts = [Prod.apply(cat([flat[..., :i], flat[..., i + 1:]], -1), (end,), False)
             for i in range(n)]
    others = stack(parts, -1).reshape(tuple(moved.shape))
    return others.movedim(last, axes) if axes else others


class Prod(Function):
    """The product of all elements (``ProdBackward0``) or along one dim (``...1``)."""

    vmap = batching.Rule(batching.reduction)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        if axes is not None and len(axes) == 1:
            ctx.backward_name = "ProdBackward1"
        ctx.meta = (axes, keepdim, a.shape)
        out = np.asarray(np.prod(a, axis=axes, keepdims=keepdim))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, out = ctx.saved_tensors
        axes, keepdim, shape = ctx.meta
        if _is_tensor(grad_output):
            full = _expand_tensor(out, axes, keepdim, shape)
            return (_expand_tensor(grad_output, *ctx.meta) * _others_over(a, axes, full),
                    None, None)
        return _expand(grad_output, *ctx.meta) * _others_over(a, axes), None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        axes, keepdim, shape = ctx.meta
        a = ctx.inputs[0]
        if _is_tensor(tangent):
            full = _expand_tensor(ctx.result, axes, keepdim, shape)
            weighted = tangent * _others_over(a, axes, full)
            return weighted.sum(axes, keepdim) if axes else weighted.sum()
        weighted = tangent * _others_over(a, axes)
        return np.asarray(np.sum(weighted, axis=axes, keepdims=keepdim))


def _integral(input, dtype):  # noqa: A002 - torch's argument name
    """torch's accumulation dtype: ``dtype`` if given, int64 for ints and bools."""
    if dtype is not None:
        return input.to(dtype)
    if input._data.dtype.kind in "biu" and input._data.dtype != np.int64:
        return input.long()
    return input


def _running(cls, a, dim, dtype):
    dim = dim_index(dim, a._data.ndim)
    a = _integral(a, dtype)
    if not a._data.ndim:  # a 0-d tensor: itself
        return cls.apply(a.reshape(1), 0).reshape(())
    return cls.apply(a, dim)


def cumsum(input, dim, *, dtype=None):  # noqa: A002 - torch's argument name
    return _running(Cumsum, input, dim, dtype)


def cumprod(input, dim, *, dtype=None):  # noqa: A002 - torch's argument name
    return _running(Cumprod, input, dim, dtype)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - torch's name
    a = _integral(input, dtype)
    if dim is None:
        return Prod.apply(a, None, False)
    if isinstance(dim, tuple | list):
        raise TypeError("prod(): argument 'dim' must be int, not tuple. Fix: prod over one "
                        "dim at a time, or flatten first, t.reshape(-1).prod(0).")
    return Prod.apply(a, _axes(dim, a._data.ndim), keepdim)


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002 - torch's name
    if not input._data.ndim:
        raise RuntimeError("diff expects input to be at least one-dimensional. Fix: diff "
                           "a vector or a matrix.")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}. Fix: n is 0 or more.")
    from minigrad.ops.joining import cat

    parts = [t for t in (prepend, input, append) if t is not None]
    out = cat(parts, dim) if len(parts) > 1 else input
    dim = dim_index(dim, out._data.ndim)
    for _ in range(n):
        size = out._data.shape[dim]
        key = (slice(None),) * dim
        later, earlier = out[key + (slice(1, size),)], out[key + (slice(0, size - 1),)]
        out = later != earlier if out._data.dtype == np.bool_ else later - earlier
    return out
