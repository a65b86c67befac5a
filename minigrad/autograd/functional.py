r"""``minigrad.autograd.functional``, as ``torch.autograd.functional`` (chapters 14, 15).

The older, eager cousins of :mod:`minigrad.func`: each takes the function *and* the
inputs and returns numbers.

- ``vjp(f, x, v)``: ``(f(x), v^T J)``, one backward pass;
- ``jvp(f, x, v)``: ``(f(x), J v)`` by the double-VJP trick, as torch computes it: the map
  :math:`u \mapsto u^\top J` is linear in :math:`u`, so its own VJP with ``v`` is
  :math:`J v`: two backward passes, the first recorded (``create_graph=True``);
- ``jacobian(f, x)``: the full Jacobian, by rows (``strategy="reverse-mode"``) or by
  columns (``"forward-mode"``, true forward mode);
- ``hessian(f, x)``, ``hvp(f, x, v)`` (:math:`H v`, three backward passes, as torch's)
  and ``vhp(f, x, v)`` (:math:`v^\top H`, two; the same numbers, a Hessian being
  symmetric).

A single tensor in gives a single tensor out; a tuple of inputs gives tuples.
"""

import numpy as np

from minigrad import func
from minigrad.autograd.functional_checks import (
    _autograd_grad,
    _check_requires_grad,
    _detached,
    _fill_in_zeros,
    _hessian_pass,
    _leaves,
    _strict_hessian_checks,
    _strict_jacobian_checks,
    _tuple,
)
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from minigrad.tensors import make

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def vjp(func_, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``; ``strict``: torch's error for an output that does not
    depend on an input (instead of a zero gradient)."""
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    with enable_grad():
        out = func_(*xs)
        _check_requires_grad((out,), "outputs", strict)
    if v is None:
        if out._data.size != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element. Fix: pass v, "
                               "a tensor of the output's shape.")
        v = make(np.ones_like(out._data), None)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _fill_in_zeros(_autograd_grad((out,), xs, (v,), create_graph), xs, strict,
                               create_graph, "back")
    return _detached(out, create_graph), (grads if was_tuple else grads[0])


def jvp(func_, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` with two backward passes (the double-VJP trick); ``strict``
    as torch's."""
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    if v is None:
        if len(xs) != 1 or xs[0]._data.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element. Fix: pass v, one tensor per input.")
        v = make(np.ones_like(xs[0]._data), None)
    vs, _ = _tuple(v)
    with enable_grad():
        out = func_(*xs)
        _check_requires_grad((out,), "outputs", strict)
        u = make(np.zeros_like(out._data), None).requires_grad_()  # any value: J^T u is linear
        grad_inputs = _autograd_grad((out,), xs, (u,), True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_autograd_grad(grad_inputs, (u,), vs, create_graph), (out,),
                                strict, create_graph, "back_trick")[0]
    return _detached(out, create_graph), result


def jacobian(func_, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian (``output.shape + input.shape``), by rows or by columns."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                         "Fix: pick one of the two.")
    inputs, was_tuple = _tuple(inputs)
    if strict:
        _strict_jacobian_checks(func_, inputs, create_graph, vectorize, strategy)
    argnums = tuple(range(len(inputs)))
    transform = func.jacrev if strategy == "reverse-mode" else func.jacfwd
    xs = [x if (create_graph and x._requires_grad) else make(x._data, None) for x in inputs]
    result = transform(func_, argnums)(*xs)
    return result if was_tuple else result[0]


def hessian(func_, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a function with a one-element output."""
    inputs, was_tuple = _tuple(inputs)
    if strict:
        _strict_hessian_checks(func_, inputs, create_graph, vectorize, outer_jacobian_strategy)
    xs = [make(x._data, None) for x in inputs]
    n = len(xs)

    def gradient(*args):
        return func.grad(func_, tuple(range(n)))(*args)

    outer = func.jacrev if outer_jacobian_strategy == "reverse-mode" else func.jacfwd
    rows = [outer(lambda *a, i=i: gradient(*a)[i], tuple(range(n)))(*xs) for i in range(n)]
    if not was_tuple:
        return rows[0][0]
    return tuple(tuple(r) for r in rows)


def vhp(func_, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), v^T H)`` in two backward passes, as torch: the gradient
    :math:`g = \nabla f` recorded, then its VJP with ``v``, :math:`v^\top H`. For a
    scalar function :math:`H` is symmetric, so this is also :func:`hvp`'s :math:`H v`."""
    xs, vs, was_tuple, out, jac = _hessian_pass(func_, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_autograd_grad(jac, xs, vs, create_graph), xs, strict,
                                create_graph, "double_back")
    return _detached(out, create_graph), (result if was_tuple else result[0])


def hvp(func_, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), H v)`` in three backward passes, as torch's double-backward
    trick: :math:`g = \nabla f` recorded; :math:`u \mapsto u^\top H`, the VJP of
    :math:`g` with a zero ``u`` that requires grad, recorded too (it is linear in
    :math:`u`); then its VJP with ``v`` w.r.t. ``u``, :math:`H v`. :func:`vhp` gives
    :math:`v^\top H` in two passes: the same numbers, :math:`H` being symmetric."""
    xs, vs, was_tuple, out, jac = _hessian_pass(func_, inputs, v, create_graph, strict, "hvp")
    with enable_grad():
        grad_jac = tuple(make(np.zeros_like(x._data), None).requires_grad_() for x in xs)
        double_back = _autograd_grad(jac, xs, grad_jac, True)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_autograd_grad(double_back, grad_jac, vs, create_graph), xs,
                                strict, create_graph, "double_back_trick")
    return _detached(out, create_graph), (result if was_tuple else result[0])
