r"""The checks and plumbing behind :mod:`minigrad.autograd.functional` (chapters 14, 15),
as torch's ``torch/autograd/functional.py`` helpers of the same names: inputs made leaves,
the vectors ``v`` checked, ``autograd.grad`` over the outputs that require grad, and
``strict=True``'s errors (``_check_requires_grad``, ``_fill_in_zeros``, the jacobian's and
the hessian's dependence checks) where torch would raise instead of returning zeros.
"""

import numpy as np

from minigrad import autograd
from minigrad.autograd.grad_mode import enable_grad
from minigrad.dtypes import Size
from minigrad.tensors import Tensor, make


def _tuple(x):
    return (tuple(x), True) if isinstance(x, tuple | list) else ((x,), False)


def _leaves(inputs, create_graph):
    out = []
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"The inputs given to vjp must be either a Tensor or a tuple of "
                            f"Tensors but the value at index 0 has type {type(x).__name__}. "
                            "Fix: pass minigrad tensors.")
        leaf = x if (create_graph and x._requires_grad) else make(x._data, None)
        out.append(leaf.requires_grad_() if not leaf._requires_grad else leaf)
    return out


def _detached(t, create_graph):
    return t if create_graph else make(t._data, None)


def _vectors(v, xs, name, was_tuple):
    """``v`` as a tuple matching the inputs, with torch's checks."""
    if v is None:
        if len(xs) != 1 or xs[0]._data.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element. Fix: pass v, one tensor per input.")
        return (make(np.ones_like(xs[0]._data), None),)
    vs, _ = _tuple(v)
    if len(vs) != len(xs):
        if not was_tuple:
            raise RuntimeError("The given v should contain a single Tensor. Fix: one "
                               f"vector, of the input's shape, for {name}.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(xs)} but got "
                           f"{len(vs)}. Fix: one vector per input of {name}.")
    for i, (vi, x) in enumerate(zip(vs, xs, strict=True)):
        if vi._data.shape != x._data.shape:
            where = f"Entry {i} in v" if was_tuple else "v"
            raise RuntimeError(
                f"{where} has invalid size: should be {Size(x._data.shape)!r} but got "
                f"{Size(vi._data.shape)!r}. Fix: each vector has its input's shape.")
    return vs


def _scalar_output(out, name):
    if not isinstance(out, Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor. "
                           "Fix: return one tensor, the scalar to differentiate twice.")
    if out._data.size != 1:
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
            if kind == "grad_inputs":
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode. Fix: a "
                    "function that is not linear in its input, or strict=False.")
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. "
                "The outputs must be computed in a differentiable manner from the input "
                "when running in strict mode. Fix: compute it from the inputs with "
                "minigrad's ops, or strict=False.")


_INDEPENDENT = {  # torch's _fill_in_zeros, by the pass that found no dependence
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """None (a result that does not depend on the input) as zeros, or torch's error in
    strict mode; detached unless ``create_graph``."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i) + " Fix: make the result "
                                   "depend on every input, or pass strict=False.")
            g = make(np.zeros_like(ref._data), None)
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True. Fix: "
                "strict=False (or a function that is not linear in its input).")
        out.append(_detached(g, create_graph))
    return tuple(out)


def _strict_jacobian_checks(func_, inputs, create_graph, vectorize=False,
                            strategy="reverse-mode"):
    """torch's strict checks of ``jacobian``, in a pass of their own: every output
    computed from the inputs, each output depending on each input (and, with
    ``create_graph``, its gradient on the inputs)."""
    if strategy == "forward-mode":
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and '
                           '`strategy="forward-mode"` are not supported together (yet). '
                           'Please either set `strict=False` or `strategy="reverse-mode"`. '
                           "Fix: one of the two.")
    xs = _leaves(inputs, create_graph)
    with enable_grad():
        outs, _ = _tuple(func_(*xs))
        _check_requires_grad(outs, "outputs", True)
        if vectorize:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`. Fix: one of the two.")
        for i, out in enumerate(outs):
            if out._data.size == 0:
                continue
            ones = make(np.ones_like(out._data), None)
            for j, g in enumerate(_autograd_grad((out,), xs, (ones,), create_graph)):
                if g is None:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode. Fix: use every input, or strict=False.")
                if create_graph and not g._requires_grad:
                    raise RuntimeError(f"The jacobian of the user-provided function is "
                                       f"independent of input {i}. This is not allowed in "
                                       "strict mode when create_graph=True. Fix: "
                                       "strict=False (or a function that is not linear).")


def _strict_hessian_checks(func_, inputs, create_graph, vectorize, strategy):
    """torch's ``hessian`` in strict mode: the jacobian (of the gradient) checked as
    above, the gradient computed from the inputs."""

    def gradient(*args):
        out = func_(*args)
        _check_requires_grad((out,), "outputs", True)
        _scalar_output(out, "hessian")
        grads = _fill_in_zeros(_autograd_grad((out,), args, None, True), args, False, True,
                               "back")
        _check_requires_grad(grads, "jacobian", True)
        return grads

    _strict_jacobian_checks(gradient, inputs, create_graph, vectorize, strategy)


def _hessian_pass(func_, inputs, v, create_graph, strict, name):
    """The start shared by :func:`vhp` and :func:`hvp`, as torch's: leaves, the vectors
    checked, ``func`` run (one scalar), its gradient recorded, the strict checks."""
    inputs, was_tuple = _tuple(inputs)
    xs = _leaves(inputs, create_graph)
    vs = _vectors(v, xs, name, was_tuple)
    with enable_grad():
        out = func_(*xs)
        _check_requires_grad((out,), "outputs", strict)
        _scalar_output(out, name)
        jac = _autograd_grad((out,), xs, None, True)
        _check_requires_grad(jac, "jacobian", strict)
    return xs, vs, was_tuple, out, jac
