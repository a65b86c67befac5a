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
"""

import weakref
from collections import namedtuple

import numpy as np

from minigrad import tensors
from minigrad.ops.shape import View

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level",
           "exit_dual_level"]

LEVEL = [None]  # the current level (0) or None; read by Function.apply on every op
_DUALS = []  # weak references to the tensors given a tangent at this level

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "``unpack_dual(t)``: the value and its tangent (or None)."


def enter_dual_level():
    if LEVEL[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment. Fix: "
                           "compute inside the one dual_level() already open.")
    LEVEL[0] = 0
    return 0


def exit_dual_level(*, level=None):
    """End the level: every tangent made inside it is dropped, as in torch."""
    for ref in _DUALS:
        t = ref()
        if t is not None:
            t._fw_tangent = None
    _DUALS.clear()
    LEVEL[0] = None


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
    if tensor.data.dtype.kind != "f":
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}. Fix: convert it first, t.double().")
    if tuple(tangent.data.shape) != tensor.data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor.data.shape)} while the given forward gradient is of size "
            f"{list(tangent.data.shape)}. Fix: the tangent has the primal's shape.")
    if tensor._requires_grad:
        out = View.apply(tensor, tensor.data.shape)
    else:
        out = tensors.make(tensor.data, None)
        out._version_counter = tensor._version_counter
    _attach(out, np.array(tangent.data, dtype=tensor.data.dtype))
    return out


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: the value without its tangent, and the tangent or None."""
    tangent = tensor._fw_tangent
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensors.make(tensor.data, tensor.grad_fn)
    primal._version_counter = tensor._version_counter
    return UnpackedDualTensor(primal, tensors.make(tangent, None))


def _attach(tensor, tangent):
    tensor._fw_tangent = tangent
    _DUALS.append(weakref.ref(tensor))


def propagate(ctx, args, result, record=False):
    """Called by ``Function.apply`` inside a level: the output's tangent, if any input has
    one, from the op's ``jvp``. A recorded node keeps its inputs' tangents, so a backward
    that builds a graph (``create_graph=True``) carries them too: forward-over-reverse, a
    Hessian column."""
    tangents = [getattr(a, "_fw_tangent", None) for a in args]
    if all(t is None for t in tangents):
        return
    if record:
        ctx._fw_in = tangents
    ctx.inputs = tuple([a.data if hasattr(a, "_fw_tangent") else a for a in args])
    out = ctx.result = result.data
    try:
        tangent = np.asarray(ctx.jvp(ctx, *tangents))
    finally:
        del ctx.inputs, ctx.result
    if tangent.shape != out.shape:
        tangent = np.broadcast_to(tangent, out.shape)
    _attach(result, np.array(tangent, dtype=out.dtype))
    if record:
        ctx._fw_out = result._fw_tangent
