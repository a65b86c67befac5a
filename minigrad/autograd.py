"""``minigrad.autograd``: the names torch keeps in ``torch.autograd`` (chapters 06, 11).

``Function`` for new ops, ``backward``, ``grad`` (gradients returned instead of stored
in ``.grad``, handy for a Jacobian row by row; ``create_graph=True`` records them, to
differentiate again), ``gradcheck`` and ``gradgradcheck``, ``forward_ad`` (forward mode)
and ``functional`` (``jacobian``, ``hessian``, ``jvp``, ``vjp``, ``hvp``).
"""

from minigrad import engine, tensors
from minigrad import tensors as tensors_module
from minigrad.function import Function
from minigrad.gradcheck import GradcheckError, gradcheck

__all__ = ["Function", "Variable", "backward", "grad", "gradcheck", "gradgradcheck",
           "GradcheckError", "forward_ad", "functional"]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             inputs=None):
    """``backward`` of one tensor or of several, in one pass (their gradients add up).
    With ``create_graph=True`` the pass is recorded (engine.py)."""
    if not isinstance(tensors, tuple | list):
        tensors, grad_tensors = [tensors], [grad_tensors]
    elif isinstance(grad_tensors, tensors_module.Tensor):
        grad_tensors = [grad_tensors]
    grad_tensors = grad_tensors or [None] * len(tensors)
    if inputs is not None and not isinstance(inputs, tuple | list):
        inputs = [inputs]
    if retain_graph is None:
        retain_graph = create_graph
    engine.run_backward(list(tensors), list(grad_tensors), bool(retain_graph), inputs,
                        create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned; ``.grad`` is left as it was.
    With ``create_graph=True`` they carry a graph: differentiate them again."""
    single = not isinstance(inputs, tuple | list)
    inputs = [inputs] if single else list(inputs)
    saved = [(t._grad, t.grad_fn._retained if t.grad_fn is not None else None) for t in inputs]
    try:
        for t in inputs:
            t.grad = None
            t.retain_grad()
        backward(outputs, grad_outputs, retain_graph, create_graph, inputs)
        result = tuple(t._grad for t in inputs)
    finally:
        for t, (old, retained) in zip(inputs, saved, strict=True):
            t.grad = old
            if t.grad_fn is not None:
                t.grad_fn._retained = retained
    if any(r is None for r in result) and not allow_unused:
        raise RuntimeError("One of the differentiated Tensors appears to not have been used "
                           "in the graph. Fix: pass only inputs the outputs depend on.")
    return result


def Variable(data, requires_grad=False):  # noqa: N802 - torch's (deprecated) name
    """Old torch code's ``Variable(t, requires_grad=True)``: today just a tensor."""
    t = data if isinstance(data, tensors.Tensor) else tensors.Tensor(data)
    return t.requires_grad_(requires_grad)


# Imported last: they use the names above. As torch: autograd.forward_ad, .functional.
from minigrad import forward_ad  # noqa: E402
from minigrad import functional_ad as functional  # noqa: E402
from minigrad.gradgradcheck import gradgradcheck  # noqa: E402
