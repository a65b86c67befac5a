r"""``gradcheck``: compare backward's gradients with finite differences (chapter 11).

For every input element :math:`x_j` the numerical derivative is the central difference

.. math:: \frac{\partial f_k}{\partial x_j} \approx
          \frac{f_k(x + \epsilon e_j) - f_k(x - \epsilon e_j)}{2 \epsilon},

with error :math:`O(\epsilon^2)` (one-sided differences have :math:`O(\epsilon)`), and
the analytical one is what ``backward`` computes for each output element :math:`k`
(a one-hot ``gradient``). They agree when
:math:`|a - n| \le \mathrm{atol} + \mathrm{rtol}\,|n|` everywhere, as in
``torch.autograd.gradcheck``: then it returns True; otherwise it raises
:class:`GradcheckError` naming the input and element that disagree. Use float64
inputs: in float32 the rounding error of :math:`f` divided by :math:`2\epsilon` swamps
the check (it warns, as torch does).
"""

import warnings

import numpy as np

from minigrad.grad_mode import no_grad
from minigrad.tensors import make

__all__ = ["gradcheck", "GradcheckError", "numerical_jacobian", "analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when backward disagrees with finite differences."""


def _outputs(func, inputs):
    out = func(*inputs)
    return tuple(out) if isinstance(out, tuple | list) else (out,)


def numerical_jacobian(func, inputs, i, eps):
    """Rows: elements of input ``i``; columns: elements of every output, concatenated."""
    data = inputs[i].data  # written element by element: every view of it sees the change
    rows = []
    with no_grad():
        for j in np.ndindex(data.shape):
            original = data[j]
            data[j] = original + eps
            plus = np.concatenate([o.data.reshape(-1) for o in _outputs(func, inputs)])
            data[j] = original - eps
            minus = np.concatenate([o.data.reshape(-1) for o in _outputs(func, inputs)])
            data[j] = original
            rows.append((plus.astype(np.float64) - minus) / (2 * eps))
    return np.array(rows).reshape(data.size, -1)


def analytical_jacobian(func, inputs, i):
    """The same matrix from backward: one backward per output element."""
    outputs = _outputs(func, inputs)
    columns = []
    saved = [t.grad for t in inputs]
    try:
        for out in outputs:
            for k in range(out.data.size):
                for t in inputs:
                    t.grad = None
                if out.requires_grad:
                    onehot = np.zeros(out.data.size, dtype=out.data.dtype)
                    onehot[k] = 1
                    out.backward(make(onehot.reshape(out.data.shape), None),
                                 retain_graph=True)
                grad = inputs[i].grad
                columns.append(np.zeros(inputs[i].data.size) if grad is None
                               else grad.data.reshape(-1).astype(np.float64))
    finally:
        for t, grad in zip(inputs, saved, strict=True):
            t.grad = grad
    return np.array(columns).T.reshape(inputs[i].data.size, -1)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True if ``func``'s backward matches finite differences for every input."""
    inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
    checked = [i for i, t in enumerate(inputs) if getattr(t, "requires_grad", False)]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in checked:
        if inputs[i].data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. Fix: pass dtype=minigrad.float64.",
                UserWarning, stacklevel=2)
    for i in checked:
        numerical = numerical_jacobian(func, inputs, i, eps)
        analytical = analytical_jacobian(func, inputs, i)
        bad = ~(np.abs(analytical - numerical) <= atol + rtol * np.abs(numerical))
        if bad.any():
            j, k = (int(v) for v in np.argwhere(bad)[0])
            element = tuple(int(v) for v in np.unravel_index(j, inputs[i].data.shape))
            if not raise_exception:
                return False
            sizes = np.cumsum([o.data.size for o in _outputs(func, inputs)])
            output = int(np.searchsorted(sizes, k, side="right"))  # the output holding k
            raise GradcheckError(
                f"Jacobian mismatch for output {output} with respect to input {i},\n"
                f"numerical:{numerical}\nanalytical:{analytical}\n"
                f"First difference: input {i} element {element}, output element {k}: "
                f"numerical {float(numerical[j, k])!r}, analytical {float(analytical[j, k])!r}. "
                "Fix: the backward of one of the ops in func is wrong for this input.")
    return True
