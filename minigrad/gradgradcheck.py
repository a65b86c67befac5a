r"""``gradgradcheck``: check second derivatives against finite differences (chapter 15).

As ``torch.autograd.gradgradcheck``: the function checked is the backward pass itself,

.. math:: (x, v) \mapsto v^\top \frac{\partial f}{\partial x},

computed with ``autograd.grad(..., create_graph=True)`` and handed to :func:`gradcheck`:
finite differences of the gradient against the gradient of the gradient. ``v`` (the
``grad_outputs``) is random unless given, from a seeded generator (torch draws new
ones each call), and is checked as an input too.
"""

import numpy as np

from minigrad import autograd
from minigrad.grad_mode import enable_grad
from minigrad.gradcheck import gradcheck
from minigrad.tensors import make

__all__ = ["gradgradcheck"]


def _outputs(func, inputs):
    out = func(*inputs)
    return tuple(out) if isinstance(out, tuple | list) else (out,)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, seed=0):
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
            make(rng.standard_normal(o.data.shape).astype(o.data.dtype), None)
            .requires_grad_(o.data.dtype.kind == "f") for o in outputs)
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
                     rtol=rtol, raise_exception=raise_exception)
