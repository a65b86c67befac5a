r"""Module hooks, as torch's (chapter 16): look at a layer's input and output as they go
forward, and at the gradients w.r.t. them as backward comes through.

- ``register_forward_pre_hook(hook)``: ``hook(module, args)`` before ``forward``;
- ``register_forward_hook(hook)``: ``hook(module, args, output)`` after it;
- ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` once
  the gradient w.r.t. the module's input is known; a tuple it returns replaces it.

The backward hook works as torch's: the input and the output each pass through an
identity node (``BackwardHookFunctionBackward``); the output's node notes
:math:`\partial L / \partial \text{out}`, the input's node calls the hook with both. minigrad
supports it on modules called with one tensor (torch: any number).
"""

import itertools
import warnings

from minigrad.autograd.function import Function
from minigrad.autograd.graph import RemovableHandle
from minigrad.tensors import Tensor

__all__ = ["register", "call_with_hooks"]

_ids = itertools.count()

NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module "
    "outputs since no inputs require gradients. See "
    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


def register(module, kind, hook):
    hooks = module.__dict__.get("_hooks")
    if hooks is None:
        hooks = {"forward_pre": {}, "forward": {}, "backward": {}}
        object.__setattr__(module, "_hooks", hooks)
    key = next(_ids)
    hooks[kind][key] = hook
    return RemovableHandle(hooks[kind], key)


class BackwardHookFunction(Function):
    """Identity; its backward hands the gradient passing through to ``ctx.on_backward``."""

    backward_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx, a, on_backward):
        ctx.on_backward = on_backward
        return a

    @staticmethod
    def backward(ctx, grad_output):
        return ctx.on_backward(grad_output), None

    @staticmethod
    def jvp(ctx, tangent, _):  # the identity
        return tangent


def call_with_hooks(module, hooks, args, kwargs):
    from minigrad.tensors import make

    for hook in list(hooks["forward_pre"].values()):
        result = hook(module, args)
        if result is not None:
            args = result if isinstance(result, tuple) else (result,)
    backward = list(hooks["backward"].values())
    state = {}
    if backward:
        tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if len(tensors) > 1:
            raise NotImplementedError(
                "minigrad's full backward hook supports modules called with one tensor. "
                "Fix: register a tensor hook (register_hook) on each input instead.")
        if tensors and args[tensors[0]]._requires_grad:
            i = tensors[0]

            def on_input(grad):
                grad_input = (make(grad, None),)
                for hook in backward:
                    result = hook(module, grad_input, state["grad_output"])
                    if result is not None:
                        grad_input = tuple(result)
                return grad_input[0].data if grad_input[0] is not None else grad * 0

            args = args[:i] + (BackwardHookFunction.apply(args[i], on_input),) + args[i + 1:]
            state["input"] = True
    output = module.forward(*args, **kwargs)
    for hook in list(hooks["forward"].values()):
        result = hook(module, args, output)
        if result is not None:
            output = result
    if backward and isinstance(output, Tensor) and output._requires_grad:

        def on_output(grad):
            state["grad_output"] = (make(grad, None),)
            if "input" not in state:  # no input needs a gradient: fire now, as torch
                warnings.warn(NO_INPUT_GRAD, UserWarning, stacklevel=2)
                for hook in backward:
                    hook(module, (None,), state["grad_output"])
            return grad

        output = BackwardHookFunction.apply(output, on_output)
    return output
