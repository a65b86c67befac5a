r"""Batched tensors: what ``vmap`` hands the function it maps (chapter 15).

As torch's functorch, a :class:`BatchedTensor` wraps a tensor whose dimension 0 is the
batch (the *physical* tensor, ``_value``) and the ``level`` of the ``vmap`` that made it.
Seen from the function, it is one sample: its ``shape``, ``ndim`` and ``dtype`` leave the
batch dimension out (its ``data`` is a read-only stand-in of that shape, not the
numbers). Each op sees it in ``Function.apply``, which hands it to :func:`dispatch`: the
op's batching rule, ``Op.vmap(info, in_dims, *args)`` (torch's name and signature), runs
the op once on the whole batch; an op without a rule runs per sample, and the results are
stacked (torch's for-loop fallback).

Nested ``vmap``: the physical tensor may itself be batched at an outer level; a rule only
handles its own level, and the ops it calls dispatch again for the outer ones.
"""

from collections import namedtuple

import numpy as np

from minigrad import tensors

__all__ = ["BatchedTensor", "VmapInfo", "dispatch", "wrap", "unwrap", "is_batched_at",
           "to_physical", "from_physical", "LEVELS", "maybe_dispatch", "any_batched",
           "per_sample"]

VmapInfo = namedtuple("VmapInfo", ["batch_size", "randomness"])
VmapInfo.__doc__ = "What a batching rule learns of its vmap: torch's ``info``."

LEVELS = {}  # level -> VmapInfo, for the vmaps running now (innermost has the largest)
FALLBACK_OPS = set()  # names of the op classes that ran per sample (tests read it)

ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
        "calling .item() on a Tensor, please try to rewrite what you're doing with other "
        "operations. Fix: keep the value a tensor inside the mapped function.")
CONTROL = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
           "control flow. We don't support that yet, please shout over at "
           "https://github.com/pytorch/functorch/issues/257 . Fix: use "
           "minigrad.where(cond, a, b) instead of Python's if on a tensor.")


class BatchedTensor(tensors.Tensor):
    """One sample of a batch, seen by the mapped function; see the module doc."""

    @property
    def requires_grad(self):
        return self._value.requires_grad

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"

    def item(self):
        raise RuntimeError(ITEM)

    def tolist(self):
        raise RuntimeError(ITEM.replace(".item()", ".tolist()"))

    def numpy(self):
        raise RuntimeError(ITEM.replace(".item()", ".numpy()"))

    def __bool__(self):
        raise RuntimeError(CONTROL)

    __float__ = __int__ = __index__ = __bool__

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(CONTROL)

    def detach(self):
        return wrap(self._value.detach(), self._level)

    def _compared(self, other, op):
        level = self._level
        if isinstance(other, BatchedTensor) and other._level > level:
            return NotImplemented
        mine = self._value
        if isinstance(other, BatchedTensor) and other._level == level:
            other, theirs = other._value, True
        else:
            theirs = False
        a, b = _aligned([(mine, True), (other, theirs)])
        return wrap(getattr(a, op)(b), level)

    def __lt__(self, other):
        return self._compared(other, "__lt__")

    def __le__(self, other):
        return self._compared(other, "__le__")

    def __gt__(self, other):
        return self._compared(other, "__gt__")

    def __ge__(self, other):
        return self._compared(other, "__ge__")

    def __eq__(self, other):
        return self._compared(other, "__eq__")

    def __ne__(self, other):
        return self._compared(other, "__ne__")

    __hash__ = tensors.Tensor.__hash__

    def argmax(self, dim=None, keepdim=False, name="argmax"):
        value = self._value
        if dim is None:
            return wrap(getattr(value.reshape(value.shape[0], -1), name)(1), self._level)
        dim = dim % max(self.ndim, 1) + 1
        return wrap(getattr(value, name)(dim, keepdim), self._level)

    def argmin(self, dim=None, keepdim=False):
        return self.argmax(dim, keepdim, "argmin")


def logical_ndim(t):
    """A tensor's number of dimensions as the mapped function sees it."""
    return t._data.ndim if isinstance(t, tensors.Tensor) else np.ndim(t)


def wrap(value, level):
    """``value`` (its dim 0 the batch) as a BatchedTensor at ``level``."""
    t = object.__new__(BatchedTensor)
    t._data = np.broadcast_to(_zero(value._data.dtype), value._data.shape[1:])
    t._grad = None
    t.grad_fn = None
    t._requires_grad = True  # so code that converts a tensor (promotion) uses an op
    t._version_counter = [0]
    t._accumulator = None
    t._base = t._views = None
    t._value = value
    t._level = level
    return t


_ZEROS = {}


def _zero(dtype):
    """One read-only zero per dtype behind every stand-in ``data`` (so a reshape of a
    batched tensor is a view, as the physical one is)."""
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS[dtype] = np.zeros((), dtype)
        zero.flags.writeable = False
    return zero


def unwrap(t, level):
    """The physical tensor of ``t`` at ``level`` (batch at dim 0), or None."""
    return t._value if is_batched_at(t, level) else None


def is_batched_at(t, level):
    return isinstance(t, BatchedTensor) and t._level == level


def to_physical(t):
    """``(plain tensor, levels)``: every batch dimension of ``t`` at the front, the
    outermost level first."""
    if not isinstance(t, BatchedTensor):
        return t, []
    inner, levels = to_physical(t._value)
    return inner, levels + [t._level]


def from_physical(t, levels):
    """Undo :func:`to_physical`: ``t``'s leading dims become batches at ``levels``."""
    for level in levels:
        t = wrap(t, level)
    return t


def maybe_dispatch(cls, args):
    """The hook in ``Function.apply``: None unless some argument is batched."""
    for a in args:
        if isinstance(a, BatchedTensor):
            return dispatch(cls, args)
    return None


def dispatch(cls, args):
    """Run op ``cls`` on arguments some of which are batched: its rule, else a loop."""
    level = max(a._level for a in args if isinstance(a, BatchedTensor))
    in_dims = tuple([0 if is_batched_at(a, level) else None for a in args])
    values = [a._value if d == 0 else a for a, d in zip(args, in_dims, strict=True)]
    info = LEVELS.get(level) or VmapInfo(values[in_dims.index(0)]._data.shape[0], "error")
    rule = getattr(cls, "vmap", None)
    if rule is None or getattr(cls, "generate_vmap_rule", False):
        out, out_dim = fallback(cls, info, in_dims, values)
    else:
        out, out_dim = rule(info, in_dims, *values)
    return _wrap_out(out, out_dim, level)


def _wrap_out(out, out_dim, level):
    if isinstance(out, tuple | list):
        dims = out_dim if isinstance(out_dim, tuple | list) else (out_dim,) * len(out)
        return type(out)(_wrap_out(o, d, level) for o, d in zip(out, dims, strict=True))
    if out_dim is None or not isinstance(out, tensors.Tensor):
        return out
    if out_dim != 0:
        out = out.movedim(out_dim, 0)
    return wrap(out, level)


def fallback(cls, info, in_dims, values):
    """torch's slow path for an op without a batching rule: one call per sample, the
    results stacked along a new dim 0."""
    from minigrad.ops.joining import stack

    FALLBACK_OPS.add(cls.__name__)
    outs = []
    for b in range(info.batch_size):
        outs.append(cls.apply(*[v[b] if d == 0 else v for v, d in
                                zip(values, in_dims, strict=True)]))
    if isinstance(outs[0], tuple):
        return tuple(stack(list(parts)) for parts in zip(*outs, strict=True)), 0
    return stack(outs), 0


def any_batched(tree):
    """Is some tensor of ``tree`` (a tensor, a tuple or list of them, None) batched?"""
    items = tree if isinstance(tree, tuple | list) else [tree]
    return any(isinstance(t, BatchedTensor) for t in items)


def per_sample(grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
               allow_unused):
    """``autograd.grad`` with batched cotangents (``vmap`` of a vector-Jacobian product):
    one backward pass per sample, the gradients stacked, as torch's fallback would."""
    from minigrad.ops.joining import stack

    single = not isinstance(grad_outputs, tuple | list)
    outs = grad_outputs if not single else [grad_outputs]
    level = max(t._level for t in outs if isinstance(t, BatchedTensor))
    size = LEVELS[level].batch_size
    rows = []
    for b in range(size):
        picked = [t._value[b] if is_batched_at(t, level) else t for t in outs]
        rows.append(grad(outputs, inputs, picked[0] if single else picked,
                         retain_graph=True if b < size - 1 else retain_graph,
                         create_graph=create_graph, allow_unused=allow_unused))
    return tuple(None if parts[0] is None else wrap(stack(list(parts)), level)
                 for parts in zip(*rows, strict=True))


def _aligned(pairs):
    """Physical tensors ready to broadcast as their samples do: each batched one gets
    size-1 dims after its batch dim up to the largest sample rank."""
    rank = max(logical_ndim(v) - (1 if batched else 0) for v, batched in pairs)
    out = []
    for v, batched in pairs:
        if batched:
            missing = rank - (logical_ndim(v) - 1)
            if missing:
                v = v.reshape((v.shape[0],) + (1,) * missing + tuple(v.shape[1:]))
        out.append(v)
    return out
