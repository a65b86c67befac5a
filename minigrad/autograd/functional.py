r"""``minigrad.autograd.functional``, as ``torch.autograd.functional`` (chapters 14, 15).

The older, eager cousins of :mod:`minigrad.func`: each takes the function *and* the
inputs and returns numbers.

- ``vjp(f, x, v)``: ``(f(x), v^T J)``, one backward pass;
- ``jvp(f, x, v)``: ``(f(x), J v)`` by the double-VJP trick, as torch computes it: the map
  :math:`u \mapsto u^\top J` is linear in :math:`u`, so its own VJP with ``v`` is
  :math:`J v`: two backward passes, the first recorded (``create_graph=True``);
- ``jacobian(f, x)``: the full Jacobian, by rows (``strategy="reverse-mode"``) or by
  columns (``"forward-mode"``, true forward mode);
- ``hessian(f, x)``, ``hvp(f, x, v)`` (:math:`H v`) and ``vhp(f, x, v)``
  (:math:`v^\top H`, the same for a symmetric Hessian).

A single tensor in gives a single tensor out; a tuple of inputs gives tuples.
"""

import numpy as np

from minigrad import autograd, func
from minigrad.autograd.grad_mode import enable_grad
from minigrad.tensors import Tensor, make

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuple(x):
    return (tuple(x), True) if isinstance(x, tuple | list) else ((x,), False)


def _leaves(inputs, create_graph):
    out = []
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"The inputs given to vjp must be either a Tensor or a tuple of "
                            f"Tensors but the value at index 0 has type {type(x).__name__}. "
                            "Fix: pass minigrad tensors.")
        leaf = x if (create_graph and x._requires_grad) else make(x.data, None)
        out.append(leaf.requires_grad_() if not leaf._requires_grad else leaf)
    return out


def _grads(outputs, inputs, grad_outputs, create_graph):
    with enable_grad():
        grads = autograd.grad(outputs, inputs, grad_outputs, retain_graph=True,
                              create_graph=create_graph, allow_unused=True)
    return tuple(make(np.zeros_like(x.data), None) if g is None else
                 (g if create_graph else make(g.data, None)) for g, x in zip(grads, inputs,
                                                                           strict=True))


def _detached(t, create_graph):
    return t if create_graph else make(t.data, None)


def vjp(func_, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    with enable_grad():
        out = func_(*xs)
    if v is None:
        if out.data.size != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element. Fix: pass v, "
                               "a tensor of the output's shape.")
        v = make(np.ones_like(out.data), None)
    grads = _grads(out, xs, v, create_graph)
    return _detached(out, create_graph), (grads if was_tuple else grads[0])


def jvp(func_, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` with two backward passes (the double-VJP trick)."""
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    if v is None:
        if len(xs) != 1 or xs[0].data.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element. Fix: pass v, one tensor per input.")
        v = make(np.ones_like(xs[0].data), None)
    vs, _ = _tuple(v)
    with enable_grad():
        out = func_(*xs)
        u = make(np.zeros_like(out.data), None).requires_grad_()  # any value: J^T u is linear
        g = autograd.grad(out, xs, u, create_graph=True, allow_unused=True)
        used = [(gi, vi) for gi, vi in zip(g, vs, strict=True) if gi is not None]
        if not used:
            result = make(np.zeros_like(out.data), None)
        else:
            result = autograd.grad([gi for gi, _ in used], u, [vi for _, vi in used],
                                   create_graph=create_graph, allow_unused=True)[0]
            result = make(np.zeros_like(out.data), None) if result is None else result
    return _detached(out, create_graph), _detached(result, create_graph)


def jacobian(func_, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian (``output.shape + input.shape``), by rows or by columns."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                         "Fix: pick one of the two.")
    inputs, was_tuple = _tuple(inputs)
    argnums = tuple(range(len(inputs)))
    transform = func.jacrev if strategy == "reverse-mode" else func.jacfwd
    xs = [x if (create_graph and x._requires_grad) else make(x.data, None) for x in inputs]
    result = transform(func_, argnums)(*xs)
    return result if was_tuple else result[0]


def hessian(func_, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a function with a one-element output."""
    inputs, was_tuple = _tuple(inputs)
    xs = [make(x.data, None) for x in inputs]
    n = len(xs)

    def gradient(*args):
        return func.grad(func_, tuple(range(n)))(*args)

    outer = func.jacrev if outer_jacobian_strategy == "reverse-mode" else func.jacfwd
    rows = [outer(lambda *a, i=i: gradient(*a)[i], tuple(range(n)))(*xs) for i in range(n)]
    if not was_tuple:
        return rows[0][0]
    return tuple(tuple(r) for r in rows)


def hvp(func_, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``: the gradient of ``grad(func) . v``, a double backward."""
    inputs, was_tuple = _tuple(inputs)
    vs, _ = _tuple(v)
    xs = _leaves(inputs, True)
    with enable_grad():
        out = func_(*xs)
        g = autograd.grad(out, xs, create_graph=True, allow_unused=True)
        dot = None
        for gi, vi in zip(g, vs, strict=True):
            if gi is not None:
                term = (gi * vi).sum()
                dot = term if dot is None else dot + term
        if dot is None or not dot._requires_grad:
            result = tuple(make(np.zeros_like(x.data), None) for x in xs)
        else:
            result = _grads(dot, xs, None, create_graph)
    return _detached(out, create_graph), (result if was_tuple else result[0])


def vhp(func_, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: equal to ``hvp`` when the Hessian is symmetric."""
    return hvp(func_, inputs, v, create_graph, strict)
