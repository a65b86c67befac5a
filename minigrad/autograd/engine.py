r"""The backward pass: walk the graph in reverse topological order (chapters 05, 06, 08).

``loss.backward()`` starts with :math:`\partial L / \partial L = 1` (or the
``gradient`` given, for a non-scalar output: the vector of a vector-Jacobian product),
orders the nodes so each comes after every node that uses its output (an iterative
depth-first search: no recursion limit, however deep the graph), then visits them in
that order. Each node turns the gradient of its output into one gradient per input;
gradients that meet at a node are *added* (a value used twice gets both
contributions), and a leaf adds what reaches it into its ``.grad``, so gradients also
add up across calls until something sets ``.grad`` back to None.

Undoing broadcasting happens here and only here, in :func:`sum_to_shape`. After a node
has run, what it saved is freed unless ``retain_graph=True``.

The same loop serves ``create_graph=True`` (chapter 15): the gradients are then tensors,
each node's backward runs on tensors with grad mode on (its ``differentiable_backward``
where it has one, see ``function.py``), so the backward pass leaves a graph of its own,
which can be differentiated again: the gradient of :math:`g(x) \cdot v` is the
Hessian-vector product :math:`H v`. Without it, everything stays numpy arrays, for speed.
"""

import numpy as np

from minigrad import tensors
from minigrad.autograd import anomaly_mode, custom_function, graph
from minigrad.autograd.function import AccumulateGrad, accumulator, constant
from minigrad.autograd.grad_mode import enable_grad
from minigrad.autograd.saved_hooks import EXTRAS
from minigrad.dtypes import Size, from_numpy

__all__ = ["backward", "run_backward", "topological_order", "sum_to_shape",
           "recorded_backward", "CYCLE_WARNING"]

CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this "
    "function, make sure to reset the .grad fields of your parameters to None after use "
    "to break the cycle and avoid the leak.")


def sum_to_shape(grad, shape):
    r"""Undo broadcasting: sum ``grad`` over the axes that broadcasting stretched.

    If ``x`` of shape ``(3, 1)`` was broadcast to ``(2, 3, 4)``, each of its elements
    was used 2 * 4 times, so its gradient is the sum over those copies:
    :math:`\partial L / \partial x_{i0} = \sum_{b, j} \partial L / \partial y_{bij}`.
    ``grad`` is a numpy array, or a tensor (``create_graph=True``: the sum is recorded).
    """
    array = type(grad) is np.ndarray
    gshape = grad.shape if array else grad._data.shape
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and gshape[lead + i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True) if array else grad.sum(axes, keepdim=True)
    return grad.reshape(shape)


def topological_order(root):
    """Nodes reachable from ``root``, each before all the nodes it feeds into.

    Reversed post-order of an iterative depth-first search over ``next_functions``.
    Leaves' :class:`AccumulateGrad` nodes are left out: nothing comes after them, and
    the engine hands them their gradients as soon as they are computed.
    """
    order = []
    seen = {root}
    stack = [(root, iter(root.next_functions))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child is not None and child not in seen and type(child) is not AccumulateGrad:
                seen.add(child)
                stack.append((child, iter(child.next_functions)))
                break
        else:
            stack.pop()
            order.append(node)
    order.reverse()
    return order


def backward(tensor, gradient=None, retain_graph=False, inputs=None, create_graph=False):
    """Fill ``.grad`` of the leaves that ``tensor`` depends on (``Tensor.backward``).

    With ``inputs`` (a list of tensors), only those get a gradient, as torch's
    ``backward(inputs=...)`` (a non-leaf among them too); ``autograd.grad`` relies on it.
    """
    run_backward([tensor], [gradient], retain_graph, inputs, create_graph)


def run_backward(roots, gradients, retain_graph=False, inputs=None, create_graph=False):
    """One backward pass from several roots at once (``autograd.backward([l1, l2])``):
    where their graphs meet, the gradients add up, and each node runs once. With
    ``create_graph`` the pass runs on tensors, recorded."""
    if inputs is not None and not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty. Fix: pass the "
                           "tensors whose gradient you want, or leave inputs out.")
    if create_graph:
        with enable_grad():
            _run(roots, gradients, retain_graph, inputs, True)
    else:
        _run(roots, gradients, retain_graph, inputs, False)


def recorded_backward(node, grad_output):
    """``node``'s gradients as tensors, recorded: its ``differentiable_backward`` if it
    has one, else its ``backward`` called on tensors (``ctx.saved_tensors`` giving
    tensors joined to the graph)."""
    node._unpacked = graph.unpack_saved(node)
    try:
        method = getattr(node, "differentiable_backward", None) or node.backward
        results = method(node, grad_output)
    finally:
        node._unpacked = None
    if type(results) is not tuple:
        results = (results,)
    return tuple([r if r is None or isinstance(r, tensors.Tensor) else constant(r)
                  for r in results])


def _run(roots, gradients, retain_graph, inputs, create_graph):
    grads = {}
    for i, (tensor, gradient) in enumerate(zip(roots, gradients, strict=True)):
        grad = _root_grad(tensor, gradient, i, create_graph)
        if tensor.grad_fn is None:  # backward() of a leaf: its gradient is the one given
            if inputs is None or _among(tensor, inputs):
                accumulator(tensor).accumulate(grad)
            continue
        if tensor.grad_fn._n_outputs > 1:  # output k of a user's Function
            _add_slot(grads, tensor.grad_fn, getattr(tensor, "_output_nr", 0), grad)
            continue
        previous = grads.get(tensor.grad_fn)
        grads[tensor.grad_fn] = grad if previous is None else previous + grad
    if not grads:
        return
    wanted = {t.grad_fn: t for t in inputs if t.grad_fn is not None} if inputs else None
    root = next(iter(grads)) if len(grads) == 1 else _Roots(tuple(grads))
    leaves = {}  # AccumulateGrad -> the sum of what reached it, added into .grad once
    extras = EXTRAS[0]  # a user's Function, saved-tensor hooks, anomaly mode: slow road
    for node in topological_order(root):
        grad_output = grads.pop(node, None)
        if grad_output is None or (wanted is not None and node not in wanted
                                   and getattr(node, "_dead_end", False)):
            continue  # a dead end (DelayedError) runs only if backward has no inputs=
        if extras and node._n_outputs > 1:  # a list: one gradient per output
            graph.run_slot_hooks(node, grad_output, create_graph)
            for nr, ref in node.__dict__.get("_retained_slots", {}).items():
                if ref() is not None and grad_output[nr] is not None:  # retain_grad()
                    _store(ref(), grad_output[nr])
        else:
            if node._hooks:  # register_hook on the tensor this node made
                grad_output = graph.run_hooks(node, grad_output, as_tensor=create_graph)
            if node._retained is not None:
                _retain(node, grad_output)
            if wanted and node in wanted and wanted[node].grad_fn._retained is None:
                _store(wanted[node], grad_output)
        if extras and (node._custom or anomaly_mode.ANOMALY[0]):
            results = _call(node, grad_output, create_graph)
        elif create_graph:
            results = recorded_backward(node, grad_output)
        else:
            results = node.backward(node, grad_output)
            if type(results) is not tuple:
                results = (results,)
        if not retain_graph:
            node.release()
        if len(results) != len(node.next_functions):
            results = _count_checked(node, results)
        for i, (parent, grad) in enumerate(zip(node.next_functions, results, strict=True)):
            if parent is None or grad is None:
                continue
            if extras and parent._n_outputs > 1:
                _to_slot(node, i, parent, grad, grads, create_graph)
                continue
            if create_graph:
                data = grad._data
            else:
                if type(grad) is not np.ndarray:
                    grad = np.asarray(getattr(grad, "_data", grad))
                data = grad
            if data.shape != parent.out_shape:
                grad = _reduce(node, i, grad, data.shape, parent.out_shape)
            if type(parent) is AccumulateGrad:
                if inputs is not None and not _among(parent.variable, inputs):
                    continue
                previous = leaves.get(parent)
                if previous is not None:  # as torch: contributions summed, then one add
                    leaves[parent] = previous + grad
                    continue
                # A leaf may keep the array as its .grad: it must not be shared.
                if not create_graph and (grad is grad_output or grad.base is not None
                                         or _shared(grad, results)):
                    grad = grad.copy()
                leaves[parent] = grad
                continue
            if data.dtype != parent.out_dtype:  # as torch: the input's dtype
                grad = (grad.to(from_numpy(parent.out_dtype)) if create_graph else
                        grad.astype(parent.out_dtype))
            previous = grads.get(parent)
            grads[parent] = grad if previous is None else previous + grad
    for leaf, grad in leaves.items():
        leaf.accumulate(grad)


def _call(node, grad_output, create_graph):
    """A node's backward by the slow road: a user's Function (tensors, one gradient per
    output), or anything under anomaly detection."""
    if node._custom:
        grads = grad_output if node._n_outputs > 1 else [grad_output]
        def call():
            return custom_function.backward(node, grads, create_graph)
    elif create_graph:
        def call():
            return recorded_backward(node, grad_output)
    else:
        def call():
            results = node.backward(node, grad_output)
            return results if type(results) is tuple else (results,)
    if anomaly_mode.ANOMALY[0]:
        return anomaly_mode.run_node(node, call)
    return call()


def _add_slot(grads, node, nr, grad):
    """Add ``grad`` to output ``nr``'s gradient of a node with several outputs."""
    slots = grads.get(node)
    if slots is None:
        slots = grads[node] = [None] * node._n_outputs
    slots[nr] = grad if slots[nr] is None else slots[nr] + grad


def _to_slot(node, i, parent, grad, grads, create_graph):
    """``node``'s gradient for input ``i``, which is one output of ``parent`` (a user's
    Function with several outputs): checked, reduced and converted as any other."""
    nr = node._input_nrs[i] if node._input_nrs is not None else 0
    shape, dtype = parent._metas[nr]
    if not create_graph and type(grad) is not np.ndarray:
        grad = np.asarray(getattr(grad, "_data", grad))
    data = grad._data if create_graph else grad
    if data.shape != shape:
        grad = _reduce(node, i, grad, data.shape, shape)
    if data.dtype != dtype:
        grad = grad.to(from_numpy(dtype)) if create_graph else grad.astype(dtype)
    _add_slot(grads, parent, nr, grad)


class _Roots:
    """A node above several roots, so one topological order covers all of them."""

    def __init__(self, roots):
        self.next_functions = roots


def _root_grad(tensor, gradient, i, create_graph=False):
    """The starting gradient of root ``i``: ones for a scalar, else the one given (with
    ``create_graph``, the given tensor itself: it may require grad)."""
    if not tensor._requires_grad:
        raise RuntimeError(
            f"element {i} of tensors does not require grad and does not have a grad_fn. "
            "Fix: create the inputs with requires_grad=True (or call requires_grad_() on "
            "them) before computing this tensor, and do not compute it under no_grad().")
    data = tensor._data
    if gradient is None:
        if data.size != 1:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs. Fix: reduce the "
                "output to a scalar first (y.sum().backward()), or pass the upstream "
                "gradient, a tensor of y's shape: y.backward(gradient).")
        ones = np.ones(data.shape, dtype=data.dtype)
        return constant(ones) if create_graph else ones
    if not isinstance(gradient, tensors.Tensor):
        first = gradient
        while isinstance(first, list | tuple | np.ndarray) and len(first):
            first = first[0]
        raise TypeError(
            f"gradients can be either Tensors or None, but got {type(first).__name__}. "
            "Fix: pass a tensor of the output's shape, e.g. minigrad.ones_like(y).")
    grad = np.array(gradient._data, dtype=data.dtype)
    if grad.shape != data.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {Size(grad.shape)!r} and "
            f"output[{i}] has a shape of {Size(data.shape)!r}. Fix: the gradient passed to "
            "backward() must have the shape of the tensor backward() is called on.")
    if create_graph:
        if gradient._data.dtype != data.dtype:
            return gradient.to(from_numpy(data.dtype))
        return gradient
    return grad


def _count_checked(node, results):
    """torch accepts extra gradients only if they are None."""
    n = len(node.next_functions)
    if len(results) < n or any(r is not None for r in results[n:]):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients (expected "
            f"{n}, got {len(results)}). Fix: backward must return one gradient per input of "
            "forward, None for an input that needs none.")
    return results[:n]


def _reduce(node, i, grad, gshape, shape):
    """``sum_to_shape`` of a gradient, after torch's check that the shapes fit."""
    n = len(shape)
    ndim = len(gshape)
    fits = ndim >= n and all(
        s == g or s == 1 for s, g in zip(shape, gshape[ndim - n:], strict=True))
    if not fits:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}. Fix: "
            "each gradient backward returns must have its input's shape.")
    return sum_to_shape(grad, shape)


def _among(variable, inputs):
    """Is ``variable`` one of ``inputs`` (by identity)?"""
    return any(variable is t for t in inputs)


def _shared(grad, results):
    """Did the node return this very array for more than one input?"""
    count = 0
    for r in results:
        if r is grad:
            count += 1
    return count > 1


def _retain(node, grad_output):
    """``retain_grad()`` on a non-leaf: store (or add) the gradient of its output."""
    tensor = node._retained()
    if tensor is not None:
        _store(tensor, grad_output)


def _store(tensor, grad_output):
    """Add ``grad_output`` into ``tensor.grad`` (a non-leaf's, so no warning); a tensor
    (``create_graph=True``) is kept as is, and added out of place."""
    if isinstance(grad_output, tensors.Tensor):
        tensor._grad = grad_output if tensor._grad is None else tensor._grad + grad_output
    elif tensor._grad is None:
        tensor._grad = tensors.make(np.array(grad_output), None)
    else:
        tensor._grad._data += grad_output
