r"""``gradcheck(..., fast_mode=True)`` (chapter 11), as torch's ``_fast_gradcheck``.

Slow mode builds every Jacobian :math:`J` twice, one column of finite differences per
input element and one backward per output element. Fast mode compares one number per
(output, input) pair instead: with random unit vectors :math:`u` (the input's size) and
:math:`v` (the output's), both with entries in :math:`[0, 1)`,

.. math:: v^\top J_{\mathrm{num}}\, u, \qquad
          J_{\mathrm{num}}\, u \approx \frac{f(x + \epsilon u) - f(x - \epsilon u)}{2\epsilon}

(one central difference along :math:`u`) against :math:`(v^\top J)\,u`, where
:math:`v^\top J` is one backward with ``gradient=v``. Two evaluations of ``func`` and two
backward passes per pair, whatever the sizes. A wrong backward almost surely moves the
projection; ``atol`` is scaled by :math:`\sum u \sum v` (torch's ``_adjusted_atol``):
the projection of a matrix of ``atol`` entries. The backward is run twice and the two
:math:`v^\top J` must agree within ``nondet_tol``. On a mismatch the message recomputes
that pair's Jacobians in slow mode, as torch's does, and says when slow mode would have
passed. The vectors come from a seeded generator of their own (torch's too), so the check
is repeatable and leaves the global random state alone.
"""

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.gradcheck import (
    GradcheckError,
    _backward_jacobians,
    _fix,
    _outputs,
    not_reentrant,
    numerical_jacobian,
)
from minigrad.tensors import make

__all__ = ["fast_gradcheck"]

FAST_FAIL_SLOW_OK_MSG = (
    "Fast gradcheck failed but element-wise differences are small. This means that the\n"
    "test might've passed in slow_mode!")


def _unit(rng, size):
    """torch's ``_vec_from_tensor``: uniform [0, 1) entries, scaled to norm 1."""
    vec = rng.random(size)
    norm = np.linalg.norm(vec)
    return vec / norm if norm else vec


def _numerical_ju(func, inputs, i, u, eps, wanted):
    """For each output in ``wanted``: (f(x + eps u) - f(x - eps u)) / (2 eps), flat."""
    data = inputs[i]._data  # written in place: every view of the input sees the change
    original = data.copy()
    delta = (eps * u).reshape(data.shape)
    try:
        with no_grad():
            data[...] = original - delta
            minus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
            data[...] = original + delta
            plus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
    finally:
        data[...] = original
    return {k: (plus[k] - minus[k]) / (2 * eps) for k in wanted}


def _vjp(out, inputs, checked, v):
    """:math:`v^\top J` for each checked input, flat (zeros where no gradient flows)."""
    saved = [t.grad for t in inputs]
    try:
        for t in inputs:
            t.grad = None
        gradient = make(v.astype(out._data.dtype).reshape(out._data.shape), None)
        out.backward(gradient, retain_graph=True, inputs=[inputs[i] for i in checked])
        return {i: (np.zeros(inputs[i]._data.size) if inputs[i].grad is None
                    else inputs[i].grad._data.astype(np.float64).reshape(-1))
                for i in checked}
    finally:
        for t, grad in zip(inputs, saved, strict=True):
            t.grad = grad


def _slow_mode_report(func, inputs, outputs, i, k, eps, atol, rtol):
    """torch's ``_run_slow_mode_and_get_error``: that pair's full Jacobians; True as the
    second value when slow mode would have passed."""
    ends = np.cumsum([0] + [o._data.size for o in outputs])
    n = numerical_jacobian(func, inputs, i, eps)[:, ends[k]:ends[k + 1]]
    a = _backward_jacobians(outputs[k], inputs, [i])[i]
    slow_ok = bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))
    text = ("\nThe above quantities relating the numerical and analytical jacobians are "
            "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 "
            "for more background \nabout fast mode. Below, we recompute numerical and "
            "analytical jacobians in slow mode:\n\n"
            f"Numerical:\n {n}\nAnalytical:\n{a}\n\n"
            f"The max per-element difference (slow mode) is: "
            f"{float(np.abs(n - a).max(initial=0))!r}.\n")
    return (text + FAST_FAIL_SLOW_OK_MSG if slow_ok else text), slow_ok


def fast_gradcheck(func, inputs, checked, outputs, differentiable, eps, atol, rtol,
                   nondet_tol):
    """Raise :class:`GradcheckError` at the first (output, input) pair whose projections
    :math:`v^\top J u` disagree, numbered as slow mode's."""
    rng = np.random.default_rng(0)
    us = {i: _unit(rng, inputs[i]._data.size) for i in checked}
    vs = {k: _unit(rng, outputs[k]._data.size) for k in differentiable}
    numerical = {i: _numerical_ju(func, inputs, i, us[i], eps, differentiable)
                 for i in checked}
    for out_number, k in enumerate(differentiable):
        first = _vjp(outputs[k], inputs, checked, vs[k])
        second = _vjp(outputs[k], inputs, checked, vs[k])
        if any(np.abs(first[i] - second[i]).max(initial=0) > nondet_tol for i in checked):
            raise not_reentrant(nondet_tol)
        for in_number, i in enumerate(checked):
            a = float(first[i] @ us[i])
            n = float(vs[k] @ numerical[i][k])
            tolerance = atol * float(us[i].sum()) * float(vs[k].sum())
            if abs(a - n) <= tolerance + rtol * abs(n):
                continue
            report, slow_ok = _slow_mode_report(func, inputs, outputs, i, k, eps, atol, rtol)
            fix = ("Fix: slow mode passes, so the backward is within tolerance element by "
                   "element: check again with fast_mode=False." if slow_ok
                   else _fix(inputs, checked))
            raise GradcheckError(
                f"Jacobian mismatch for output {out_number} with respect to input "
                f"{in_number},\nnumerical:{n!r}\nanalytical:{a!r}\n{report}\n{fix}")
