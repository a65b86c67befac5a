"""A differential fuzzer: small programs run in torch and in minigrad (the issue "edges").

hypothesis writes a program as Python source with ``torch`` as its only library name:
one to three leaves (float64, float32, int64 or bool; shapes 0-d, empty, vectors,
matrices, broadcastable ones; values including 0, inf and NaN; some requiring grad),
then a few steps, each an op on earlier results: arithmetic with tensors, Python
numbers and ``np.float64`` (broadcasting, mixed dtypes), elementwise functions,
reductions, views (slices, ``view``, ``t()``, ``unsqueeze``...), indexing, dtype
conversions, comparisons, ``detach``/``clone``, the top-level functions, ``sin``,
``cos``, ``abs``, ``sqrt``, ``sign``, the clamps, ``where``, ``stack``, ``cat``, ``norm``,
``movedim``, ``var``, the softmaxes, ``dot``, ``F``'s ``linear``, ``relu``, ``mse_loss``
and ``cross_entropy``, the custom ``autograd.Function``s of ``PRELUDE`` (save_for_backward,
needs_input_grad, setup_context with two outputs, set_materialize_grads(False),
once_differentiable), in-place ops on a tensor or
on a view of it, steps under ``no_grad()``, ``enable_grad()``, ``set_grad_enabled``
or ``inference_mode(False)``; finally ``backward()`` of the last result's sum if it requires
grad. :func:`tests.edge_parity.check_snippet` runs the text twice, with ``torch``
bound to torch and then to minigrad, and compares every result and every leaf's
gradient (values, dtypes, shapes), or the exception types when torch raises.

The CI profile runs 1000 derandomized programs (about 15 s on one core);
``make fuzz`` runs the long profile. A failing program prints as a snippet: paste it
into ``tests/test_edges.py`` as a named regression case.
"""

import math
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.edge_parity import check_snippet

SHAPES = [(), (0,), (1,), (3,), (2, 3), (1, 3), (3, 1), (2, 1, 3)]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 2.5, 3.0, math.inf, -math.inf, math.nan]
INTS = [0, 1, -1, 2, 3]
DTYPES = ["float64", "float64", "float32", "int64", "bool"]

UNARY = ["{a}.exp()", "{a}.log()", "{a}.tanh()", "{a}.sigmoid()", "{a}.relu()", "-{a}",
         "{a}.sum()", "{a}.sum(0)", "{a}.sum(-1, keepdim=True)", "{a}.mean()",
         "{a}.mean(0)", "{a}.max()", "{a}.max(0)[0]", "{a}.max(-1)[1]",
         "{a}.reshape(-1)", "{a}.view(-1)", "{a}.t()", "{a}.unsqueeze(0)", "{a}.squeeze()",
         "{a}.squeeze(0)", "{a}.transpose(0, -1)", "{a}.clone()", "{a}.detach()",
         "{a}.float()", "{a}.double()", "{a}.long()", "{a}[0]", "{a}[0:2]", "{a}[..., -1]",
         "{a}[[0, 0]]", "{a}[{a} > 0]", "{a} ** 2", "{a} ** 0.5", "{a} ** 0", "{a} ** -1",
         "2.0 ** {a}", "0.0 ** {a}", "{a} * 2.5", "{a} / 2", "1 - {a}", "3 / {a}",
         "{a} + np.float64(1.5)", "{a} * True", "{a}.reciprocal()", "{a}.flatten()",
         "{a} ** -0.5", "{a} ** 1.5", "{a} ** -1.5", "{a} ** -2", "{a}.pow(3)", "{a}.neg()",
         "{a}.mean(-1, keepdim=True)", "{a}.max(-1, keepdim=True)[0]", "{a}.sum((0, -1))",
         "{a}.squeeze(-1)", "{a}.unsqueeze(-1)", "{a}.T", "{a}.to(torch.float64)",
         "{a}.to(torch.float32)", "{a}.all()", "{a}.any()", "{a}.argmax()", "{a}.argmax(0)",
         "{a} > 0", "{a} <= 1", "{a} == 1", "{a} != None", "torch.exp({a})", "torch.log({a})",
         "torch.tanh({a})", "torch.sigmoid({a})", "torch.relu({a})", "torch.sum({a}, 0)",
         "torch.mean({a})", "torch.max({a}, 0)[0]", "torch.reshape({a}, (-1,))",
         "torch.transpose({a}, 0, -1)", "torch.unsqueeze({a}, 0)", "torch.squeeze({a})",
         "torch.zeros_like({a})", "torch.ones_like({a})", "{a}.reshape(1, -1)",
         "{a}[::2]", "{a}[None]", "{a}[-1]", "torch.nn.functional.relu({a})",
         "{a}.sin()", "{a}.cos()", "{a}.abs()", "{a}.sqrt()", "{a}.sign()", "torch.sin({a})",
         "torch.abs({a})", "torch.sqrt({a})", "{a}.clamp(-1, 2)", "{a}.clamp(min=0.5)",
         "{a}.clamp(max=0)", "torch.clamp({a}, -0.5, 0.5)", "{a}.clamp_min(1)",
         "{a}.clamp_max(0.5)", "{a}.norm()", "torch.norm({a})", "{a}.norm(dim=0)",
         "{a}.norm(p=1)", "{a}.movedim(0, -1)", "torch.movedim({a}, -1, 0)", "{a}.var()",
         "{a}.var(0)", "{a}.var(-1, keepdim=True)", "{a}.var(correction=0)",
         "{a}.softmax(-1)", "{a}.softmax(0)", "{a}.log_softmax(-1)",
         "torch.softmax({a}, 0)", "torch.log_softmax({a}, -1)",
         "torch.nn.functional.softmax({a}, dim=-1)",
         "torch.nn.functional.log_softmax({a}, dim=0)", "torch.where({a} > 0, {a}, 0.0)",
         "torch.stack([{a}, {a}])", "torch.cat([{a}, {a}], -1)", "torch.dot({a}, {a})",
         "Cube.apply({a})", "Halves.apply({a})[0]", "Halves.apply({a})[1]",
         "NoMaterialize.apply({a})[0]", "NoMaterialize.apply({a})[1]",
         "sum(NoMaterialize.apply({a}))", "Once.apply({a})"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "{a} ** {b}", "{a} @ {b}",
          "torch.mm({a}, {b})", "torch.max({a} * {b})", "{a}.add({b}, alpha=2)",
          "{a}.sub({b}, alpha=0.5)", "{a}.mul({b})", "{a}.div({b})", "{a}.pow({b})",
          "{a}.matmul({b})", "torch.matmul({a}, {b})", "{a} < {b}", "{a} == {b}",
          "torch.nn.functional.mse_loss({a}, {b})",
          "torch.nn.functional.mse_loss({a}, {b}, reduction='sum')",
          "torch.nn.functional.linear({a}, {b})",
          "torch.nn.functional.cross_entropy({a}, {b}.long())",
          "torch.where({a} > {b}, {a}, {b})", "torch.where({b} > 0, {a}, 1.0)",
          "torch.stack([{a}, {b}])", "torch.stack([{a}, {b}], -1)", "torch.cat([{a}, {b}])",
          "torch.cat([{a}, {b}], -1)", "torch.dot({a}, {b})", "{a}.dot({b})",
          "torch.clamp({a}, min={b})", "{a}.clamp(max={b})", "MulFn.apply({a}, {b})",
          "Halves.apply({a} * {b})[1]"]
INPLACE = ["{a}.add_({b})", "{a}.mul_({b})", "{a}.sub_(1.5)", "{a}.div_({b})",
           "{a}.mul_(2)", "{a}.zero_()", "{a}[0:1].mul_(0)", "{a}[0].add_(1)",
           "{a}.view(-1)[0:1].add_({b}.sum())", "{a}.t().mul_(3)", "{a}.detach().mul_(2)",
           "{a}.add_(1, alpha=2)", "{a}.fill_(0.5)", "{a}.sub_({b}, alpha=2)", "{a}.div_(2)",
           "{a}[-1:].add_({b}.sum())", "{a}.unsqueeze(0).mul_({b})"]
MODES = ["torch.no_grad()", "torch.enable_grad()", "torch.inference_mode(False)",
         "torch.set_grad_enabled(False)"]


def _literal(value):
    if isinstance(value, float) and not math.isfinite(value):
        return f"float('{value}')"
    return repr(value)


def _nested(values, shape):
    """Source text of a nested list of ``shape`` holding ``values``."""
    if not shape:
        return _literal(values[0])
    if shape[0] == 0:
        return "[]"
    step = len(values) // shape[0]
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


@st.composite
def leaf(draw, name):
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from(DTYPES))
    size = math.prod(shape)
    pool = FLOATS if dtype.startswith("float") else INTS if dtype == "int64" else [True, False]
    values = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))
    grad = dtype.startswith("float") and draw(st.booleans())
    data = _nested(values, shape) if size else ("[]" if len(shape) == 1 else "[[]]")
    if size == 0 and not shape == (0,):
        data = f"torch.zeros({shape})"
        return f"{name} = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad={grad})"
    return f"{name} = torch.tensor({data}, dtype=torch.{dtype}, requires_grad={grad})"


@st.composite
def program(draw):
    """The source of one program; its last line collects the results into ``out``."""
    n_leaves = draw(st.integers(1, 3))
    lines = [draw(leaf(f"x{i}")) for i in range(n_leaves)]
    names = [f"x{i}" for i in range(n_leaves)]
    for k in range(draw(st.integers(1, 6))):
        a = draw(st.sampled_from(names))
        b = draw(st.sampled_from(names))
        kind = draw(st.sampled_from(["unary", "unary", "binary", "binary", "inplace"]))
        if kind == "inplace":
            line = draw(st.sampled_from(INPLACE)).format(a=a, b=b)
        else:
            template = draw(st.sampled_from(UNARY if kind == "unary" else BINARY))
            line = f"v{k} = " + template.format(a=a, b=b)
            names.append(f"v{k}")
        if draw(st.integers(0, 5)) == 0:
            line = f"with {draw(st.sampled_from(MODES))}:\n    " + line
        lines.append(line)
    last = names[-1]
    lines.append(f"if {last}.requires_grad:\n    {last}.sum().backward()")
    grads = ", ".join(f"x{i}.grad" for i in range(n_leaves))
    lines.append(f"out = [{', '.join(names)}, {grads}]")
    return "\n".join(lines)


# custom Functions the programs may call: the same text defines them with torch and with
# minigrad bound to ``torch`` (chapter 13's forms: save_for_backward, needs_input_grad,
# the torch-2 setup_context form with two outputs, set_materialize_grads(False) and
# once_differentiable)
PRELUDE = '''
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2


class MulFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b if ctx.needs_input_grad[0] else None
        gb = g * a if ctx.needs_input_grad[1] else None
        return ga, gb


class Halves(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * 0.5, x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 0.5 + gb * 2


class NoMaterialize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, ga, gb):
        if ga is None and gb is None:
            return None
        if ga is None:
            return gb * 3
        if gb is None:
            return ga * 2
        return ga * 2 + gb * 3


class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.exp()
'''

EXAMPLES = max(settings.default.max_examples, 1000)

# torch's errors that minigrad does not raise, and minigrad's refusals, on purpose: rows
# of the README's table
# "Where minigrad differs from torch", each pinned in tests/test_differences.py.
KNOWN = ("A view was created in no_grad mode and its base or another view of its base has "
         "been modified inplace",
         # and minigrad's own refusals of what torch does: class indices only
         "minigrad's cross_entropy takes (N, C) logits")


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_program_matches_torch(source):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            check_snippet(PRELUDE + source, rtol=1e-5, atol=1e-6)
        except AssertionError as failure:
            if not any(phrase in str(failure) for phrase in KNOWN):
                raise
