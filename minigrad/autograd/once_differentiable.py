r"""torch's ``@once_differentiable`` for a user's Function's backward (chapter 16).

The backward runs under ``no_grad`` (on tensors, as any user's backward). If the pass is
recorded (``create_graph=True``) and a gradient it received requires grad, what it
returns is joined to a ``DelayedError`` node: differentiating through it raises
torch's error, instead of silently giving a wrong second derivative.
"""

import functools

from minigrad import tensors
from minigrad.autograd.grad_mode import GRAD_ENABLED, no_grad

__all__ = ["once_differentiable"]


def once_differentiable(fn):
    """torch's ``@once_differentiable`` on a backward: it runs under ``no_grad``, and a
    second derivative through it raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not GRAD_ENABLED.enabled:
            return outputs
        if not any(isinstance(a, tensors.Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        wrapped = tuple([_delayed_error(o) for o in ((outputs,) if single else outputs)])
        return wrapped[0] if single else wrapped
    return wrapper


class _DelayedError:
    """The node after a ``@once_differentiable`` backward: differentiating through it
    raises torch's error."""

    _hooks = _retained = None
    _custom = True  # the engine calls its backward as a user's: it raises
    _n_outputs = 1
    _input_nrs = None
    _dead_end = True  # leads to no input: with inputs= (autograd.grad) it is not run

    def __init__(self, shape, dtype):
        self.next_functions = ()
        self.out_shape, self.out_dtype = shape, dtype

    def name(self):
        return "DelayedError"

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable. Fix: write backward with differentiable "
                           "ops and drop the decorator, or do not use create_graph=True.")

    differentiable_backward = backward

    def release(self):
        pass


def _delayed_error(o):
    if not isinstance(o, tensors.Tensor):
        return o
    return tensors.make(o._data, _DelayedError(o._data.shape, o._data.dtype))
