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

A rule gets the node ``ctx`` (what forward noted on it: shapes, axes), the inputs'
arrays, their tangents (None for an input without one) and the output array.
"""

import math
import weakref
from collections import namedtuple

import numpy as np

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
    from minigrad.ops.shape import View
    from minigrad.tensors import make

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
        out = make(tensor.data, None)
        out._version_counter = tensor._version_counter
    _attach(out, np.array(tangent.data, dtype=tensor.data.dtype))
    return out


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: the value without its tangent, and the tangent or None."""
    from minigrad.tensors import make

    tangent = tensor._fw_tangent
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = make(tensor.data, tensor.grad_fn)
    primal._version_counter = tensor._version_counter
    return UnpackedDualTensor(primal, make(tangent, None))


def _attach(tensor, tangent):
    tensor._fw_tangent = tangent
    _DUALS.append(weakref.ref(tensor))


def propagate(cls, ctx, args, result, record=False):
    """Called by ``Function.apply`` inside a level: the output's tangent, if any input has
    one. A recorded node keeps its inputs' tangents, so a backward that builds a graph
    (``create_graph=True``) carries them too: forward-over-reverse, a Hessian column."""
    tangents = [getattr(a, "_fw_tangent", None) for a in args]
    if all(t is None for t in tangents):
        return
    if record:
        ctx._fw_in = tangents
    rule = rule_for(cls)
    arrays = [getattr(a, "data", a) for a in args]
    out = result.data
    tangent = np.asarray(rule(ctx, arrays, tangents, out))
    if tangent.shape != out.shape:
        tangent = np.broadcast_to(tangent, out.shape)
    _attach(result, np.array(tangent, dtype=out.dtype))
    if record:
        ctx._fw_out = result._fw_tangent


def rule_for(cls):
    for klass in cls.__mro__:
        rule = _rules().get(klass)
        if rule is not None:
            return rule
    if hasattr(cls, "jvp"):  # TEMPORARY: the new one-class form (ops/trig.py, ...)
        return _own_jvp
    raise NotImplementedError(
        f"minigrad has no forward-mode (tangent) rule for {cls.__name__}. Fix: for a "
        "Function of your own, compute the JVP with reverse mode (autograd.functional.jvp).")


def _own_jvp(ctx, arrays, tangents, out):
    """An op's own ``jvp(ctx, *tangents)``, reading ``ctx.inputs`` and ``ctx.result``."""
    ctx.inputs, ctx.result = arrays, out
    try:
        tangent = type(ctx).jvp(ctx, *tangents)
    finally:
        del ctx.inputs, ctx.result
    return np.zeros_like(out) if tangent is None else tangent


def _z(t, like):
    """A missing tangent is zero."""
    return np.zeros_like(like) if t is None else t


def _linear(ctx, arrays, tangents, out):
    """An op linear in its first input (a view, a sum, an index): apply it to the tangent."""
    return type(ctx).forward(type(ctx)(), tangents[0], *arrays[1:])


def _mul(ctx, a, t, out):
    (x, y), (tx, ty) = a, t
    return (0 if tx is None else tx * y) + (0 if ty is None else x * ty)


def _div(ctx, a, t, out):
    (_, y), (tx, ty) = a, t
    return ((0 if tx is None else tx) - (0 if ty is None else out * ty)) / y


def _pow(ctx, a, t, out):
    p = ctx.exponent
    if p == 0:
        return np.zeros_like(out)
    with np.errstate(divide="ignore", invalid="ignore"):
        return p * a[0] ** (p - 1) * t[0]


def _pow_tensor(ctx, a, t, out):
    (x, y), (tx, ty) = a, t
    with np.errstate(divide="ignore", invalid="ignore"):
        d = 0 if tx is None else np.where(y == 0, 0, y * x ** (y - 1) * tx)
        e = 0 if ty is None else np.where((x == 0) & (y >= 0), 0, out * np.log(x)) * ty
    return d + e


def _rpow(ctx, a, t, out):
    if ctx.base == 0:
        with np.errstate(invalid="ignore"):
            return np.where(a[0] >= 0, 0, out * -np.inf) * t[0]
    return out * math.log(ctx.base) * t[0]


def _max(ctx, a, t, out):
    mask = np.isnan(a[0]) if np.isnan(out) else a[0] == out
    return (t[0] * mask).sum() / mask.sum()


def _matmul(ctx, a, t, out):
    (x, y), (tx, ty) = a, t
    return (0 if tx is None else np.matmul(tx, y)) + (0 if ty is None else np.matmul(x, ty))


def _linear_layer(ctx, a, t, out):
    (x, w, _), (tx, tw, tb) = a, t
    result = np.zeros_like(out)
    if tx is not None:
        result = result + tx @ w.T
    if tw is not None:
        result = result + x @ tw.T
    if tb is not None:
        result = result + tb
    return result


def _mse(ctx, a, t, out):
    (x, y, _), (tx, ty, _) = a, t
    y = np.asarray(y)
    d = _z(tx, x) - (0 if ty is None else ty)
    each = 2 * (x - y) * d
    if ctx.reduction == "none":
        return each
    return each.mean() if ctx.reduction == "mean" else each.sum()


def _cross_entropy(ctx, a, t, out):
    (logits, target, _), (tl, _, _) = a, t
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax = e / e.sum(axis=1, keepdims=True)
    rows = np.arange(len(target))
    each = (softmax * tl).sum(axis=1) - tl[rows, target]
    if ctx.reduction == "none":
        return each
    return each.sum() / len(target) if ctx.reduction == "mean" else each.sum()


def _relu(ctx, a, t, out):
    return np.where(out > 0, t[0], 0)


def _zero(ctx, a, t, out):
    return np.zeros_like(out)


_RULES = {}


def _rules():
    if _RULES:
        return _RULES
    from minigrad.double_backward import ScatterAdd
    from minigrad.inplace import Zero
    from minigrad.ops import activations as act
    from minigrad.ops import arithmetic as ar
    from minigrad.ops import indexing, linear, losses, matmul, reductions
    from minigrad.ops import shape as sh

    _RULES.update({
        ar.Add: lambda ctx, a, t, out: _z(t[0], a[0]) + _z(t[1], np.asarray(a[1])),
        ar.Sub: lambda ctx, a, t, out: _z(t[0], a[0]) - _z(t[1], np.asarray(a[1])),
        ar.Rsub: lambda ctx, a, t, out: -t[0],
        ar.Neg: lambda ctx, a, t, out: -t[0],
        ar.Mul: _mul,
        ar.Div: _div,
        ar.Reciprocal: lambda ctx, a, t, out: -out * out * t[0],
        ar.Pow: _pow,
        ar.PowTensor: _pow_tensor,
        ar.RPow: _rpow,
        act.Exp: lambda ctx, a, t, out: out * t[0],
        act.Log: lambda ctx, a, t, out: t[0] / a[0],
        act.Tanh: lambda ctx, a, t, out: (1 - out * out) * t[0],
        act.Sigmoid: lambda ctx, a, t, out: out * (1 - out) * t[0],
        act.Relu: _relu,
        reductions.Sum: _linear,
        reductions.Mean: _linear,
        reductions.Max: _max,
        reductions.MaxDim: _linear,  # at the indices forward found: linear in the input
        matmul.Mm: _matmul,
        matmul.Matmul: _matmul,
        linear.Linear: _linear_layer,
        losses.MseLoss: _mse,
        losses.CrossEntropy: _cross_entropy,
        sh.View: _linear, sh.Transpose: _linear, sh.Permute: _linear, sh.Unsqueeze: _linear,
        sh.Squeeze: _linear, sh.ToCopy: _linear, sh.Clone: _linear,
        indexing.Index: _linear,
        Zero: _zero,
        ScatterAdd: _linear,  # indexing's backward, recorded: forward-over-reverse meets it
    })
    return _RULES
