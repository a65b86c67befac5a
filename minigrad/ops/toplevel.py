"""The op functions torch also offers at top level: ``minigrad.mm(a, b)``,
``minigrad.exp(t)``, ``minigrad.sum(t, dim)`` (chapters 05-07)."""

from minigrad.ops import activations, matmul, reductions
from minigrad.ops import shape as shape_ops
from minigrad.ops.checks import tensor_arguments

__all__ = ["mm", "matmul", "sum", "mean", "max", "exp", "log", "tanh", "sigmoid", "relu",
           "reshape", "transpose", "unsqueeze", "squeeze"]

_one = ("input",)
mm = tensor_arguments("mm", "input", "mat2")(matmul.mm)
matmul = tensor_arguments("matmul", "input", "other")(matmul.matmul)
exp = tensor_arguments("exp", *_one)(activations.exp)
log = tensor_arguments("log", *_one)(activations.log)
tanh = tensor_arguments("tanh", *_one)(activations.tanh)
sigmoid = tensor_arguments("sigmoid", *_one)(activations.sigmoid)
relu = tensor_arguments("relu", *_one)(activations.relu)
transpose = tensor_arguments("transpose", *_one)(shape_ops.transpose)
unsqueeze = tensor_arguments("unsqueeze", *_one)(shape_ops.unsqueeze)
squeeze = tensor_arguments("squeeze", *_one)(shape_ops.squeeze)


@tensor_arguments("sum", *_one)
def sum(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return reductions.sum_(t, dim, keepdim)


@tensor_arguments("mean", *_one)
def mean(t, dim=None, keepdim=False):
    return reductions.mean(t, dim, keepdim)


@tensor_arguments("max", *_one)
def max(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return reductions.max_(t, dim, keepdim)


@tensor_arguments("reshape", *_one)
def reshape(t, shape):
    return shape_ops.reshape(t, shape)
