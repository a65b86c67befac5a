r"""Tensor hooks: look at, or change, a gradient as the backward pass computes it (ch 16).

``t.register_hook(fn)``: when backward has computed :math:`\partial L / \partial t`, it
calls ``fn(grad)``; a tensor returned replaces the gradient from there on (clip it,
scale it), ``None`` keeps it. On a leaf the hook runs before the gradient is added into
``.grad``; on a computed tensor, before its node passes the gradient on (and before
``retain_grad()`` stores it, as in torch). Hooks run in the order they were registered;
``handle.remove()`` takes one away. ``register_post_accumulate_grad_hook(fn)`` (leaves
only) calls ``fn(t)`` after ``.grad`` has been updated.

``saved_tensors_hooks(pack_hook, unpack_hook)``: what ops save for backward goes
through ``pack_hook`` when saved and ``unpack_hook`` when backward reads it (the stack
lives in ``saved_hooks.py``); ``save_on_cpu()`` is such a pair, a no-op on a CPU-only
library, as torch's on CPU.

And what a node saved, seen by a backward that is recorded (``create_graph=True``,
chapter 15): :func:`unpack_saved` turns the saved arrays back into tensors of the graph.
"""

import itertools

import numpy as np

from minigrad import tensors
from minigrad.autograd import forward_ad, saved_hooks
from minigrad.autograd.function import AccumulateGrad, accumulator, constant

__all__ = ["RemovableHandle", "register_hook", "run_hooks", "unpack_saved",
           "saved_tensors_hooks", "save_on_cpu"]

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


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager: ``pack_hook(tensor)`` on every tensor an op saves for backward,
    ``unpack_hook(packed)`` when backward reads it. The innermost pair wins."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        saved_hooks.STACK.append((self.pack_hook, self.unpack_hook))
        saved_hooks.refresh()

    def __exit__(self, *exc):
        saved_hooks.STACK.pop()
        saved_hooks.refresh()
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """torch's: saved tensors kept on the CPU until backward. minigrad is on the CPU."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: (t.device, t), lambda packed: packed[1])


def register_hook(tensor, fn, kind="_hooks"):
    """Attach ``fn`` to the node that receives ``tensor``'s gradient."""
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                           "gradient. Fix: call requires_grad_() on it first, or hook a "
                           "tensor computed from inputs that require grad.")
    node = tensor.grad_fn if tensor.grad_fn is not None else accumulator(tensor)
    if node._n_outputs > 1:  # one output of a user's Function: hooks of its own
        slots = node.__dict__.setdefault("_slot_hooks", {})
        node = slots.setdefault(getattr(tensor, "_output_nr", 0), _Slot())
    hooks = getattr(node, kind)
    if hooks is None:
        hooks = {}
        setattr(node, kind, hooks)
    key = next(_ids)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


class _Slot:
    """The hooks of one output of a node with several outputs."""

    _hooks = None


def run_slot_hooks(node, grads, as_tensor):
    """Each output's hooks on its gradient (a node with several outputs)."""
    for nr, slot in node.__dict__.get("_slot_hooks", {}).items():
        if grads[nr] is not None and slot._hooks:
            grads[nr] = run_hooks(slot, grads[nr], as_tensor)


def run_hooks(node, grad, as_tensor=False):
    """``grad`` after every hook of ``node`` (numpy in and out, or tensors with
    ``as_tensor``: the recorded backward of ``create_graph=True``)."""
    shape = grad._data.shape if as_tensor else np.shape(grad)
    for fn in list(node._hooks.values()):
        result = fn(grad if as_tensor else tensors.make(grad, None))
        if result is None:
            continue
        if not isinstance(result, tensors.Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'. "
                            "Fix: return a tensor of the gradient's shape, or None.")
        if result._data.shape != shape:
            raise RuntimeError(f"hook '{getattr(fn, '__name__', 'hook')}' has changed the "
                               "size of value. Fix: return a gradient of the same shape.")
        grad = result if as_tensor else result._data
    return grad


def unpack_saved(ctx):
    """``ctx.saved_tensors`` as tensors joined to the graph, for a backward recorded with
    ``create_graph=True``: an input's array becomes that input again (so a second pass
    reaches it), the output's array the output, anything else a constant. Under forward
    mode they carry the tangents forward saw (forward-over-reverse)."""
    arrays = ctx.saved_tensors  # raises if freed or changed in place, as the first order
    whose = {i: k for i, _, _, k in ctx._checks}
    fw_in = ctx._fw_in
    out = []
    for i, array in enumerate(arrays):
        k = whose.get(i)
        if array is None or not isinstance(array, np.ndarray):
            out.append(array)
        elif k == -1:  # the node's own output
            out.append(_with_tangent(tensors.make(array, ctx), ctx._fw_out))
        elif k is None:
            out.append(constant(array))
        else:
            parent = ctx.next_functions[k]
            tangent = fw_in[k] if fw_in is not None else None
            if parent is None:
                out.append(_with_tangent(constant(array), tangent))
            elif type(parent) is AccumulateGrad:  # a leaf: the leaf itself
                leaf = parent.variable
                out.append(leaf if leaf is not None and leaf._data is array else constant(array))
            else:
                out.append(_with_tangent(tensors.make(array, parent), tangent))
    return tuple(out)


def _with_tangent(tensor, tangent):
    if tangent is not None and forward_ad.LEVEL[0] is not None:
        forward_ad._attach(tensor, tangent)
    return tensor
