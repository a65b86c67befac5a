r"""Batching rules: each op once on a whole batch, for ``vmap`` (chapter 15).

A rule has torch's signature, ``vmap(info, in_dims, *args)``: ``args`` are what the op's
``apply`` got, a batched tensor replaced by its physical tensor (the batch at dim 0,
``in_dims`` 0) and anything else as is (``in_dims`` None); ``info.batch_size`` is the
batch's size. It returns ``(output, out_dim)``. The op classes name their rule as a
``vmap`` attribute (``vmap = Rule(pointwise)``, read as a staticmethod); an op without one runs per
sample (``_functorch.batched.fallback``).

Arguments such as ``dim`` or ``shape`` come normalized for one sample (non-negative axes):
the rules shift them by one past the batch dimension.
"""

import functools

__all__ = ["Rule", "pointwise", "reduction", "view", "transpose", "permute", "unsqueeze", "squeeze",
           "matmul", "linear", "index", "max_dim", "join", "mse_loss", "cross_entropy",
           "whole", "dot", "vector_norm"]


def _batched():
    from minigrad._functorch import batched

    return batched


class Rule:
    """``vmap = Rule(pointwise)`` in an op's class: read as ``Op.vmap``, the function with
    the class bound, called as torch's ``vmap(info, in_dims, *args)`` staticmethod."""

    def __init__(self, function):
        self.function = function

    def __get__(self, obj, owner):
        return functools.partial(self.function, owner)


def pointwise(cls, info, in_dims, *args):
    """Elementwise ops with broadcasting: batched operands get size-1 dims after the
    batch, so every sample broadcasts as it did alone."""
    pairs = [(a, d == 0) for a, d in zip(args, in_dims, strict=True)]
    tensors_ = [(a, b) for a, b in pairs if hasattr(a, "grad_fn")]
    aligned = iter(_batched()._aligned(tensors_))
    new = [next(aligned) if hasattr(a, "grad_fn") else a for a, _ in pairs]
    return cls.apply(*new), 0


def _shift(axes):
    return None if axes is None else tuple(a + 1 for a in axes)


def reduction(cls, info, in_dims, a, axes, keepdim):
    """``sum``/``mean`` over sample axes: the same axes, one further on."""
    if axes is None:  # every axis of the sample
        axes = tuple(range(a._data.ndim - 1))
    return cls.apply(a, _shift(axes), keepdim), 0


def whole(cls, info, in_dims, a, *rest):
    """A reduction of every element (``max(t)``): each sample's own, as a MaxDim."""
    from minigrad.ops.extrema import MinDim
    from minigrad.ops.reductions import MaxDim

    along = MinDim if cls.backward_name == "MinBackward1" else MaxDim
    flat = a.reshape(a._data.shape[0], -1)
    return along.apply(flat, 1, False, along.pick(flat._data, axis=1)), 0


def max_dim(cls, info, in_dims, a, dim, keepdim, indices):
    return cls.apply(a, dim + 1, keepdim, cls.pick(a._data, axis=dim + 1)), 0


def view(cls, info, in_dims, a, shape):
    shape = tuple(shape) if isinstance(shape, tuple | list) else (shape,)
    return cls.apply(a, (a._data.shape[0],) + shape), 0


def transpose(cls, info, in_dims, a, dim0, dim1):
    n = a._data.ndim - 1
    return cls.apply(a, dim0 % max(n, 1) + 1, dim1 % max(n, 1) + 1), 0


def permute(cls, info, in_dims, a, dims=None):
    from minigrad.ops.shape import Permute

    n = a._data.ndim - 1
    dims = tuple(reversed(range(n))) if dims is None else dims
    return Permute.apply(a, (0,) + tuple(d % max(n, 1) + 1 for d in dims)), 0


def unsqueeze(cls, info, in_dims, a, dim):
    return cls.apply(a, dim + 1), 0


def squeeze(cls, info, in_dims, a, axes):
    if axes is None:
        axes = tuple(i for i, s in enumerate(a._data.shape[1:]) if s == 1)
    elif not isinstance(axes, tuple | list):
        axes = (axes,)
    return cls.apply(a, tuple(x + 1 for x in axes)), 0


def _matmul(a, a_batched, b, b_batched):
    """``a @ b`` per sample, on physical tensors (either may be unbatched)."""
    from minigrad.ops.matmul import Matmul

    la = a._data.ndim - a_batched
    lb = b._data.ndim - b_batched
    if la == 1:
        a = a.unsqueeze(-2)
    if lb == 1:
        b = b.unsqueeze(-1)
    a, b = _batched()._aligned([(a, a_batched), (b, b_batched)])
    out = Matmul.apply(a, b)
    if lb == 1:
        out = out.squeeze(-1)
    if la == 1:
        out = out.squeeze(-1 if lb == 1 else -2)
    return out


def matmul(cls, info, in_dims, a, b):
    """``Matmul`` and ``Mm``: a vector sample becomes a row or a column, then the batch
    dims broadcast as matmul's own."""
    return _matmul(a, in_dims[0] == 0, b, in_dims[1] == 0), 0


def dot(cls, info, in_dims, a, b):
    return _matmul(a, in_dims[0] == 0, b, in_dims[1] == 0), 0


def linear(cls, info, in_dims, x, weight, bias):
    """``x @ weight.T + bias`` per sample: one ``Linear`` when only ``x`` is batched, else a
    batched matmul (per-sample weights: ``vmap(grad(...))`` over parameters)."""
    if in_dims[1] is None and in_dims[2] is None:
        return cls.apply(x, weight, bias), 0  # the batch: more rows
    w_batched = in_dims[1] == 0
    wt = weight.transpose(-1, -2)
    out = _matmul(x, in_dims[0] == 0, wt, w_batched)
    if bias is not None:
        out_batched = True
        a, b = _batched()._aligned([(out, out_batched), (bias, in_dims[2] == 0)])
        out = a + b
    return out, 0


def index(cls, info, in_dims, a, key):
    """Basic keys (ints, slices, None, ...) skip the batch dim; others run per sample."""
    parts = key if isinstance(key, tuple) else (key,)
    if in_dims[1] is None and all(isinstance(k, int | slice) or k is None or k is Ellipsis
                                  for k in parts):
        return cls.apply(a, (slice(None),) + parts), 0
    batched = _batched()
    return batched.fallback(cls, info, in_dims, [a, key])


def join(cls, info, in_dims, *args):
    """``stack``/``cat``: unbatched tensors are repeated over the batch, dim moves by one."""
    from minigrad.ops.joining import Stack

    *items, dim = args
    full = [t if d == 0 else Stack.apply(*([t] * info.batch_size), 0)
            for t, d in zip(items, in_dims, strict=False)]
    return cls.apply(*full, dim + 1), 0


def mse_loss(cls, info, in_dims, x, y, reduction):
    """Each sample's own loss: the squared difference, reduced over the sample's dims."""
    a, b = _batched()._aligned([(x, in_dims[0] == 0), (y, in_dims[1] == 0)])
    d = a - b
    squared = d * d
    if reduction == "none":
        return squared, 0
    axes = tuple(range(1, squared._data.ndim))
    if not axes:
        return squared, 0
    return (squared.mean(axes) if reduction == "mean" else squared.sum(axes)), 0


def cross_entropy(cls, info, in_dims, logits, target, reduction):
    """Per-sample cross-entropy: each sample's rows through the op once (a loop: the
    targets are integer labels, no rule is worth the copy here)."""
    return _batched().fallback(cls, info, in_dims, [logits, target, reduction])


def vector_norm(cls, info, in_dims, a, ord, axes, keepdim):  # noqa: A002 - torch's name
    if axes is None:
        axes = tuple(range(a._data.ndim - 1))
    return cls.apply(a, ord, _shift(axes), keepdim), 0
