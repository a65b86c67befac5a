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
"""

import numpy as np

from minigrad import hooks, tensors
from minigrad.function import AccumulateGrad, accumulator

__all__ = ["backward", "topological_order", "sum_to_shape"]


def sum_to_shape(grad, shape):
    r"""Undo broadcasting: sum ``grad`` over the axes that broadcasting stretched.

    If ``x`` of shape ``(3, 1)`` was broadcast to ``(2, 3, 4)``, each of its elements
    was used 2 * 4 times, so its gradient is the sum over those copies:
    :math:`\partial L / \partial x_{i0} = \sum_{b, j} \partial L / \partial y_{bij}`.
    """
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
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


def backward(tensor, gradient=None, retain_graph=False, inputs=None):
    """Fill ``.grad`` of the leaves that ``tensor`` depends on (``Tensor.backward``).

    With ``inputs`` (a list of tensors), only those get a gradient, as torch's
    ``backward(inputs=...)`` (a non-leaf among them too); ``autograd.grad`` relies on it.
    """
    run_backward([tensor], [gradient], retain_graph, inputs)


def run_backward(roots, gradients, retain_graph=False, inputs=None):
    """One backward pass from several roots at once (``autograd.backward([l1, l2])``):
    where their graphs meet, the gradients add up, and each node runs once."""
    if inputs is not None and not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty. Fix: pass the "
                           "tensors whose gradient you want, or leave inputs out.")
    grads = {}
    for i, (tensor, gradient) in enumerate(zip(roots, gradients, strict=True)):
        grad = _root_grad(tensor, gradient, i)
        if tensor.grad_fn is None:  # backward() of a leaf: its gradient is the one given
            if inputs is None or _among(tensor, inputs):
                accumulator(tensor).accumulate(grad)
            continue
        previous = grads.get(tensor.grad_fn)
        grads[tensor.grad_fn] = grad if previous is None else previous + grad
    if not grads:
        return
    wanted = {t.grad_fn: t for t in inputs if t.grad_fn is not None} if inputs else None
    root = next(iter(grads)) if len(grads) == 1 else _Roots(tuple(grads))
    leaves = {}  # AccumulateGrad -> the sum of what reached it, added into .grad once
    for node in topological_order(root):
        grad_output = grads.pop(node, None)
        if grad_output is None:
            continue
        if node._hooks:  # register_hook on the tensor this node made
            grad_output = hooks.run_hooks(node, grad_output)
        if node._retained is not None:
            _retain(node, grad_output)
        if wanted and node in wanted and wanted[node].grad_fn._retained is None:
            _store(wanted[node], grad_output)
        results = node.backward(node, grad_output)
        if not retain_graph:
            node.release()
        if type(results) is not tuple:
            results = (results,)
        if len(results) != len(node.next_functions):
            results = _count_checked(node, results)
        for i, (parent, grad) in enumerate(zip(node.next_functions, results, strict=True)):
            if parent is None or grad is None:
                continue
            if type(grad) is not np.ndarray:
                grad = np.asarray(getattr(grad, "data", grad))
            if grad.shape != parent.out_shape:
                grad = _reduce(node, i, grad, parent.out_shape)
            if type(parent) is AccumulateGrad:
                if inputs is not None and not _among(parent.variable, inputs):
                    continue
                previous = leaves.get(parent)
                if previous is not None:  # as torch: contributions summed, then one add
                    leaves[parent] = previous + grad
                    continue
                # A leaf may keep the array as its .grad: it must not be shared.
                if grad is grad_output or grad.base is not None or _shared(grad, results):
                    grad = grad.copy()
                leaves[parent] = grad
                continue
            if grad.dtype != parent.out_dtype:  # as torch: the input's dtype
                grad = grad.astype(parent.out_dtype)
            previous = grads.get(parent)
            grads[parent] = grad if previous is None else previous + grad
    for leaf, grad in leaves.items():
        leaf.accumulate(grad)


class _Roots:
    """A node above several roots, so one topological order covers all of them."""

    def __init__(self, roots):
        self.next_functions = roots


def _root_grad(tensor, gradient, i):
    """The starting gradient of root ``i``: ones for a scalar, else the one given."""
    if not tensor._requires_grad:
        raise RuntimeError(
            f"element {i} of tensors does not require grad and does not have a grad_fn. "
            "Fix: create the inputs with requires_grad=True (or call requires_grad_() on "
            "them) before computing this tensor, and do not compute it under no_grad().")
    data = tensor.data
    if gradient is None:
        if data.size != 1:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs. Fix: reduce the "
                "output to a scalar first (y.sum().backward()), or pass the upstream "
                "gradient, a tensor of y's shape: y.backward(gradient).")
        return np.ones(data.shape, dtype=data.dtype)
    if not isinstance(gradient, tensors.Tensor):
        first = gradient
        while isinstance(first, list | tuple | np.ndarray) and len(first):
            first = first[0]
        raise TypeError(
            f"gradients can be either Tensors or None, but got {type(first).__name__}. "
            "Fix: pass a tensor of the output's shape, e.g. minigrad.ones_like(y).")
    grad = np.array(gradient.data, dtype=data.dtype)
    if grad.shape != data.shape:
        from minigrad.dtypes import Size

        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {Size(grad.shape)!r} and "
            f"output[{i}] has a shape of {Size(data.shape)!r}. Fix: the gradient passed to "
            "backward() must have the shape of the tensor backward() is called on.")
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


def _reduce(node, i, grad, shape):
    """``sum_to_shape`` of a gradient, after torch's check that the shapes fit."""
    n = len(shape)
    fits = grad.ndim >= n and all(
        s == g or s == 1 for s, g in zip(shape, grad.shape[grad.ndim - n:], strict=True))
    if not fits:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(grad.shape)} but expected shape compatible with {list(shape)}. Fix: "
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
    """Add ``grad_output`` into ``tensor.grad`` (a non-leaf's, so no warning)."""
    if tensor._grad is None:
        tensor._grad = tensors.make(np.array(grad_output), None)
    else:
        tensor._grad.data += grad_output
