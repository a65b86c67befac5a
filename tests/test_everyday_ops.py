"""torch's everyday ops added in ops/special.py, trigonometric.py, binary.py and
maxima.py, against torch: the function and the method, values and dtypes for float, int
and bool inputs, special values, node names, torch's refusals (type, key phrase, then a
Fix), ``vmap``, and two small programs run with both libraries. Gradients, double
backward and forward mode are tests/op_cases.py's rows."""

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close, helper_test_op

LIBS = {"minigrad": minigrad, "torch": torch}
UNARY = ["square", "rsqrt", "log1p", "expm1", "log2", "log10", "exp2", "erf", "tan", "atan", "asin",
         "acos", "sinh", "cosh", "arctan", "arcsin", "arccos"]
BINARY = ["maximum", "minimum", "atan2", "arctan2", "logaddexp"]
SPECIAL = [-2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 3.0, float("inf"), -float("inf"),
           float("nan")]


def _outcome(f):
    try:
        return f()
    except Exception as error:  # noqa: BLE001 - compared by the caller
        return (type(error).__name__, str(error))


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple), f"minigrad gave {ours!r}, torch raised {theirs}"
        assert ours[0] == theirs[0]
        key = theirs[1].split(". ")[0].split(" (")[0]
        assert key in ours[1] and "Fix: " in ours[1], (ours[1], theirs[1])
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape
    rtol = 2e-6 if a.dtype == np.float32 else 1e-12  # float32 kernels: the last bit may differ
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-30, equal_nan=True)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_unary_values_and_dtypes(op, dtype):
    data = np.array(SPECIAL) if dtype.startswith("float") else np.array([-3, 0, 1, 2])
    out = {}
    for name, lib in LIBS.items():
        x = lib.tensor(data.astype(dtype))
        function = _outcome(lambda x=x, lib=lib: getattr(lib, op)(x))
        method = _outcome(lambda x=x: getattr(x, op)())
        _same(method, function) if not isinstance(function, tuple) else None
        out[name] = function
    if dtype == "float32":  # float32 kernels may differ in the last bit
        a, b = out["minigrad"].numpy(), out["torch"].numpy()
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-30, equal_nan=True)
        assert str(out["minigrad"].dtype) == "minigrad.float32"
        return
    _same(out["minigrad"], out["torch"])


@pytest.mark.parametrize("op", UNARY)
def test_unary_gradient_and_node_name(op):
    low, high = (0.2, 0.9) if op in ("rsqrt", "log2", "log10", "asin", "acos", "arcsin", "arccos") \
        else (-0.9, 0.9)
    helper_test_op([(3, 4)], lambda a: getattr(a, op)(), low=low, high=high)
    helper_test_op([(5,)], lambda a: getattr(torch, op)(a), lambda a: getattr(minigrad, op)(a),
                   low=low, high=high)


@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcast_gradient_and_node_name(op):
    helper_test_op([(3, 4), (4,)], lambda a, b: getattr(a, op)(b))
    helper_test_op([(2, 1, 3), (4, 1)], lambda a, b: getattr(torch, op)(a, b),
                   lambda a, b: getattr(minigrad, op)(a, b))


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_ties_and_nans_share_the_gradient_as_torch(op):
    grads = {}
    for name, lib in LIBS.items():
        a = lib.tensor([1.0, 2.0, float("nan"), 3.0, 0.5], dtype=lib.float64,
                       requires_grad=True)
        b = lib.tensor([1.0, 5.0, 1.0, float("nan"), 0.5], dtype=lib.float64,
                       requires_grad=True)
        y = getattr(lib, op)(a, b)
        y.backward(lib.arange(1, 6, dtype=lib.float64))
        grads[name] = (y, a.grad, b.grad)
    for ours, theirs in zip(grads["minigrad"], grads["torch"], strict=True):
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize("op", BINARY + ["lerp"])
@pytest.mark.parametrize("dtypes", [("int64", "float32"), ("int64", "int64"),
                                    ("float32", "float64"), ("bool", "int64")])
def test_binary_promotion_and_refusals(op, dtypes):
    out = {}
    for name, lib in LIBS.items():
        a = lib.tensor(np.array([1, 0, 3]).astype(dtypes[0]))
        b = lib.tensor(np.array([2, 0, 1]).astype(dtypes[1]))
        args = (a, b, 0.25) if op == "lerp" else (a, b)
        out[name] = _outcome(lambda lib=lib, args=args: getattr(lib, op)(*args))
    _same(out["minigrad"], out["torch"])


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.maximum(x, 2), lambda lib, x: x.maximum(2.0),
    lambda lib, x: lib.tan(3), lambda lib, x: lib.atan2(x, x[:2]),
    lambda lib, x: x.logaddexp(x.reshape(2, 3)), lambda lib, x: x.amax(1),
    lambda lib, x: x.reshape(3, 2)[:, :0].amin(1), lambda lib, x: x.logsumexp(),
    lambda lib, x: x.lerp(x.float(), 0.5), lambda lib, x: x.amax((0, -1)),
])
def test_misuse_is_refused_as_torch(call):
    out = {name: _outcome(lambda lib=lib: call(lib, lib.ones(6, dtype=lib.float64)))
           for name, lib in LIBS.items()}
    assert isinstance(out["torch"], tuple)
    assert out["minigrad"][0] == out["torch"][0], (out["minigrad"], out["torch"])
    if out["torch"][0] != "TypeError" or "must be Tensor" in out["torch"][1]:
        _same(out["minigrad"], out["torch"])


@pytest.mark.parametrize("dim", [0, 1, -1, (0, 1), ()])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["amax", "amin", "logsumexp"])
def test_reductions_dims(op, dim, keepdim):
    if op == "logsumexp" and dim == ():
        pytest.skip("torch's logsumexp(x, ()) fails in its own kernel (shape [] vs [1, 1])")
    helper_test_op([(3, 4)], lambda a: getattr(a, op)(dim, keepdim=keepdim))


def test_reductions_of_ints_and_infinities():
    for name_op in ["amax", "amin"]:
        out = {n: getattr(lib.tensor([[3, -1], [2, 7]]), name_op)(0) for n, lib in LIBS.items()}
        _same(out["minigrad"], out["torch"])
    out = {n: lib.tensor([[3, -1], [2, 7]]).logsumexp(1) for n, lib in LIBS.items()}
    assert_close(out["minigrad"], out["torch"], rtol=1e-6)
    assert str(out["minigrad"].dtype) == "minigrad.float32"
    rows = [[1000.0, 1000.0], [-float("inf"), -float("inf")], [float("inf"), 1.0]]
    out = {n: lib.tensor(rows, dtype=lib.float64).logsumexp(1) for n, lib in LIBS.items()}
    _same(out["minigrad"], out["torch"])


@pytest.mark.parametrize("op", UNARY[:13] + ["amax", "logsumexp"])
def test_under_vmap_as_torch(op):
    out = {}
    for name, lib in LIBS.items():
        xs = lib.tensor(np.linspace(0.1, 0.9, 12).reshape(4, 3), dtype=lib.float64)
        f = (lambda v, lib=lib: getattr(v, op)(0) * v) if op in ("amax", "logsumexp") else \
            (lambda v, lib=lib: getattr(lib, op)(v) * v)
        out[name] = lib.func.vmap(f)(xs)
    assert_close(out["minigrad"], out["torch"], rtol=1e-12, atol=0)


@pytest.mark.parametrize("op", BINARY + ["lerp"])
def test_binary_under_vmap_as_torch(op):
    out = {}
    for name, lib in LIBS.items():
        xs = lib.tensor(np.linspace(-0.9, 0.9, 12).reshape(4, 3), dtype=lib.float64)
        y = lib.tensor([0.5, -0.2, 0.1], dtype=lib.float64)
        f = (lambda v, y=y: v.lerp(y, 0.3)) if op == "lerp" else (
            lambda v, y=y: getattr(v, op)(y))
        out[name] = lib.func.vmap(f)(xs)
    assert_close(out["minigrad"], out["torch"], rtol=1e-12, atol=0)


def _masked_attention(lib, q, k, v):
    """Scores, a causal mask filled with -inf as a mask would be, a logsumexp-normalised
    softmax, then a soft-clipped loss."""
    scores = q @ k.transpose(0, 1) / 2.0
    causal = lib.tensor(np.triu(np.ones((4, 4), dtype=bool), 1))
    scores = lib.where(causal, lib.tensor(-float("inf"), dtype=lib.float64), scores)
    weights = (scores - scores.logsumexp(1, keepdim=True)).exp()
    out = weights @ v
    return (out.erf() + out.atan() * out.sinh()).square().sum() + scores.amax(1).sum()


def _huberish(lib, pred, target):
    """A smooth loss from maximum/logaddexp/log1p: a softplus hinge on |e|."""
    e = pred - target
    hinge = lib.logaddexp(e, -e) - lib.maximum(e, -e)
    return (hinge.log1p() + lib.minimum(e.square(), e.abs()).expm1()).mean()


@pytest.mark.parametrize("program", [_masked_attention, _huberish])
def test_small_programs_give_torchs_numbers(program):
    shapes = [(4, 3), (4, 3), (4, 2)] if program is _masked_attention else [(5, 3), (5, 3)]
    helper_test_op(shapes, lambda *xs: program(torch, *xs),
                   lambda *xs: program(minigrad, *xs), check_name=False)
