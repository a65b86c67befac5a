r"""``gradcheck``: compare backward's gradients with finite differences (chapter 11).

For every input element :math:`x_j` the numerical derivative is the central difference

.. math:: \frac{\partial f_k}{\partial x_j} \approx
          \frac{f_k(x + \epsilon e_j) - f_k(x - \epsilon e_j)}{2 \epsilon},

with error :math:`O(\epsilon^2)` (one-sided differences have :math:`O(\epsilon)`), and
the analytical one is what ``backward`` computes for each output element :math:`k`
(a one-hot ``gradient``). As in ``torch.autograd.gradcheck``, the analytical Jacobian
is computed twice and must come out the same (within ``nondet_tol``: a *reentrant*
backward), then the two Jacobians must agree,
:math:`|a - n| \le \mathrm{atol} + \mathrm{rtol}\,|n|` everywhere. Then it returns True;
otherwise it raises :class:`GradcheckError` at the first pair that fails, numbering
outputs among those that require grad and inputs among those that require grad, as
torch does. It expects float64 inputs and does not convert them: on any other dtype it
warns, as torch does, and a failure names precision before the backward.

:func:`gradgradcheck` (chapter 15) checks second derivatives the same way, as
``torch.autograd.gradgradcheck``: the function checked is the backward pass itself,

.. math:: (x, v) \mapsto v^\top \frac{\partial f}{\partial x},

computed with ``autograd.grad(..., create_graph=True)`` and handed to :func:`gradcheck`:
finite differences of the gradient against the gradient of the gradient. ``v`` (the
``grad_outputs``) is random unless given, from a seeded generator (torch draws new
ones each call), and is checked as an input too.

``fast_mode=True`` (both checks) projects each Jacobian on random vectors instead,
:math:`v^\top J u`, as torch's: see ``gradcheck_fast.py``.
"""

import warnings

import numpy as np

from minigrad import autograd
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.tensors import make

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "numerical_jacobian",
           "analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when backward disagrees with finite differences."""


def _outputs(func, inputs):
    out = func(*inputs)
    return tuple(out) if isinstance(out, tuple | list) else (out,)


def numerical_jacobian(func, inputs, i, eps):
    """Rows: elements of input ``i``; columns: elements of every output, concatenated."""
    data = inputs[i]._data  # written element by element: every view of it sees the change
    rows = []
    with no_grad():
        for j in np.ndindex(data.shape):
            original = data[j]
            data[j] = original + eps
            plus = np.concatenate([o._data.reshape(-1) for o in _outputs(func, inputs)])
            data[j] = original - eps
            minus = np.concatenate([o._data.reshape(-1) for o in _outputs(func, inputs)])
            data[j] = original
            rows.append((plus.astype(np.float64) - minus) / (2 * eps))
    return np.array(rows).reshape(data.size, -1)


def _backward_jacobians(out, inputs, indices):
    """For each input in ``indices``, the matrix (its elements x out's elements) that one
    backward per element of ``out`` (a one-hot ``gradient``) fills in, column by column."""
    columns = {i: [] for i in indices}
    saved = [t.grad for t in inputs]
    try:
        for k in range(out._data.size):
            for t in inputs:
                t.grad = None
            if out.requires_grad:
                onehot = np.zeros(out._data.size, dtype=out._data.dtype)
                onehot[k] = 1
                # inputs=: as torch's autograd.grad, only what leads to them runs (a
                # once_differentiable DelayedError, which leads nowhere, does not)
                out.backward(make(onehot.reshape(out._data.shape), None), retain_graph=True,
                             inputs=[inputs[i] for i in indices])
            for i in indices:
                grad = inputs[i].grad
                columns[i].append(np.zeros(inputs[i]._data.size) if grad is None
                                  else grad._data.reshape(-1).astype(np.float64))
    finally:
        for t, grad in zip(inputs, saved, strict=True):
            t.grad = grad
    return {i: np.array(c).T.reshape(inputs[i]._data.size, -1) for i, c in columns.items()}


def analytical_jacobian(func, inputs, i):
    """The same matrix as :func:`numerical_jacobian`, from backward."""
    blocks = [_backward_jacobians(out, inputs, [i])[i] for out in _outputs(func, inputs)]
    return np.concatenate(blocks, axis=1)


def _fix(inputs, checked):
    """The message's last line: precision first when an input is not float64."""
    low = [n for n, i in enumerate(checked) if inputs[i]._data.dtype != np.float64]
    if low:
        return (f"Fix: input {low[0]} is {inputs[checked[low[0]]]._data.dtype}, not float64: at "
                "these eps and tolerances rounding alone can fail a correct backward. Check "
                "again with float64 inputs before suspecting the backward.")
    return ("Fix: the backward of one of the ops in func is wrong for this input; gradcheck "
            "stops at the first mismatch, so run it again once that one is fixed.")


def not_reentrant(nondet_tol):
    """torch's error for two backward passes that disagree (both modes)."""
    return GradcheckError(
        "Backward is not reentrant, i.e., running backward with same input and "
        "grad_output multiple times gives different values, although analytical "
        f"gradient matches numerical gradient.The tolerance for nondeterminism "
        f"was {nondet_tol}.\nFix: make backward a function of its inputs alone "
        "(no state kept between calls, no random order), or pass nondet_tol.")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, nondet_tol=0.0,
              raise_exception=True, fast_mode=False):
    """True if ``func``'s backward matches finite differences for every input
    (``fast_mode``: one random projection per pair, ``gradcheck_fast.py``)."""
    inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
    checked = [i for i, t in enumerate(inputs) if getattr(t, "requires_grad", False)]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in checked:
        if inputs[i]._data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. Fix: pass dtype=minigrad.float64.",
                UserWarning, stacklevel=2)
    outputs = _outputs(func, inputs)
    differentiable = [k for k, o in enumerate(outputs) if getattr(o, "requires_grad", False)]
    check = fast_gradcheck if fast_mode else _slow_gradcheck
    try:
        check(func, inputs, checked, outputs, differentiable, eps, atol, rtol, nondet_tol)
        _backward_mul_by_grad_output([outputs[k] for k in differentiable], inputs, checked)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _backward_mul_by_grad_output(outputs, inputs, checked):
    """torch's last check: zero ``grad_outputs`` must give zero gradients."""
    if not outputs:
        return
    zeros = [make(np.zeros_like(o._data), None) for o in outputs]
    grads = autograd.grad(outputs, [inputs[i] for i in checked], zeros, retain_graph=True,
                          allow_unused=True)
    if any(g is not None and (g._data != 0).any() for g in grads):
        raise GradcheckError("backward not multiplied by grad_output. Fix: every gradient "
                             "backward returns must be scaled by grad_output (a term added "
                             "without it is not a derivative).")


def _slow_gradcheck(func, inputs, checked, outputs, differentiable, eps, atol, rtol,
                    nondet_tol):
    """Every element of every Jacobian, numerical against analytical."""
    numerical = {i: numerical_jacobian(func, inputs, i, eps) for i in checked}
    ends = np.cumsum([0] + [o._data.size for o in outputs])
    for out_number, k in enumerate(differentiable):
        first = _backward_jacobians(outputs[k], inputs, checked)
        second = _backward_jacobians(outputs[k], inputs, checked)
        if any(np.abs(first[i] - second[i]).max(initial=0) > nondet_tol for i in checked):
            raise not_reentrant(nondet_tol)
        for in_number, i in enumerate(checked):
            n = numerical[i][:, ends[k]:ends[k + 1]]
            a = first[i]
            bad = ~(np.abs(a - n) <= atol + rtol * np.abs(n))
            if not bad.any():
                continue
            j, e = (int(v) for v in np.argwhere(bad)[0])
            element = tuple(int(v) for v in np.unravel_index(j, inputs[i]._data.shape))
            raise GradcheckError(
                f"Jacobian mismatch for output {out_number} with respect to input "
                f"{in_number},\nnumerical:{n}\nanalytical:{a}\n"
                f"First difference: input {in_number} element {element}, output "
                f"{out_number} element {e}: numerical {float(n[j, e])!r}, analytical "
                f"{float(a[j, e])!r}. " + _fix(inputs, checked))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, nondet_tol=0.0, seed=0, fast_mode=False):
    """True if the gradients of ``func``'s gradients match finite differences."""
    inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
    differentiable = [t for t in inputs if getattr(t, "requires_grad", False)]
    if not differentiable:
        raise ValueError("gradgradcheck expects at least one input tensor to require "
                         "gradient, but none of the them have requires_grad=True.")
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        with enable_grad():
            outputs = _outputs(func, inputs)
        grad_outputs = tuple(
            make(rng.standard_normal(o._data.shape).astype(o._data.dtype), None)
            .requires_grad_(o._data.dtype.kind == "f") for o in outputs)
    else:
        grad_outputs = (tuple(grad_outputs) if isinstance(grad_outputs, tuple | list)
                        else (grad_outputs,))
    n = len(inputs)

    def first_derivatives(*args):
        xs, vs = args[:n], args[n:]
        wanted = [x for x in xs if getattr(x, "requires_grad", False)]
        with enable_grad():
            outputs = _outputs(func, xs)
            grads = autograd.grad(outputs, wanted, list(vs), create_graph=True,
                                  allow_unused=True)
        return tuple(g for g in grads if g is not None and g.requires_grad)

    return gradcheck(first_derivatives, inputs + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     fast_mode=fast_mode)


# Last: it takes the helpers above.
from minigrad.autograd.gradcheck_fast import fast_gradcheck  # noqa: E402
