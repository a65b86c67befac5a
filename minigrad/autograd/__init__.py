"""``minigrad.autograd``, laid out as ``torch.autograd`` (chapters 05-16).

- ``function.py``: :class:`Function` (an op: forward, backward, jvp; the instance is both
  ``ctx`` and the graph's node) and :class:`AccumulateGrad` (a leaf's node);
- ``engine.py``: the backward pass, one loop for first order and ``create_graph=True``;
- ``graph.py``: node-level machinery, tensor hooks and their handles;
- ``grad_mode.py``: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``;
- ``forward_ad.py``: forward mode, ``dual_level``, ``make_dual``, ``unpack_dual``;
- ``functional.py``: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``;
- ``gradcheck.py``: ``gradcheck`` and ``gradgradcheck`` against finite differences;
- ``function_ctx.py``: :class:`FunctionCtx`, the ``ctx`` methods ``Function`` inherits;
- ``custom_function.py``: a user's Function, run on tensors as torch's;
- ``once_differentiable.py``: the decorator, as ``torch.autograd.function``'s;
- ``saved_hooks.py``: the stack of ``graph.saved_tensors_hooks``;
- ``anomaly_mode.py``: ``detect_anomaly``, ``set_detect_anomaly``.

Here: ``backward`` (several roots in one pass), ``grad`` (gradients returned instead of
stored in ``.grad``, handy for a Jacobian row by row; ``create_graph=True`` records them,
to differentiate again) and ``Variable``, as torch's.
"""

# Function first: it brings in tensors (and the ops), which the modules after it need.
# isort: off
from minigrad.autograd.function import Function
from minigrad.autograd import anomaly_mode, engine, forward_ad, graph
from minigrad.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from minigrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.tensors import Tensor
# isort: on

__all__ = ["Function", "Variable", "backward", "grad", "gradcheck", "gradgradcheck",
           "GradcheckError", "forward_ad", "functional", "graph", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "anomaly_mode", "detect_anomaly",
           "set_detect_anomaly"]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             inputs=None):
    """``backward`` of one tensor or of several, in one pass (their gradients add up).
    With ``create_graph=True`` the pass is recorded (``engine.py``)."""
    if not isinstance(tensors, tuple | list):
        tensors, grad_tensors = [tensors], [grad_tensors]
    elif isinstance(grad_tensors, Tensor):
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
    if batched.LEVELS and batched.any_batched(grad_outputs):  # vmap over the cotangent
        return batched.per_sample(grad, outputs, inputs, grad_outputs, retain_graph,
                                  create_graph, allow_unused)
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
    t = data if isinstance(data, Tensor) else Tensor(data)
    return t.requires_grad_(requires_grad)


# Last: they call grad() above. As torch, autograd.gradcheck is the function.
from minigrad._functorch import batched  # noqa: E402
from minigrad.autograd import functional  # noqa: E402
from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
