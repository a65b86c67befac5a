r"""Tensor hooks: look at, or change, a gradient as the backward pass computes it (ch 16).

``t.register_hook(fn)``: when backward has computed :math:`\partial L / \partial t`, it
calls ``fn(grad)``; a tensor returned replaces the gradient from there on (clip it,
scale it), ``None`` keeps it. On a leaf the hook runs before the gradient is added into
``.grad``; on a computed tensor, before its node passes the gradient on (and before
``retain_grad()`` stores it, as in torch). Hooks run in the order they were registered;
``handle.remove()`` takes one away. ``register_post_accumulate_grad_hook(fn)`` (leaves
only) calls ``fn(t)`` after ``.grad`` has been updated.
"""

import itertools

import numpy as np

from minigrad import tensors
from minigrad.autograd.function import accumulator

__all__ = ["RemovableHandle", "register_hook", "run_hooks"]

_ids = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``: ``remove()`` unregisters the hook."""

    def __init__(self, hooks, key):
        self._hooks, self.id = hooks, key

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_hook(tensor, fn, kind="_hooks"):
    """Attach ``fn`` to the node that receives ``tensor``'s gradient."""
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                           "gradient. Fix: call requires_grad_() on it first, or hook a "
                           "tensor computed from inputs that require grad.")
    node = tensor.grad_fn if tensor.grad_fn is not None else accumulator(tensor)
    hooks = getattr(node, kind)
    if hooks is None:
        hooks = {}
        setattr(node, kind, hooks)
    key = next(_ids)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


def run_hooks(node, grad, as_tensor=False):
    """``grad`` after every hook of ``node`` (numpy in and out, or tensors with
    ``as_tensor``: the recorded backward of ``create_graph=True``)."""
    shape = grad.data.shape if as_tensor else np.shape(grad)
    for fn in list(node._hooks.values()):
        result = fn(grad if as_tensor else tensors.make(grad, None))
        if result is None:
            continue
        if not isinstance(result, tensors.Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'. "
                            "Fix: return a tensor of the gradient's shape, or None.")
        if result.data.shape != shape:
            raise RuntimeError(f"hook '{getattr(fn, '__name__', 'hook')}' has changed the "
                               "size of value. Fix: return a gradient of the same shape.")
        grad = result if as_tensor else result.data
    return grad
