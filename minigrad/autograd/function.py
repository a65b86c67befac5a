r"""``Function``: one differentiable op, and the graph node it leaves behind (chapter 05).

An op is a subclass of :class:`Function` holding its whole derivative story, in static
methods named as in torch:

* ``forward(ctx, *args)`` computes the result from the inputs' numpy arrays and keeps
  what backward will need with ``ctx.save_for_backward(...)``;
* ``backward(ctx, grad_output)`` receives :math:`\partial L / \partial \text{out}` and
  returns one gradient per input of ``forward`` (``None`` for an input that is not a
  tensor or needs none), each the vector-Jacobian product
  :math:`\partial L / \partial x_i = \sum_j \partial L / \partial \text{out}_j \cdot
  \partial \text{out}_j / \partial x_i`. It never changes ``grad_output`` in place.
  Written with operators, the same method runs on tensors under ``create_graph=True``
  (chapter 15): ``ctx.saved_tensors`` then gives tensors joined to the graph, so the
  backward is recorded and can be differentiated again, as torch's contract;
* ``differentiable_backward(ctx, grad_output)``, only where ``backward`` needs numpy
  (``np.where``, ``np.add.at``): the same gradient in minigrad's ops, for ``create_graph``;
* ``jvp(ctx, *tangents)`` (forward mode, chapter 14): the output's tangent from the
  inputs' tangents (None where an input has none); while it runs ``ctx.inputs`` holds
  forward's arguments (arrays for tensors) and ``ctx.result`` the output array.

``Op.apply(a, b, ...)`` runs forward and, if some input requires grad while recording is
on, returns a tensor whose ``grad_fn`` is the ``ctx`` itself: the node of the graph,
with ``next_functions`` pointing at the inputs' nodes (a leaf's node is its
:class:`AccumulateGrad`). A backward may return a gradient in the shape of the
broadcast result; the engine (``engine.py``) reduces it to the input's shape.

That numpy fast path is for minigrad's own ops. A subclass defined anywhere else (a
user's Function) gets tensors in ``forward`` and ``backward``, exactly as torch's:
``custom_function.py``. minigrad differs from torch in that ``next_functions`` holds the
nodes themselves where torch holds pairs ``(node, 0)``.
"""

import weakref

import numpy as np

from minigrad.autograd.function_ctx import FunctionCtx
from minigrad.autograd.grad_mode import GRAD_ENABLED
from minigrad.autograd.saved_hooks import EXTRAS
from minigrad.dtypes import from_numpy

__all__ = ["Function", "FunctionCtx", "once_differentiable", "AccumulateGrad", "accumulator",
           "constant", "linear_jvp", "zeros_if_none"]

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`. Fix: p.clone() outside inference_mode, or no_grad().")


class Function(FunctionCtx):
    """Base class of every op; an instance is both ``ctx`` and the graph node."""

    backward_name = None  # torch's name for the node; default f"{cls.__name__}Backward0"
    is_view = False  # True when the output may share memory with input 0 (reshape, ...)
    _saved = ()
    _checks = ()
    _freed = False
    _retained = None
    _unpacked = None  # saved_tensors as tensors, while a recorded backward runs
    _fw_in = _fw_out = None  # forward mode: the inputs' and output's tangents (recorded)
    _hooks = None  # register_hook on the tensor this node makes (graph.py)
    _post_hooks = None  # a leaf's register_post_accumulate_grad_hook
    _packed = None  # saved_tensors_hooks' pair, when what forward saved went through it
    _pack_order = None  # the order torch saves in, if not forward's (Mul: other, then self)
    _custom = False  # a user's Function (custom_function.py): tensors, not arrays
    _n_outputs = 1  # a user's Function may return several tensors
    _input_nrs = None  # which output of its node each input is, once MULTI
    next_functions = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._custom = not cls.__module__.startswith("minigrad.")

    def __call__(self, *args):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function) Fix: "
            "call the class's apply: MyFunction.apply(x).")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented. Fix: define "
                                  "forward(ctx, *args), or forward(*args) with setup_context.")

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD. Fix: define "
            "backward(ctx, *grad_outputs) as a staticmethod.")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            f"minigrad has no forward-mode (tangent) rule for {type(ctx).__name__}. Fix: for "
            "a Function of your own, compute the JVP with reverse mode "
            "(autograd.functional.jvp), or give it a jvp(ctx, *tangents).")

    def name(self):
        """The node's name, as torch's: ``MulBackward0``."""
        if self._custom:  # torch: a custom Function's node has no 0
            return type(self).__name__ + "Backward"
        return self.backward_name or type(self).__name__ + "Backward0"

    def __repr__(self):
        return f"<{self.name()} object>"

    @classmethod
    def apply(cls, *args):
        """Run forward on the inputs' data; record the node if a gradient is needed."""
        if batched.LEVELS and (out := batched.maybe_dispatch(cls, args)) is not None:
            return out  # vmap: the op's batching rule (minigrad/_functorch/batched.py)
        if cls._custom:
            return custom_function.apply(cls, args)
        Tensor = tensors.Tensor
        make = tensors.make
        ctx = cls()
        requires_grad = False
        for a in args:
            if isinstance(a, Tensor) and a._requires_grad:
                requires_grad = True
                break
        record = requires_grad and GRAD_ENABLED.enabled
        if record:  # before forward, so forward can read ctx.needs_input_grad as in torch
            ctx.next_functions = tuple([
                (a.grad_fn if a.grad_fn is not None else
                 (a._accumulator or accumulator(a)) if a._requires_grad else None)
                if isinstance(a, Tensor) else None
                for a in args])
            if EXTRAS[0] and custom_function.MULTI[0]:  # an input: output k of a user's Function
                ctx._input_nrs = tuple([getattr(a, "_output_nr", 0) for a in args])
        out = cls.forward(ctx, *[a._data if isinstance(a, Tensor) else a for a in args])
        if type(out) is not np.ndarray:
            array = np.asarray(out._data if isinstance(out, Tensor) else out)
            if ctx._saved:  # a 0-d result (a numpy scalar) saved for backward: the array
                ctx._saved = tuple([array if s is out else s for s in ctx._saved])
            out = array
        result = make(out, ctx if record else None)
        if forward_ad.LEVEL[0] is not None:  # forward mode: the output's tangent too
            forward_ad.propagate(ctx, args, result, record)
        if cls.is_view and out.base is not None and (
                not out.size or np.may_share_memory(out, args[0]._data)):
            views.register(result, args[0], cls, args[1:])
        if not record:
            return result
        ctx.out_shape = out.shape
        ctx.out_dtype = out.dtype
        if ctx._saved:
            ctx._checks = _version_checks(ctx._saved, args, result, Tensor)
            if EXTRAS[0] and saved_hooks.STACK:
                saved_hooks.pack_arrays(ctx, saved_hooks.STACK[-1], args, result)
        if EXTRAS[0] and anomaly_mode.ANOMALY[0]:
            anomaly_mode.record(ctx)
        return result


def _version_checks(saved, args, result, Tensor):
    """(index, version counter, version now, whose) for each saved array that is a
    tensor's data; ``whose`` is the input's position, or -1 for the output (a backward
    that builds a graph, ``create_graph=True``, turns the array back into that tensor)."""
    checks = []
    for i, array in enumerate(saved):
        if array is result._data:
            checks.append((i, result._version_counter, result._version_counter[0], -1))
            continue
        for k, a in enumerate(args):
            if isinstance(a, Tensor) and a._data is array:
                if a._is_inference:
                    raise RuntimeError(INFERENCE_SAVED)
                counter = a._version_counter
                checks.append((i, counter, counter[0], k))
                break
    return checks


class AccumulateGrad(Function):
    """A leaf's node: adds the gradient that reaches it into ``variable.grad``."""

    backward_name = "AccumulateGrad"

    def __init__(self, variable):
        self._variable = weakref.ref(variable)  # the leaf holds its node, not vice versa

    @property
    def variable(self):
        return self._variable()

    @property
    def out_shape(self):
        variable = self._variable()
        return variable._data.shape if variable is not None else ()

    @property
    def out_dtype(self):
        variable = self._variable()
        return variable._data.dtype if variable is not None else None

    def accumulate(self, grad):
        """First time: keep ``grad`` (the engine hands over its own copy); then add. A
        tensor ``grad`` (``create_graph=True``) is kept as is, a graph, and added out of
        place."""
        variable = self._variable()
        if variable is None or not variable._requires_grad:  # gone, or requires_grad_(False)
            return
        if isinstance(grad, tensors.Tensor):
            self._accumulate_graph(variable, grad)
            return
        if type(grad) is not np.ndarray:  # a 0-d result of numpy math is a scalar
            grad = np.array(grad)
        if grad.dtype != variable._data.dtype:
            grad = grad.astype(variable._data.dtype)
        if self._hooks:
            grad = graph.run_hooks(self, grad)
        if variable.grad is None:
            variable.grad = tensors.make(grad, None)
        else:
            variable.grad._data += grad
            variable.grad._version_counter[0] += 1
        if self._post_hooks:
            for fn in list(self._post_hooks.values()):
                fn(variable)

    def _accumulate_graph(self, variable, grad):
        if grad._data.dtype != variable._data.dtype:
            grad = grad.to(from_numpy(variable._data.dtype))
        if self._hooks:
            grad = graph.run_hooks(self, grad, as_tensor=True)
        variable._grad = grad if variable._grad is None else variable._grad + grad
        if self._post_hooks:
            for fn in list(self._post_hooks.values()):
                fn(variable)

    @staticmethod
    def jvp(ctx, *tangents):  # a leaf's node runs no forward: nothing to propagate
        return None


def constant(array, dtype=None):
    """A tensor no gradient flows into (a mask, a one-hot) for a differentiable backward."""
    array = np.asarray(array)
    return tensors.make(array if dtype is None else array.astype(dtype), None)


def linear_jvp(ctx, tangent, *_):
    """The tangent of an op linear in its first input (a view, a sum, an index): the op
    itself applied to the tangent, with the same other arguments."""
    return type(ctx).forward(type(ctx)(), tangent, *ctx.inputs[1:])


def zeros_if_none(tangent, like):
    """A missing tangent is zero."""
    return np.zeros_like(like) if tangent is None else tangent


def accumulator(t):
    """The one :class:`AccumulateGrad` of leaf ``t``, made the first time it is needed."""
    node = t._accumulator
    if node is None:
        node = t._accumulator = AccumulateGrad(t)
    return node


# Imported last: tensors.py imports the ops, and the ops subclass Function.
from minigrad import tensors, views  # noqa: E402
from minigrad._functorch import batched  # noqa: E402
from minigrad.autograd import (  # noqa: E402
    anomaly_mode,
    custom_function,
    forward_ad,
    graph,
    saved_hooks,
)
from minigrad.autograd.once_differentiable import once_differentiable  # noqa: E402

