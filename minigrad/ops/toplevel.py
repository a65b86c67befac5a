"""The op functions torch also offers at top level: ``minigrad.mm(a, b)``,
``minigrad.exp(t)``, ``minigrad.sum(t, dim)``, ``minigrad.stack([a, b])``,
``minigrad.where(c, a, b)`` (chapters 05-07)."""

from minigrad.ops import (
    activations,
    clamping,
    comparison,
    joining,
    matmul,
    movement,
    norms,
    pointwise,
    reductions,
    selection,
    trig,
)
from minigrad.ops import shape as shape_ops

__all__ = ["mm", "matmul", "sum", "mean", "max", "exp", "log", "tanh", "sigmoid", "relu",
           "reshape", "transpose", "unsqueeze", "squeeze",
           "sin", "cos", "abs", "absolute", "sqrt", "sign", "clamp", "clip", "clamp_min",
           "clamp_max", "where", "stack", "cat", "concat", "concatenate", "permute", "movedim",
           "moveaxis", "dot", "norm", "isclose", "allclose", "equal"]

mm = matmul.mm
matmul = matmul.matmul
exp = activations.exp
log = activations.log
tanh = activations.tanh
sigmoid = activations.sigmoid
relu = activations.relu
transpose = shape_ops.transpose
unsqueeze = shape_ops.unsqueeze
squeeze = shape_ops.squeeze


def sum(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return reductions.sum(t, dim, keepdim)


def mean(t, dim=None, keepdim=False):
    return reductions.mean(t, dim, keepdim)


def max(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return reductions.max(t, dim, keepdim)


def reshape(t, shape):
    return shape_ops.reshape(t, shape)


# --- torch's everyday names (new op modules: trig, pointwise, clamping, selection, ...) ---
sin = trig.sin
cos = trig.cos
abs = pointwise.abs  # noqa: A001 - torch's name
absolute = pointwise.abs
sqrt = pointwise.sqrt
sign = pointwise.sign
clamp = clamping.clamp
clip = clamping.clamp
clamp_min = clamping.clamp_min
clamp_max = clamping.clamp_max
where = selection.where
stack = joining.stack
cat = joining.cat
concat = joining.concat
concatenate = joining.concatenate
permute = movement.permute
movedim = movement.movedim
moveaxis = movement.moveaxis
dot = norms.dot
norm = norms.norm
isclose = comparison.isclose
allclose = comparison.allclose
equal = comparison.equal
