r"""Views, and in-place ops that write through them (chapter 12).

A *view* (``y[1:3]``, ``y.view(2, 2)``, ``y.t()``, ``y.T``, ``unsqueeze``, ``squeeze``)
shares its numbers with the tensor it was made from: its array is a numpy view into
that tensor's array, so writing into one writes into the other, and both share one
version counter. As torch, minigrad remembers for every view its *base* (the first
tensor of a chain of views) and the chain of view ops that makes the view from it.

An in-place op on a view changes the base as well, so the base's graph must change
too. As torch, the base gets a ``CopySlices`` node: for the gradient :math:`g` of the
new base, the region the view covers was overwritten by
:math:`\text{view}' = f(\text{view}, \text{other})`, so

.. math::
    \frac{\partial L}{\partial \text{base}_{\text{old}}} = g \text{ outside the region},
    \quad
    \frac{\partial L}{\partial \text{view}_{\text{old}}} = \frac{\partial f}{\partial
    \text{view}}^\top g_{\text{region}} \text{ inside it},

and ``other`` gets :math:`\partial f / \partial \text{other}^\top g_{\text{region}}`.
Every live view of the base then gets a new ``grad_fn``: its chain of view ops replayed
on the new base (torch names that node ``AsStridedBackward0``; minigrad keeps the view
op's own name).
"""

import weakref

import numpy as np

from minigrad.autograd import engine
from minigrad.autograd.function import Function, accumulator, constant
from minigrad.autograd.grad_mode import GRAD_ENABLED
from minigrad.ops.indexing import ScatterAdd

__all__ = ["register", "write", "check_view", "CopySlices", "VIEW_OF_LEAF"]

VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation. "
    "Fix: change the leaf under `with minigrad.no_grad():`, or clone() it first and "
    "change the clone.")
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode "
    "enabled. Fix: make the view and change it both inside the no_grad block (not "
    "recorded) or both outside it (recorded).")


def check_view(tensor):
    """torch's refusals of a recorded in-place op on a view."""
    base = tensor._base
    if base is None:
        return
    if getattr(tensor, "_no_grad_view", False):
        raise RuntimeError(NO_GRAD_VIEW)
    if base.grad_fn is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF)


def register(view, source, cls, extra):
    """``view = cls.apply(source, *extra)`` shares memory with ``source``: remember it."""
    base = source._base
    chain = ((cls, extra),)
    if base is None:
        base = source
    else:
        chain = source._view_chain + chain
    view._base = base
    view._view_chain = chain
    if not GRAD_ENABLED.enabled or getattr(source, "_no_grad_view", False):
        view._no_grad_view = True  # an in-place op on it with grad on is refused
    view._version_counter = source._version_counter
    if base._views is None:
        base._views = weakref.WeakSet()
    base._views.add(view)


def replay(base, chain):
    """The view ``chain`` makes of ``base`` (a new tensor, recorded as usual)."""
    t = base
    for cls, extra in chain:
        t = cls.apply(t, *extra)
    return t


def replay_array(array, chain):
    """The same chain on a plain array: a numpy view of ``array``'s region."""
    for cls, extra in chain:
        array = cls.forward(cls(), array, *extra)
    return array


class CopySlices(Function):
    """The base's node after an in-place op ``fn`` on one of its views."""

    backward_name = "CopySlices"

    @staticmethod
    def backward(ctx, grad_output):
        grad = np.array(grad_output)  # a copy: the view's region is overwritten below
        region = replay_array(grad, ctx.chain)
        fn = ctx.fn
        results = fn.backward(fn, np.array(region))
        if type(results) is not tuple:
            results = (results,)
        first = results[0]
        region[...] = 0 if first is None else engine.sum_to_shape(np.asarray(first), region.shape)
        return (grad,) + tuple(results[1:len(fn.next_functions)])

    @staticmethod
    def differentiable_backward(ctx, grad_output):
        """The same gradient in minigrad's ops (``create_graph=True``): the region's
        positions in the flat base pick its gradient out and put ``fn``'s back."""
        shape = grad_output._data.shape
        size = grad_output._data.size
        key = replay_array(np.arange(size).reshape(shape), ctx.chain)
        flat = grad_output.reshape(-1)
        fn = ctx.fn
        results = engine.recorded_backward(fn, flat[key])
        outside = np.ones(size, dtype=grad_output._data.dtype)
        outside[key] = 0
        grad = flat * constant(outside)
        first = results[0]
        if first is not None:
            first = engine.sum_to_shape(first, key.shape)
            grad = grad + ScatterAdd.apply(first, (size,), key)
        return (grad.reshape(shape),) + tuple(results[1:len(fn.next_functions)])

    @staticmethod
    def jvp(ctx, *tangents):  # never reached: inplace.py refuses in-place ops on duals
        raise NotImplementedError("minigrad's forward mode does not follow in-place ops on "
                                  "views. Fix: use the out-of-place op inside dual_level().")

    def release(self):
        self.fn.release()
        super().release()


def write(tensor, result, other=None):
    """Make ``tensor`` hold ``result``, an out-of-place op's output computed from it and
    ``other``, in place (its array is overwritten, so every view and ``detach()`` alias
    sees the new numbers), and make ``result``'s node the tensor's (or its base's) graph.

    As torch, the node keeps the old value of ``tensor`` itself (a copy), but if
    ``other`` is ``tensor`` or shares its memory (``y.mul_(y)``), backward refuses."""
    node = result.grad_fn
    old = tensor._data
    counter = tensor._version_counter
    saved = node._saved
    aliased = hasattr(other, "grad_fn") and (  # the same counter: aliased even when empty
        other._version_counter is counter or np.may_share_memory(other._data, old))
    checks = []
    for i, counter_i, version, whose in node._checks:
        if saved[i] is result._data:  # the output, saved: from now on it is tensor's array
            checks.append((i, counter, counter[0] + 1, whose))
        elif saved[i] is not old or aliased:
            checks.append((i, counter_i, version, whose))
        else:  # the old value is kept as a copy below: nothing can change it any more
            checks.append((i, [0], 0, whose))
    node._saved = tuple([
        old if s is result._data else
        s.copy() if isinstance(s, np.ndarray) and np.may_share_memory(s, old) else s
        for s in saved])
    node._checks = checks
    np.copyto(old, result._data, casting="unsafe")
    counter[0] += 1
    base = tensor._base
    if base is None:
        _set_graph(tensor, node)
        _regenerate(tensor)
        return
    copy = CopySlices()
    copy.fn = node
    copy.chain = tensor._view_chain
    first = (base.grad_fn if base.grad_fn is not None else
             accumulator(base) if base._requires_grad else None)
    copy.next_functions = (first,) + tuple(node.next_functions[1:])
    copy.out_shape = base._data.shape
    copy.out_dtype = base._data.dtype
    _set_graph(base, copy)
    _regenerate(base)


def _set_graph(tensor, node):
    """``tensor`` is now made by ``node``; a ``retain_grad()`` moves along."""
    old = tensor.grad_fn
    if old is not None and old._retained is not None:
        node._retained, old._retained = old._retained, None
    tensor.grad_fn = node
    tensor._requires_grad = True


def _regenerate(base):
    """Each live view of ``base`` gets its view chain replayed on the new base."""
    if base._views is None:
        return
    for view in list(base._views):
        if not getattr(view, "_no_grad_view", False):
            _set_graph(view, replay(base, view._view_chain).grad_fn)
