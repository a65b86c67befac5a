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

from minigrad import autograd, func
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from minigrad.dtypes import Size
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


def _vectors(v, xs, name, was_tuple):
    """``v`` as a tuple matching the inputs, with torch's checks."""
    if v is None:
        if len(xs) != 1 or xs[0].data.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element. Fix: pass v, one tensor per input.")
        return (make(np.ones_like(xs[0].data), None),)
    vs, _ = _tuple(v)
    if len(vs) != len(xs):
        if not was_tuple:
            raise RuntimeError("The given v should contain a single Tensor. Fix: one "
                               f"vector, of the input's shape, for {name}.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(xs)} but got "
                           f"{len(vs)}. Fix: one vector per input of {name}.")
    for i, (vi, x) in enumerate(zip(vs, xs, strict=True)):
        if vi.data.shape != x.data.shape:
            where = f"Entry {i} in v" if was_tuple else "v"
            raise RuntimeError(
                f"{where} has invalid size: should be {Size(x.data.shape)!r} but got "
                f"{Size(vi.data.shape)!r}. Fix: each vector has its input's shape.")
    return vs


def _scalar_output(out, name):
    if not isinstance(out, Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor. "
                           "Fix: return one tensor, the scalar to differentiate twice.")
    if out.data.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element. Fix: reduce it first (.sum()).")


def _autograd_grad(outputs, inputs, grad_outputs, create_graph):
    """``autograd.grad`` over the outputs that require grad (None gradients if none
    does), as torch's helper of the same name."""
    grad_outputs = grad_outputs or (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs, strict=True)
             if o is not None and o._requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                         retain_graph=True, create_graph=create_graph, allow_unused=True)


def _check_requires_grad(tensors, kind, strict):
    """With ``strict``, torch's errors for a result that does not depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode. Fix: use "
                               "every input, or strict=False.")
        if not t._requires_grad:
            if kind == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the "
                    f"user-provided function with respect to input {i} is independent of "
                    "the input. This is not allowed in strict mode. Fix: a function whose "
                    "gradient depends on its input (not a linear one), or strict=False.")
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. "
                "The outputs must be computed in a differentiable manner from the input "
                "when running in strict mode. Fix: compute it from the inputs with "
                "minigrad's ops, or strict=False.")


def _fill_in_zeros(grads, inputs, strict, create_graph, stage):
    """None (an input the result does not depend on) as zeros, or torch's error in strict
    mode; detached unless ``create_graph``."""
    out = []
    for i, (g, x) in enumerate(zip(grads, inputs, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input "
                    f"{i}. This is not allowed in strict mode. Fix: strict=False."
                    if stage == "double_back" else
                    "The hessian of the user-provided function is independent of entry "
                    f"{i} in the grad_jacobian. This is not allowed in strict mode as it "
                    "prevents from using the double backward trick to replace forward mode "
                    "AD. Fix: strict=False.")
            g = make(np.zeros_like(x.data), None)
        elif strict and create_graph and not g._requires_grad:
            raise RuntimeError(
                f"The hessian of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True. Fix: "
                "strict=False.")
        out.append(_detached(g, create_graph))
    return tuple(out)


def vhp(func_, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), v^T H)`` in two backward passes, as torch: the gradient
    :math:`g = \nabla f` recorded, then its VJP with ``v``, :math:`v^\top H`. For a
    scalar function :math:`H` is symmetric, so this is also :func:`hvp`'s :math:`H v`."""
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    vs = _vectors(v, xs, "vhp", was_tuple)
    with enable_grad():
        out = func_(*xs)
        _scalar_output(out, "vhp")
        _check_requires_grad((out,), "outputs", strict)
        jac = _autograd_grad((out,), xs, None, True)
        _check_requires_grad(jac, "jacobian", strict)
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
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    vs = _vectors(v, xs, "hvp", was_tuple)
    with enable_grad():
        out = func_(*xs)
        _scalar_output(out, "hvp")
        _check_requires_grad((out,), "outputs", strict)
        jac = _autograd_grad((out,), xs, None, True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(make(np.zeros_like(x.data), None).requires_grad_() for x in xs)
        double_back = _autograd_grad(jac, xs, grad_jac, True)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_autograd_grad(double_back, grad_jac, vs, create_graph), xs,
                                strict, create_graph, "double_back_trick")
    return _detached(out, create_graph), (result if was_tuple else result[0])
