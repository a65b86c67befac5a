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

from minigrad import tensors
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


def backward(tensor, gradient=None, retain_graph=False):
    """Fill ``.grad`` of the leaves that ``tensor`` depends on (``Tensor.backward``)."""
    if not tensor._requires_grad:
        raise RuntimeError(
            "element 0 of tensors does not require grad and does not have a grad_fn. "
            "Fix: create the inputs with requires_grad=True (or call requires_grad_() on "
            "them) before computing this tensor, and do not compute it under no_grad().")
    data = tensor.data
    if gradient is None:
        if data.size != 1:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs. Fix: reduce the "
                "output to a scalar first (y.sum().backward()), or pass the upstream "
                "gradient, a tensor of y's shape: y.backward(gradient).")
        grad = np.ones(data.shape, dtype=data.dtype)
    else:
        grad = np.array(getattr(gradient, "data", gradient), dtype=data.dtype)
        if grad.shape != data.shape:
            from minigrad.dtypes import Size

            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {Size(grad.shape)!r} and "
                f"output[0] has a shape of {Size(data.shape)!r}. Fix: the gradient passed to "
                "backward() must have the shape of the tensor backward() is called on.")
    if tensor.grad_fn is None:  # backward() of a leaf: its gradient is the one given
        accumulator(tensor).accumulate(grad)
        return
    root = tensor.grad_fn
    grads = {root: grad}
    for node in topological_order(root):
        grad_output = grads.pop(node, None)
        if grad_output is None:
            continue
        if node._retained is not None:
            _retain(node, grad_output)
        results = node.backward(node, grad_output)
        if not retain_graph:
            node.release()
        if type(results) is not tuple:
            results = (results,)
        for parent, grad in zip(node.next_functions, results, strict=False):
            if parent is None or grad is None:
                continue
            if grad.shape != parent.out_shape:
                grad = sum_to_shape(grad, parent.out_shape)
            if type(parent) is AccumulateGrad:
                # A leaf may keep the array as its .grad: it must not be shared.
                if grad is grad_output or grad.base is not None or _shared(grad, results):
                    grad = grad.copy()
                parent.accumulate(grad)
                continue
            previous = grads.get(parent)
            grads[parent] = grad if previous is None else previous + grad


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
    if tensor is None:
        return
    if tensor.grad is None:
        tensor.grad = tensors.make(np.array(grad_output), None)
    else:
        tensor.grad.data += grad_output
