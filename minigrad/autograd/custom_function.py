r"""A ``Function`` of your own, exactly as torch's ``torch.autograd.Function`` (chapter 16).

minigrad's own ops (``ops/``) compute on numpy arrays, for speed (``function.py``). A
subclass of :class:`Function` defined anywhere else is a user's, and runs as torch runs
it:

* ``forward(ctx, *args)`` (or torch 2's ``forward(*args)`` plus
  ``setup_context(ctx, inputs, output)``) receives the tensors themselves (other
  arguments as given) and runs under ``no_grad``: its ops are not recorded. The tensors
  it returns (one, or a tuple) are then attached to the node, output ``k`` with
  ``output_nr`` ``k``;
* ``backward(ctx, *grad_outputs)`` receives one gradient tensor per output (zeros for an
  output nothing used, or None after ``ctx.set_materialize_grads(False)``) and returns
  one gradient (or None) per input of forward. It runs under ``no_grad``, unless the
  pass is recorded (``create_graph=True``): then its ops are recorded, and a backward
  written with differentiable ops can be differentiated again;
* ``ctx.save_for_backward(*tensors)`` / ``ctx.saved_tensors`` (with torch's version
  check), ``ctx.needs_input_grad``, ``ctx.mark_non_differentiable(*outputs)``,
  ``ctx.mark_dirty(*inputs)`` (forward changed them in place), ``ctx.save_for_forward``
  and ``jvp(ctx, *grad_inputs)`` for forward mode; ``once_differentiable.py``.
"""

import numpy as np

from minigrad import tensors
from minigrad.autograd import anomaly_mode, forward_ad, saved_hooks, transform_depth
from minigrad.autograd.grad_mode import GRAD_ENABLED, enable_grad, no_grad

__all__ = ["apply", "backward", "unpack", "MULTI", "SEEN"]

MULTI = [False]  # set once a Function returns several tensors: ops then note output_nr
SEEN = [False]  # set once a user's Function is recorded: the engine then looks for one


def _has_setup_context(cls):
    from minigrad.autograd.function import Function
    return getattr(cls, "setup_context", None) is not Function.setup_context


def apply(cls, args):
    """``cls.apply(*args)`` for a user's Function: see the module docstring."""
    Tensor = tensors.Tensor
    if transform_depth.DEPTH[0] and cls._custom and not _has_setup_context(cls):
        raise RuntimeError(transform_depth.SETUP_CONTEXT_REQUIRED)
    ctx = cls()
    record = GRAD_ENABLED.enabled and any(
        isinstance(a, Tensor) and a._requires_grad for a in args)
    ctx.next_functions = tuple([_edge(a) if record and isinstance(a, Tensor) else None
                                for a in args])
    ctx._not_tensor = tuple([not isinstance(a, Tensor) for a in args])
    if record and not SEEN[0]:
        SEEN[0] = True
        saved_hooks.refresh()
    if record and MULTI[0]:
        ctx._input_nrs = tuple([getattr(a, "_output_nr", 0) for a in args])
    level = forward_ad.LEVEL[0]
    forward_ad.LEVEL[0] = None  # forward's own ops carry no tangents: jvp gives them
    try:
        with no_grad():
            if _has_setup_context(cls):
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
    finally:
        forward_ad.LEVEL[0] = level
    single = not isinstance(output, tuple)
    outputs = [output] if single else list(output)
    dirty = ctx.__dict__.pop("_dirty", ())
    non_diff = ctx.__dict__.pop("_non_differentiable", ())
    for k, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            continue
        is_input = any(o is a for a in args)
        if not record:
            if is_input and not any(o is d for d in dirty):
                outputs[k] = o = _alias(o, None)
            continue
        if any(o is d for d in non_diff):
            continue
        if is_input and any(o is d for d in dirty):
            if o.grad_fn is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation. Fix: clone() the leaf first.")
        elif is_input or o.grad_fn is not None or o._requires_grad:
            outputs[k] = o = _alias(o, None)
        o.grad_fn = ctx
        o._requires_grad = True
        if k:
            o._output_nr = k
    metas = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None)
             for o in outputs]
    ctx.out_shape, ctx.out_dtype = metas[0]
    if len(outputs) > 1:
        ctx._n_outputs = len(outputs)
        ctx._metas = metas
        if record:
            MULTI[0] = True
    if ctx._saved:
        _pack(ctx, args, outputs)
    if record and anomaly_mode.ANOMALY[0]:
        anomaly_mode.record(ctx)
    if level is not None and any(getattr(a, "_fw_tangent", None) is not None for a in args):
        _forward_mode(ctx, args, outputs)
    return outputs[0] if single else tuple(outputs)


def _edge(a):
    from minigrad.autograd.function import accumulator
    if a.grad_fn is not None:
        return a.grad_fn
    return (a._accumulator or accumulator(a)) if a._requires_grad else None


def _alias(o, grad_fn):
    """A new tensor on the same data and version counter (torch: a view of ``o``)."""
    t = tensors.make(o._data, grad_fn)
    t._version_counter = o._version_counter
    return t


def _pack(ctx, args, outputs):
    """What ``save_for_backward`` got: an output as (its number, data, version counter,
    version), anything else as (the tensor, its version), or what the pack hook made."""
    hooks = saved_hooks.current()
    entries = []
    for t in ctx._saved:
        if t is None:
            entries.append(None)
            continue
        if not isinstance(t, tensors.Tensor):
            raise TypeError("save_for_backward can only save variables, but argument 0 is "
                            f"of type {type(t).__name__}. Fix: keep other values as "
                            "attributes of ctx.")
        if hooks is not None:
            entries.append(("hook", hooks, hooks[0](t)))
            continue
        k = next((i for i, o in enumerate(outputs) if o is t), None)
        counter = t._version_counter
        if k is not None and t.grad_fn is ctx:
            entries.append(("out", k, t._data, counter, counter[0]))
        else:
            entries.append(("in", t, counter[0]))
    ctx._saved = tuple(entries)
    ctx._packed_entries = True


def unpack(ctx):
    """``ctx.saved_tensors`` of a user's Function: tensors, after torch's checks."""
    from minigrad.autograd.function_ctx import FREED
    if ctx._freed:
        raise RuntimeError(FREED)
    if not ctx.__dict__.get("_packed_entries"):  # forward called directly, not by apply
        return tuple(ctx._saved)
    out = []
    for entry in ctx._saved:
        if entry is None:
            out.append(None)
        elif entry[0] == "hook":
            out.append(entry[1][1](entry[2]))
        elif entry[0] == "out":
            _, k, data, counter, version = entry
            _check(ctx, counter, version, data)
            t = tensors.make(data, ctx)
            t._version_counter = counter
            if k:
                t._output_nr = k
            out.append(t)
        else:
            _, t, version = entry
            _check(ctx, t._version_counter, version, t._data)
            out.append(t)
    return tuple(out)


def _check(ctx, counter, version, data):
    if counter[0] != version:
        from minigrad.autograd.function_ctx import _describe
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{_describe(data)}] is at version {counter[0]}; expected "
            f"version {version} instead. Fix: do not change a saved tensor between the "
            f"forward pass and backward(), or save a clone(); {ctx.name()} needed its old "
            "value.")


def backward(ctx, grads, create_graph):
    """Run the user's backward on tensors: ``grads`` holds one gradient per output
    (arrays, tensors under ``create_graph``, or None). Returns a tuple."""
    metas = getattr(ctx, "_metas", None) or [(ctx.out_shape, ctx.out_dtype)]
    materialize = ctx.__dict__.get("_materialize", True)
    given = []
    for g, (shape, dtype) in zip(grads, metas, strict=True):
        if g is None:
            if materialize and dtype is not None:
                g = tensors.make(np.zeros(shape, dtype), None)
        elif not isinstance(g, tensors.Tensor):
            g = tensors.make(np.asarray(g), None)
        given.append(g)
    with enable_grad() if create_graph else no_grad():
        results = type(ctx).backward(ctx, *given)
    if not isinstance(results, tuple):
        results = (results,)
    for r in results:
        if r is not None and not isinstance(r, tensors.Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(r).__name__}). Fix: "
                               "backward returns tensors (or None), one per input.")
    for i, (r, parent) in enumerate(zip(results, ctx.next_functions, strict=False)):
        if r is not None and parent is None and ctx._not_tensor[i]:
            raise RuntimeError(
                f"function {ctx.name()} returned a gradient different than None at position "
                f"{i + 1}, but the corresponding forward input was not a Variable. Fix: "
                "return None for an argument that is not a tensor.")
    if create_graph:
        return results
    given = {id(g._data) for g in given if g is not None}  # never hand a leaf a shared array
    return tuple([None if r is None else r._data.copy() if id(r._data) in given else r._data
                  for r in results])


def _forward_mode(ctx, args, outputs):
    """The outputs' tangents from the user's ``jvp(ctx, *grad_inputs)``."""
    Tensor = tensors.Tensor
    tangents = [None if not isinstance(a, Tensor) else
                tensors.make(a._fw_tangent if a._fw_tangent is not None
                             else np.zeros_like(a._data), None) for a in args]
    from minigrad.autograd.function import Function
    if type(ctx).jvp is Function.jvp:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD. Fix: define jvp(ctx, *grad_inputs) as a staticmethod.")
    ctx._unpacked = ctx.__dict__.get("_saved_forward", ())
    ctx.inputs, ctx.result = tuple(args), outputs[0] if len(outputs) == 1 else tuple(outputs)
    try:  # ctx.inputs / ctx.result: minigrad's own ops' jvp protocol, kept while it runs
        with no_grad():
            result = type(ctx).jvp(ctx, *tangents)
    finally:
        ctx._unpacked = None
        del ctx.inputs, ctx.result
    results = result if isinstance(result, tuple) else (result,)
    for o, t in zip(outputs, results, strict=False):
        if isinstance(o, Tensor) and t is not None:
            forward_ad._attach(o, np.array(np.broadcast_to(t._data, o._data.shape),
                                           dtype=o._data.dtype))
