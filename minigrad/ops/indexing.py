r"""Indexing and slicing, ``t[...]`` (chapter 05).

The result's elements are picked from the input, so the gradient goes back to where
each came from and is zero elsewhere. An index may pick the same element twice
(``t[[0, 0]]``): its gradient is then the *sum* of both, which ``np.add.at`` does
(plain ``grad[index] += g`` would keep only one of them).
"""

import numpy as np

from minigrad.autograd.function import Function, linear_jvp
from minigrad.ops import batching

__all__ = ["index"]


class Index(Function):
    """Advanced indexing (lists, arrays, masks): may repeat elements."""

    vmap = batching.Rule(batching.index)  # its batching rule (vmap)

    @staticmethod
    def forward(ctx, a, key):
        ctx.meta = (a.shape, key)
        if isinstance(key, np.ndarray):  # saved, so an in-place change of it is caught
            ctx.save_for_backward(key)
        out = a[key]
        if type(out) is not np.ndarray:  # one element: a 0-d view, not a numpy scalar
            out = a[(key if isinstance(key, tuple) else (key,)) + (Ellipsis,)]
        return out

    @staticmethod
    def backward(ctx, grad_output):
        shape, key = ctx.meta
        ctx.saved_tensors  # noqa: B018 - raises if the index tensor changed in place
        grad = np.zeros(shape, dtype=grad_output.dtype)
        np.add.at(grad, key, grad_output)
        return grad, None

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        shape, key = ctx.meta
        ctx.saved_tensors  # noqa: B018 - raises if the index tensor changed in place
        return ScatterAdd.apply(grad_output, shape, key), None

    jvp = staticmethod(linear_jvp)


class ScatterAdd(Function):
    """``zeros(shape)`` with ``grad_output`` added at ``key``: indexing's backward,
    recorded (``create_graph=True``). Its own backward is indexing again, so a third
    derivative works too."""

    backward_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, g, shape, key):
        ctx.key = key
        grad = np.zeros(shape, dtype=g.dtype)
        np.add.at(grad, key, g)
        return grad

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output[ctx.key], None, None

    jvp = staticmethod(linear_jvp)


class Slice(Index):
    """Basic indexing (ints, slices, None, ...): each element at most once, a view."""

    is_view = True

    @staticmethod
    def backward(ctx, grad_output):
        shape, key = ctx.meta
        grad = np.zeros(shape, dtype=grad_output.dtype)
        grad[key] = grad_output
        return grad, None


class Select(Slice):
    """A single integer index."""


def _basic(key):
    parts = key if isinstance(key, tuple) else (key,)
    return all(isinstance(k, int | slice) or k is None or k is Ellipsis for k in parts)


def _plain(key):
    """Tensors inside the key become their numpy arrays; ``[]`` an empty int index."""
    if isinstance(key, tuple):
        return tuple(_plain(k) for k in key)
    if hasattr(key, "grad_fn") and hasattr(key, "_data"):
        return key._data
    if isinstance(key, list):
        array = np.asarray(key)
        return array.astype(np.int64) if array.size == 0 else array
    return key


def _check_steps(key):
    """torch's slices go forward: a step of 0 or below is refused."""
    for part in key if isinstance(key, tuple) else (key,):
        if isinstance(part, slice) and part.step is not None and part.step <= 0:
            if part.step == 0:
                raise ValueError("slice step cannot be zero. Fix: leave the step out, t[a:b], "
                                 "or give a positive one, t[a:b:2].")
            raise ValueError("step must be greater than zero. Fix: reverse with "
                             "t.flip(dim) in torch, or index with a reversed list, "
                             "t[list(range(n - 1, -1, -1))].")


def _torch_message(message, ndim):
    """numpy's IndexError in torch's words."""
    message = message.replace("for axis", "for dimension")
    if message.startswith("too many indices"):
        if ndim == 0:
            return ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return f"too many indices for tensor of dimension {ndim}"
    return message


def index(a, key):
    tensor_key = key if hasattr(key, "grad_fn") else None
    _check_steps(key)
    key = _plain(key)
    if isinstance(key, int):
        cls = Select
    elif _basic(key):
        cls = Slice
    else:
        cls = Index
    if tensor_key is not None:  # the index tensor itself: backward checks its version
        key = tensor_key
    try:
        return cls.apply(a, key)
    except IndexError as exc:
        raise IndexError(f"{_torch_message(str(exc), a._data.ndim)}. Fix: the tensor has shape "
                         f"{list(a._data.shape)}.") from None


SETITEM_REPEATED = (
    "minigrad does not record item assignment (t[i] = v) whose index repeats an element "
    "(torch's index_put_ keeps one of the values, unspecified which). Fix: index each "
    "element once, or use index_add / a sum of one-hot rows.")


def setitem(a, key, value):
    r"""``a[key] = value`` as torch's ``__setitem__``: written into ``a``'s array (and so into
    its base's, for a view), the version counter bumped. A leaf that requires grad is
    refused as torch does. Where torch records it (``a`` or ``value`` in a graph, grad mode
    on), minigrad records it too, as an in-place op (chapter 12) of one node
    (``ops/index_put.py``): ``a``'s gradient is zero at ``key``, ``value``'s the gradient
    gathered there; into a view, the base's node becomes ``CopySlices`` as torch's."""
    from minigrad import views
    from minigrad.autograd import forward_ad
    from minigrad.autograd.function import constant
    from minigrad.autograd.grad_mode import GRAD_ENABLED
    from minigrad.inplace import LEAF_INPLACE

    if forward_ad.LEVEL[0] is not None and (a._fw_tangent is not None or getattr(
            value, "_fw_tangent", None) is not None):
        raise NotImplementedError(
            "minigrad's forward mode does not follow item assignment into dual tensors. "
            "Fix: build the result out of place (torch.where, torch.cat) inside "
            "dual_level().")
    value_grad = getattr(value, "_requires_grad", False)
    base = getattr(a, "_base", None)
    _check_steps(key)
    plain = _plain(key)
    if GRAD_ENABLED.enabled and (a._requires_grad or value_grad or (
            base is not None and base._requires_grad)):
        if a.grad_fn is None and a._requires_grad and base is None:
            raise RuntimeError(LEAF_INPLACE)
        views.check_view(a)  # a view of a leaf that requires grad: torch's refusal
        views.write(a, _recorded_put(a, plain, value, constant), value)
        return
    data = value._data if hasattr(value, "_data") and hasattr(value, "grad_fn") else value
    try:
        a._data[plain] = data
    except IndexError as exc:
        raise IndexError(f"{_torch_message(str(exc), a._data.ndim)}. Fix: the tensor has shape "
                         f"{list(a._data.shape)}.") from None
    a._version_counter[0] += 1


def _recorded_put(a, plain, value, constant):
    """``a`` with ``value`` at ``plain``, out of place and differentiable in both (one
    node, so into a view it is recorded as torch's CopySlices)."""
    from minigrad.ops.index_put import IndexPut, SlicePut

    mask = np.zeros(a._data.shape, dtype=bool)
    mask[plain] = True
    picked = a._data[plain]
    if int(mask.sum()) != np.size(picked):
        raise TypeError(SETITEM_REPEATED)
    if not hasattr(value, "grad_fn"):
        value = constant(np.asarray(value, dtype=a._data.dtype))
    elif value._data.dtype != a._data.dtype:
        value = value.to(a._data.dtype)
    np.broadcast_to(value._data, np.shape(picked))  # torch's shape check, before writing
    return (SlicePut if _basic(plain) else IndexPut).apply(a, value, plain)
