r"""Gradient checkpointing: keep less for backward, compute it again (chapter 16).

``checkpoint(f, x, use_reentrant=True)`` runs ``f(x)`` without recording a graph and
keeps only ``x``. When backward reaches it, it runs ``f(x)`` again, this time recording,
and runs the backward of that small graph: every activation inside ``f`` is saved for a
moment instead of from the forward pass to the end of backward. Memory for time: one
more forward of ``f`` per backward.

As torch's reentrant variant (``CheckpointFunctionBackward``): the inner backward adds
into the ``.grad`` of the parameters ``f`` uses, so use it with ``backward()``, not with
``autograd.grad``. ``use_reentrant=False`` gives the same numbers; torch's graph then
looks different (no single checkpoint node), minigrad's does not. As torch, the random
state is kept (``preserve_rng_state=True``): a dropout inside draws the same mask when
recomputed.
"""

import copy
import warnings

from minigrad import autograd
from minigrad.autograd import engine
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from minigrad.factories import GENERATOR
from minigrad.tensors import Tensor, make

__all__ = ["checkpoint", "CheckpointFunction"]

REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the "
    "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


class CheckpointFunction(Function):
    """One node in place of ``function``'s whole graph; it saves only the inputs."""

    backward_name = "CheckpointFunctionBackward"

    @staticmethod
    def forward(ctx, function, n_inputs, result, *arrays):
        ctx.function, ctx.n_inputs = function, n_inputs
        ctx.save_for_backward(*arrays[:n_inputs])  # the parameters are kept anyway
        if result is None:  # reentrant: computed here, without a graph
            with no_grad():
                result = _one_tensor(function(*[make(a, None) for a in arrays[:n_inputs]]))._data
        return result

    @staticmethod
    def backward(ctx, grad_output):
        n = ctx.n_inputs
        needs = ctx.needs_input_grad[3:]
        inputs = [make(a, None).requires_grad_(need) if a.dtype.kind == "f" else make(a, None)
                  for a, need in zip(ctx.saved_tensors, needs[:n], strict=True)]
        params = [node.variable for node in ctx.next_functions[3 + n:]]
        with enable_grad():
            out = ctx.function(*inputs)  # the forward again, recorded this time
        if not out._requires_grad:
            return (None,) * (3 + len(needs))
        if not params:  # reentrant: the parameters' .grad is added to right here
            engine.run_backward([out], [make(grad_output, None)])
            return (None,) * 3 + tuple(x.grad._data if need and x.grad is not None else None
                                       for x, need in zip(inputs, needs, strict=True))
        wanted = [x for x, need in zip(inputs, needs, strict=False) if need] + params
        grads = iter(autograd.grad(out, wanted, make(grad_output, None), allow_unused=True))
        result = [next(grads) if need else None for need in needs[:n]] + list(grads)
        return (None,) * 3 + tuple(None if g is None else g._data for g in result)

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            "minigrad's checkpoint does not support forward-mode AD. Fix: call the function "
            "without checkpoint inside dual_level().")


def _tensor_arguments(function, args, kwargs):
    """``function`` as a function of the tensors among ``args`` only, and those tensors:
    the other arguments (numbers, ``None``, flags) and ``kwargs`` are passed through as
    they are, as torch does, and never saved or differentiated."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if len(positions) == len(args) and not kwargs:
        return function, args

    def of_tensors(*tensors):
        full = list(args)
        for i, t in zip(positions, tensors, strict=True):
            full[i] = t
        return function(*full, **kwargs)

    return of_tensors, tuple(args[i] for i in positions)


def _one_tensor(out):
    if not isinstance(out, Tensor):
        raise TypeError("minigrad's checkpoint takes a function that returns one tensor. "
                        "Fix: checkpoint each output's computation separately.")
    return out


def _replaying(function, preserve_rng_state):
    """``function``, whose calls after the first (the recomputations in backward) draw
    from a copy of the generator as it was before the first: a dropout inside draws the
    forward's mask again, and the generator outside is left as it was."""
    if not preserve_rng_state:
        return function
    state = copy.deepcopy(GENERATOR[0])
    calls = []

    def replay(*inputs, **kwargs):
        if not calls:  # the forward: draws as usual
            calls.append(True)
            return function(*inputs, **kwargs)
        outer, GENERATOR[0] = GENERATOR[0], copy.deepcopy(state)
        try:
            return function(*inputs, **kwargs)
        finally:
            GENERATOR[0] = outer

    return replay


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, recomputed in backward instead of remembered.
    Arguments that are not tensors are passed through as they are; ``kwargs`` only with
    ``use_reentrant=False`` (torch's ``ValueError`` otherwise).

    ``use_reentrant=True``: ``function`` runs without a graph; only ``args`` that require
    grad make the node record (as torch, a warning if none does), and the parameters'
    ``.grad`` is filled by a backward inside the backward. ``use_reentrant=False``:
    ``function`` runs once with a graph to find the parameters it uses, the graph is
    dropped at once, and their gradients flow through the node like any other
    (``autograd.grad`` works). ``preserve_rng_state=True`` (torch's default): the
    recomputation draws the random numbers of the forward (the same dropout mask);
    ``False`` draws anew, and the gradient is that of another mask."""
    if use_reentrant is None:
        warnings.warn(REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs) +
                         ". Fix: pass the function's arguments positionally, or use "
                         "use_reentrant=False.")
    function, args = _tensor_arguments(_replaying(function, preserve_rng_state), args, kwargs)
    if use_reentrant:
        if is_grad_enabled() and not any(getattr(a, "_requires_grad", False) for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be "
                          "None", UserWarning, stacklevel=2)
        return CheckpointFunction.apply(function, len(args), None, *args)
    with enable_grad():
        copies = [make(a._data, None).requires_grad_(a._requires_grad)
                  if isinstance(a, Tensor) else a for a in args]
        result = _one_tensor(function(*copies))
    params = _leaves(result, copies)
    del copies
    value = make(result._data, None)
    del result  # the block's graph goes now: only the inputs stay
    return CheckpointFunction.apply(function, len(args), value, *args, *params)


def _leaves(result, inputs):
    """The tensors requiring grad that ``result`` was computed from, other than ``inputs``."""
    if result.grad_fn is None:
        return []
    from minigrad.autograd.engine import topological_order
    from minigrad.autograd.function import AccumulateGrad

    found, seen = [], set()
    for node in topological_order(result.grad_fn):
        for parent in node.next_functions:
            if type(parent) is AccumulateGrad and id(parent) not in seen:
                seen.add(id(parent))
                leaf = parent.variable
                if leaf is not None and not any(leaf is x for x in inputs):
                    found.append(leaf)
    return found
