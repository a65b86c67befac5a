"""The op functions torch also offers at top level: ``minigrad.mm(a, b)``,
``minigrad.exp(t)``, ``minigrad.sum(t, dim)`` (chapters 05-07)."""

from minigrad.ops import activations, matmul, reductions
from minigrad.ops import shape as shape_ops

__all__ = ["mm", "matmul", "sum", "mean", "max", "exp", "log", "tanh", "sigmoid", "relu",
           "reshape", "transpose", "unsqueeze", "squeeze"]

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
