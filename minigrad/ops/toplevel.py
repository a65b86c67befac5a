"""The op functions torch also offers at top level: ``minigrad.mm(a, b)``,
``minigrad.exp(t)``, ``minigrad.sum(t, dim)``, ``minigrad.stack([a, b])``,
``minigrad.where(c, a, b)`` (chapters 05-07)."""

from minigrad.ops import (
    activations,
    binary,
    clamping,
    comparison,
    cumulative,
    gathering,
    joining,
    matmul,
    maxima,
    movement,
    norms,
    pointwise,
    predicates,
    products,
    reductions,
    reorder,
    rounding,
    selection,
    sorting,
    special,
    triangular,
    trig,
    trigonometric,
)
from minigrad.ops import shape as shape_ops
from minigrad.ops import softmax as softmaxes
from minigrad.ops.checks import tensor_arguments

# torch's everyday ops added with ops/special.py and its siblings; minigrad/__init__.py
# exports each of them
NEW_OPS = ["square", "rsqrt", "log1p", "expm1", "log2", "log10", "exp2", "erf", "tan", "atan",
           "arctan", "asin", "arcsin", "acos", "arccos", "sinh", "cosh", "maximum", "minimum",
           "atan2", "arctan2", "logaddexp", "lerp", "amax", "amin", "logsumexp", "flip", "roll",
           "narrow", "split", "chunk", "tril", "triu", "trace", "gather", "index_select",
           "masked_fill", "bmm", "addmm", "outer", "cumsum", "cumprod", "prod", "diff",
           "isnan", "isinf", "logical_not", "count_nonzero", "nan_to_num", "sort", "argsort",
           "topk"]
__all__ = ["mm", "matmul", "sum", "mean", "max", "exp", "log", "tanh", "sigmoid", "relu",
           "reshape", "transpose", "unsqueeze", "squeeze",
           "sin", "cos", "abs", "absolute", "sqrt", "sign", "clamp", "clip", "clamp_min",
           "clamp_max", "where", "stack", "cat", "concat", "concatenate", "permute", "movedim",
           "moveaxis", "dot", "norm", "isclose", "allclose", "equal",
           "softmax", "log_softmax", "min", "floor_divide", "round", "relu_",
           "floor", "ceil", "trunc", "frac"] + NEW_OPS


_one = ("input",)
mm = tensor_arguments("mm", "input", "mat2")(matmul.mm)
matmul = tensor_arguments("matmul", "input", "other")(matmul.matmul)
exp = tensor_arguments("exp", *_one)(activations.exp)
log = tensor_arguments("log", *_one)(activations.log)
tanh = tensor_arguments("tanh", *_one)(activations.tanh)
sigmoid = tensor_arguments("sigmoid", *_one)(activations.sigmoid)
relu = tensor_arguments("relu", *_one)(activations.relu)
round = tensor_arguments("round", *_one)(rounding.round)  # noqa: A001 - torch's name
floor = tensor_arguments("floor", *_one)(rounding.floor)
ceil = tensor_arguments("ceil", *_one)(rounding.ceil)
trunc = tensor_arguments("trunc", *_one)(rounding.trunc)
frac = tensor_arguments("frac", *_one)(rounding.frac)
transpose = tensor_arguments("transpose", *_one)(shape_ops.transpose)


@tensor_arguments("floor_divide", *_one)
def floor_divide(input, other):  # noqa: A002 - torch's name
    return input // other


@tensor_arguments("relu_", *_one)
def relu_(input):  # noqa: A002 - torch's name
    return input.relu_()


unsqueeze = tensor_arguments("unsqueeze", *_one)(shape_ops.unsqueeze)
squeeze = tensor_arguments("squeeze", *_one)(shape_ops.squeeze)


@tensor_arguments("sum", *_one)
def sum(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return reductions.sum(t, dim, keepdim)


@tensor_arguments("mean", *_one)
def mean(t, dim=None, keepdim=False):
    return reductions.mean(t, dim, keepdim)


@tensor_arguments("max", *_one)
def max(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return reductions.max(t, dim, keepdim)


@tensor_arguments("min", *_one)
def min(t, dim=None, keepdim=False):  # noqa: A001 - torch's name
    from minigrad.ops.extrema import min as min_

    return min_(t, dim, keepdim)


@tensor_arguments("reshape", *_one)
def reshape(t, shape):
    return shape_ops.reshape(t, shape)


# --- torch's everyday names (new op modules: trig, pointwise, clamping, selection, ...) ---
sin = tensor_arguments("sin", *_one)(trig.sin)
cos = tensor_arguments("cos", *_one)(trig.cos)
abs = tensor_arguments("abs", *_one)(pointwise.abs)  # noqa: A001 - torch's name
absolute = tensor_arguments("absolute", *_one)(pointwise.abs)
sqrt = tensor_arguments("sqrt", *_one)(pointwise.sqrt)
sign = tensor_arguments("sign", *_one)(pointwise.sign)
clamp = tensor_arguments("clamp", *_one)(clamping.clamp)
clip = tensor_arguments("clip", *_one)(clamping.clamp)
clamp_min = clamping.clamp_min
clamp_max = clamping.clamp_max
where = tensor_arguments("where", "condition")(selection.where)
permute = tensor_arguments("permute", *_one)(movement.permute)
stack = joining.stack
cat = joining.cat
concat = joining.concat
concatenate = joining.concatenate
movedim = movement.movedim
moveaxis = movement.moveaxis
dot = tensor_arguments("dot", "input", "tensor")(norms.dot)
norm = norms.norm
isclose = comparison.isclose
allclose = comparison.allclose
equal = comparison.equal
softmax = softmaxes.softmax
log_softmax = softmaxes.log_softmax


# --- more of torch's everyday ops (special, trigonometric, binary, maxima, ...) ---
_two = ("input", "other")
square = tensor_arguments("square", *_one)(special.square)
rsqrt = tensor_arguments("rsqrt", *_one)(special.rsqrt)
log1p = tensor_arguments("log1p", *_one)(special.log1p)
expm1 = tensor_arguments("expm1", *_one)(special.expm1)
log2 = tensor_arguments("log2", *_one)(special.log2)
log10 = tensor_arguments("log10", *_one)(special.log10)
exp2 = tensor_arguments("exp2", *_one)(special.exp2)
erf = tensor_arguments("erf", *_one)(special.erf)
tan = tensor_arguments("tan", *_one)(trigonometric.tan)
atan = arctan = tensor_arguments("atan", *_one)(trigonometric.atan)
asin = arcsin = tensor_arguments("asin", *_one)(trigonometric.asin)
acos = arccos = tensor_arguments("acos", *_one)(trigonometric.acos)
sinh = tensor_arguments("sinh", *_one)(trigonometric.sinh)
cosh = tensor_arguments("cosh", *_one)(trigonometric.cosh)
maximum = tensor_arguments("maximum", *_two)(binary.maximum)
minimum = tensor_arguments("minimum", *_two)(binary.minimum)
atan2 = arctan2 = tensor_arguments("atan2", *_two)(binary.atan2)
logaddexp = tensor_arguments("logaddexp", *_two)(binary.logaddexp)
lerp = tensor_arguments("lerp", "input", "end")(binary.lerp)
amax = tensor_arguments("amax", *_one)(maxima.amax)
amin = tensor_arguments("amin", *_one)(maxima.amin)
logsumexp = tensor_arguments("logsumexp", *_one)(maxima.logsumexp)
flip = tensor_arguments("flip", *_one)(reorder.flip)
roll = tensor_arguments("roll", *_one)(reorder.roll)
narrow = tensor_arguments("narrow", *_one)(reorder.narrow)
split = tensor_arguments("split", "tensor")(reorder.split)
chunk = tensor_arguments("chunk", *_one)(reorder.chunk)
tril = tensor_arguments("tril", *_one)(triangular.tril)
triu = tensor_arguments("triu", *_one)(triangular.triu)
trace = tensor_arguments("trace", *_one)(triangular.trace)
bmm = tensor_arguments("bmm", "input", "mat2")(products.bmm)
addmm = tensor_arguments("addmm", "input", "mat1", "mat2")(products.addmm)
outer = tensor_arguments("outer", "input", "vec2")(products.outer)
cumsum = tensor_arguments("cumsum", *_one)(cumulative.cumsum)
cumprod = tensor_arguments("cumprod", *_one)(cumulative.cumprod)
prod = tensor_arguments("prod", *_one)(cumulative.prod)
diff = tensor_arguments("diff", *_one)(cumulative.diff)
isnan = tensor_arguments("isnan", *_one)(predicates.isnan)
isinf = tensor_arguments("isinf", *_one)(predicates.isinf)
logical_not = tensor_arguments("logical_not", *_one)(predicates.logical_not)
count_nonzero = tensor_arguments("count_nonzero", *_one)(predicates.count_nonzero)
nan_to_num = tensor_arguments("nan_to_num", *_one)(predicates.nan_to_num)
sort = tensor_arguments("sort", *_one)(sorting.sort)
argsort = tensor_arguments("argsort", *_one)(sorting.argsort)
topk = tensor_arguments("topk", *_one)(sorting.topk)
gather = tensor_arguments("gather", *_one)(gathering.gather)
index_select = tensor_arguments("index_select", *_one)(gathering.index_select)


@tensor_arguments("masked_fill", "input", "mask")
def masked_fill(input, mask, value):  # noqa: A002 - torch's name
    return gathering.masked_fill(input, mask, value)


# --- tensor methods that torch also offers as functions: torch.add(a, b, alpha=2),
# torch.flatten(x, 1), torch.argmax(logits, dim=1), torch.pow(2, x) ---
def _method(name):
    """``minigrad.<name>(input, ...)``: ``input.<name>(...)``, ``input`` checked as torch's."""

    def function(input, *args, **kwargs):  # noqa: A002 - torch's argument name
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``, as ``torch.{name}``."
    return tensor_arguments(name, *_one)(function)


def _arithmetic(name):
    """``minigrad.<name>(input, other)``: torch also takes a Python number as the input
    (``torch.sub(1, x)``: the number as a 0-d tensor, so the node is ``SubBackward0``, not
    ``1 - x``'s ``RsubBackward1``; two numbers give a 0-d tensor)."""

    def function(input, other, *args, **kwargs):  # noqa: A002 - torch's argument name
        if not hasattr(input, "grad_fn"):
            from minigrad.factories import tensor

            input = tensor(input)  # noqa: A001
        return getattr(input, name)(other, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(other)``, as ``torch.{name}``."
    return function


def pow(input, exponent):  # noqa: A001, A002 - torch's names
    """``input ** exponent``, as ``torch.pow``; a number as the base is ``PowBackward2``'s
    ``number ** tensor``, two numbers torch's TypeError."""
    if hasattr(input, "grad_fn"):
        return input.pow(exponent)
    if hasattr(exponent, "grad_fn"):
        return exponent.__rpow__(input)
    raise TypeError(f"pow() received an invalid combination of arguments - got "
                    f"({type(input).__name__}, {type(exponent).__name__}). Fix: make one of "
                    "them a tensor, as minigrad.pow(minigrad.tensor(2.0), 3).")


add, sub, mul, div = map(_arithmetic, ["add", "sub", "mul", "div"])
neg, reciprocal, flatten, std, var, t, clone, argmax, argmin, unbind, numel = map(
    _method, ["neg", "reciprocal", "flatten", "std", "var", "t", "clone", "argmax", "argmin",
              "unbind", "numel"])
__all__ += ["add", "sub", "mul", "div", "pow", "neg", "reciprocal", "flatten", "std", "var", "t",
            "clone", "argmax", "argmin", "unbind", "numel"]
