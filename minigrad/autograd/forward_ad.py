r"""Forward-mode AD: tangents carried alongside values, op by op (chapter 14).

As ``torch.autograd.forward_ad``::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(x0, v)        # x0 with tangent v
        y = f(x)
        y0, jvp = forward_ad.unpack_dual(y)    # f(x0) and J v

Inside a ``dual_level``, every op whose inputs carry a tangent gives its output one too,
computed by the op's tangent rule below, the directional derivative
:math:`\dot{y} = \sum_i \frac{\partial y}{\partial x_i} \dot{x}_i`. One pass gives one
column of the Jacobian (one direction ``v``); reverse mode gives one row per pass. No
graph is kept: the tangent travels with the value and is dropped when the level ends.

Each op's tangent rule is its ``jvp(ctx, *tangents)`` (the op's class, in ``ops/``): it
gets the inputs' tangents (None for an input without one) and reads the node ``ctx``
(what forward noted on it: shapes, axes), ``ctx.inputs`` (the inputs' arrays) and
``ctx.result`` (the output array).

Levels nest inside the ``torch.func`` transforms (chapter 15: ``jacfwd(jacfwd(f))``,
forward-over-forward, through :class:`transform_level`); ``dual_level`` itself, as torch's,
refuses to nest. Level 0
keeps its tangent as an array (``_fw_tangent``); a tangent of an inner level ``k`` is a
*tensor* (in ``_fw_nested[k]``) that carries the outer levels' tangents itself. Its rule
runs the op's ``jvp`` on tensors (``ctx.inputs`` and ``ctx.result`` are then the tensors,
with their outer tangents), the way ``create_graph`` runs ``backward`` on tensors: written
with operators, the same ``jvp`` serves both; an op whose ``jvp`` needs numpy has a
``differentiable_jvp``, and an op linear in its input (``linear_jvp``) is applied to the
tangent tensor. The ops inside propagate only the outer levels' tangents.
"""

import weakref
from collections import namedtuple

import numpy as np

from minigrad import tensors
from minigrad.autograd.function import constant, linear_jvp
from minigrad.ops.shape import View

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level",
           "exit_dual_level"]

LEVEL = [None]  # the innermost level (0, 1, ...) or None; read by Function.apply on every op
_LIMIT = [None]  # while an inner level's jvp runs on tensors: the last level to propagate
_DUALS = {}  # level -> weak references to the tensors given a tangent at that level

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "``unpack_dual(t)``: the value and its tangent (or None)."


def enter_dual_level():
    """A new level; as torch's, one at a time (the ``torch.func`` transforms nest theirs,
    :func:`transform_level`)."""
    if LEVEL[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment. Fix: "
                           "compute inside the one dual_level() already open, or nest "
                           "minigrad.func.jvp / jacfwd, which nest their levels.")
    return _enter()


def _enter():
    LEVEL[0] = 0 if LEVEL[0] is None else LEVEL[0] + 1
    _DUALS[LEVEL[0]] = []
    return LEVEL[0]


def exit_dual_level(*, level=None):
    """End the innermost level: every tangent made inside it is dropped, as in torch."""
    current = LEVEL[0]
    if current is None:
        return
    if level is not None and level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported. Fix: exit the innermost "
                           "level first.")
    for ref in _DUALS.pop(current, []):
        t = ref()
        if t is None:
            continue
        if current == 0:
            t._fw_tangent = None
        else:
            t._fw_nested.pop(current, None)
    LEVEL[0] = None if current == 0 else current - 1


class transform_level:  # noqa: N801 - a context manager, as dual_level
    """The level of one ``func.jvp``/``jacfwd`` call: inside another one's, a new inner
    level (forward-over-forward), as torch.func's transforms nest."""

    def __enter__(self):
        return _enter()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


class dual_level:  # noqa: N801 - torch's name
    """``with dual_level():`` the scope in which tangents exist."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A tensor with ``tensor``'s value (and graph) that carries ``tangent``."""
    if LEVEL[0] is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                           "exists, make sure to enter_dual_level() first. Fix: call it "
                           "inside `with forward_ad.dual_level():`.")
    if tensor._data.dtype.kind != "f":
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}. Fix: convert it first, t.double().")
    if tuple(tangent._data.shape) != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}. Fix: the tangent has the primal's shape.")
    level = LEVEL[0] if level is None else level
    if level > 0:  # an inner level: keep the outer tangents, add a tensor tangent
        out = View.apply(tensor, tensor._data.shape)
        if tangent._data.dtype != tensor._data.dtype:
            tangent = tangent.to(tensor.dtype)
        _attach_nested(out, tangent, level)
        return out
    if tensor._requires_grad:
        out = View.apply(tensor, tensor._data.shape)
    else:
        out = tensors.make(tensor._data, None)
        out._version_counter = tensor._version_counter
    _attach(out, np.array(tangent._data, dtype=tensor._data.dtype))
    return out


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: the value without its tangent, and the tangent or None."""
    level = LEVEL[0] if level is None else level
    if level is not None and level > 0:
        nested = getattr(tensor, "_fw_nested", None) or {}
        tangent = nested.get(level)
        if tangent is None:
            return UnpackedDualTensor(tensor, None)
        primal = tensors.make(tensor._data, tensor.grad_fn)
        primal._version_counter = tensor._version_counter
        if tensor._fw_tangent is not None:
            _attach(primal, tensor._fw_tangent)
        for k, t in nested.items():
            if k < level:
                _attach_nested(primal, t, k)
        return UnpackedDualTensor(primal, tangent)
    tangent = tensor._fw_tangent
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensors.make(tensor._data, tensor.grad_fn)
    primal._version_counter = tensor._version_counter
    return UnpackedDualTensor(primal, tensors.make(tangent, None))


def _attach(tensor, tangent):
    tensor._fw_tangent = tangent
    _DUALS.setdefault(0, []).append(weakref.ref(tensor))


def _attach_nested(tensor, tangent, level):
    nested = tensor.__dict__.get("_fw_nested")
    if nested is None:
        nested = tensor._fw_nested = {}
    nested[level] = tangent
    _DUALS.setdefault(level, []).append(weakref.ref(tensor))


def propagate(ctx, args, result, record=False):
    """Called by ``Function.apply`` inside a level: the output's tangent at each level
    whose tangents reach the op (the outer level first)."""
    top = LEVEL[0] if _LIMIT[0] is None else min(LEVEL[0], _LIMIT[0])
    if top is None or top < 0:
        return
    _propagate_arrays(ctx, args, result, record)
    for level in range(1, top + 1):
        _propagate_tensors(ctx, args, result, level)


def _propagate_arrays(ctx, args, result, record=False):
    """Level 0, on arrays. A recorded node keeps its inputs' tangents, so a backward
    that builds a graph (``create_graph=True``) carries them too: forward-over-reverse, a
    Hessian column."""
    tangents = [getattr(a, "_fw_tangent", None) for a in args]
    if all(t is None for t in tangents):
        return
    if record:
        ctx._fw_in = tangents
    ctx.inputs = tuple([a._data if hasattr(a, "_fw_tangent") else a for a in args])
    out = ctx.result = result._data
    try:
        tangent = np.asarray(ctx.jvp(ctx, *tangents))
    finally:
        del ctx.inputs, ctx.result
    if tangent.shape != out.shape:
        tangent = np.broadcast_to(tangent, out.shape)
    _attach(result, np.array(tangent, dtype=out.dtype))
    if record:
        ctx._fw_out = result._fw_tangent


def _propagate_tensors(ctx, args, result, level):
    """An inner level: the op's jvp on tensors, its ops carrying the outer tangents."""
    tangents = [(getattr(a, "_fw_nested", None) or {}).get(level) for a in args]
    if all(t is None for t in tangents):
        return
    saved = _LIMIT[0]
    _LIMIT[0] = level - 1
    try:
        if type(ctx).__dict__.get("jvp") is linear_jvp or (
                getattr(type(ctx).jvp, "__func__", type(ctx).jvp) is linear_jvp):
            tangent = type(ctx).apply(tangents[0], *args[1:])
        else:
            ctx.inputs = tuple(args)
            ctx.result = result
            try:
                method = getattr(ctx, "differentiable_jvp", None) or ctx.jvp
                tangent = method(ctx, *tangents)
            finally:
                del ctx.inputs, ctx.result
        if not isinstance(tangent, tensors.Tensor):
            tangent = np.asarray(tangent)
            if np.any(tangent != 0):  # numpy dropped the outer tangents: refuse, not guess
                raise NotImplementedError(
                    f"minigrad has no nested forward-mode rule for {type(ctx).__name__}: its "
                    "jvp computes with numpy. Fix: give the op a differentiable_jvp (its jvp "
                    "in minigrad's ops), or use jacfwd(jacrev(f)) for this second derivative.")
            tangent = constant(tangent)
        if tangent._data.shape != result._data.shape:
            tangent = tangent + constant(np.zeros(result._data.shape, result._data.dtype))
        if tangent._data.dtype != result._data.dtype:
            tangent = tangent.to(result.dtype)
    finally:
        _LIMIT[0] = saved
    _attach_nested(result, tangent, level)
