"""minigrad: a small autograd engine and the helpers of the course that teaches it.

The scalar engine ``Value`` comes first (chapters 01-04), then ``Tensor`` with
PyTorch's autograd semantics (chapters 05-13). Every result a chapter computes is
checked against PyTorch with :func:`check`.

The course's helpers (``check``, ``show_source``, the drawings and widgets) live in
:mod:`minigrad.course`, which uses the engines and is never imported by them. The names
below in ``_COURSE`` are reachable as ``minigrad.check`` and so on, loaded on first use.
"""

import importlib
from math import e, inf, nan, pi  # torch's constants: torch.nan, torch.inf, ...

# --- scalar engine (chapters 01-04) ---
# isort: split
from minigrad.value import Value, backward_order

# --- tensor engine (chapters 05-13) ---
# isort: off
from minigrad import autograd, cuda, func, linalg, nn, optim, utils
from minigrad.creation import (
    empty,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    ones_like,
    rand_like,
    randn_like,
    zeros_like,
)
from minigrad.devices import device
from minigrad.generators import Generator, multinomial, randint
from minigrad.ops.histogram import histogram
from minigrad.ops.logical import all, any  # noqa: A004 - torch's names
from minigrad.dtypes import Size, bool_, dtype, float32, float64, int32, int64
from minigrad.factories import (
    DoubleTensor,
    FloatTensor,
    LongTensor,
    arange,
    manual_seed,
    ones,
    rand,
    randn,
    tensor,
    zeros,
)
from minigrad.autograd.function import Function
from minigrad.func import vmap
from minigrad.ops.diagonal import diag
from minigrad.autograd.gradcheck import gradcheck
from minigrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.ops.toplevel import (
    abs,  # noqa: A004 - torch's name
    add,
    argmax,
    argmin,
    clone,
    div,
    flatten,
    mul,
    neg,
    numel,
    pow,  # noqa: A004 - torch's name
    reciprocal,
    std,
    sub,
    t,
    unbind,
    var,
    absolute,
    acos,
    addmm,
    allclose,
    amax,
    amin,
    arccos,
    arcsin,
    arctan,
    arctan2,
    argsort,
    asin,
    atan,
    atan2,
    bmm,
    cat,
    ceil,
    chunk,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    concat,
    concatenate,
    cos,
    cosh,
    count_nonzero,
    cumprod,
    cumsum,
    diff,
    dot,
    equal,
    erf,
    exp,
    exp2,
    expm1,
    flip,
    floor,
    floor_divide,
    frac,
    gather,
    index_select,
    isclose,
    isinf,
    isnan,
    lerp,
    log,
    log1p,
    log2,
    log10,
    log_softmax,
    logaddexp,
    logical_not,
    logsumexp,
    masked_fill,
    matmul,
    max,  # noqa: A004 - torch's name
    maximum,
    mean,
    min,  # noqa: A004 - torch's name
    minimum,
    mm,
    moveaxis,
    movedim,
    nan_to_num,
    narrow,
    norm,
    outer,
    permute,
    prod,
    relu,
    relu_,
    reshape,
    roll,
    round,  # noqa: A004 - torch's name
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    softmax,
    sort,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    sum,  # noqa: A004 - torch's name
    tan,
    tanh,
    topk,
    trace,
    transpose,
    tril,
    triu,
    trunc,
    unsqueeze,
    where,
)
from minigrad.ops.reductions import return_types
from minigrad.printing import set_printoptions
from minigrad.tensors import Tensor
# isort: on

_COURSE = {"check": "compare", "check_all": "compare", "show_source": "source",
           "draw_graph": "graph", "BackwardStepper": "widgets.stepper",
           "stepper_widget": "widgets.stepper"}


def __getattr__(name):
    """``from minigrad import check`` keeps working: the helper is loaded from minigrad.course."""
    if name in _COURSE:
        return getattr(importlib.import_module(f"minigrad.course.{_COURSE[name]}"), name)
    raise AttributeError(f"module 'minigrad' has no attribute {name!r}")


float = float32  # noqa: A001 - torch's alias
double = float64
long = int64
int = int32  # noqa: A001 - torch's alias
bool = bool_  # noqa: A001 - torch's name

__all__ = ["check", "check_all", "show_source",
           "Value", "backward_order", "draw_graph", "BackwardStepper", "stepper_widget",
           "Tensor", "Function", "Size", "dtype", "float32", "float64", "int64", "int32", "bool_",
           "float", "double", "long", "int", "bool",
           "tensor", "zeros", "ones", "zeros_like", "ones_like", "randn", "rand", "arange",
           "manual_seed", "FloatTensor", "DoubleTensor", "LongTensor",
           "no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled",
           "is_inference_mode_enabled",
           "mm", "matmul", "sum", "mean", "max", "exp", "log", "tanh", "sigmoid", "relu",
           "reshape", "transpose", "unsqueeze", "squeeze", "return_types",
           "gradcheck", "autograd", "func", "nn", "optim", "utils", "vmap", "diag",
           "eye", "linspace", "full", "full_like", "empty", "empty_like", "rand_like",
           "randn_like", "Generator", "randint", "multinomial", "all", "any", "histogram",
           "device",
           "linalg", "cuda",
           "sin", "cos", "abs", "absolute", "sqrt", "sign", "clamp", "clip", "clamp_min",
           "clamp_max", "where", "stack", "cat", "concat", "concatenate", "permute", "movedim",
           "moveaxis", "dot", "norm", "isclose", "allclose", "equal",
           "softmax", "log_softmax", "min", "floor_divide", "round", "relu_", "floor",
           "ceil", "trunc", "frac", "set_printoptions", "nan", "inf", "pi", "e",
           # torch's everyday ops of ops/special.py, binary.py, maxima.py, ...
           "square", "rsqrt", "log1p", "expm1", "log2", "log10", "exp2", "erf", "tan", "atan",
           "arctan", "asin", "arcsin", "acos", "arccos", "sinh", "cosh", "maximum",
           "minimum", "atan2", "arctan2", "logaddexp", "lerp", "amax", "amin",
           "logsumexp", "flip", "roll", "narrow", "split", "chunk", "tril", "triu",
           "trace", "gather", "index_select", "masked_fill", "bmm", "addmm", "outer",
           "cumsum", "cumprod", "prod", "diff", "isnan", "isinf", "logical_not",
           "count_nonzero", "nan_to_num", "sort", "argsort", "topk",
           # tensor methods torch also offers as functions (ops/toplevel.py)
           "add", "sub", "mul", "div", "pow", "neg", "reciprocal", "flatten", "std", "var",
           "t", "clone", "argmax", "argmin", "unbind", "numel"]
