"""Gradients of gradients (create_graph=True) against torch's, op by op (chapter 15).

For every op minigrad has, the same function runs in both libraries on the same float64
inputs: first ``autograd.grad(f, xs, create_graph=True)``, then the gradient of
``sum(g * w)`` (a random weighting of the first gradients) w.r.t. every input, and the
Hessian-vector products are compared, to 1e-10. Hypothesis varies shapes and values of
the elementwise, broadcasting and matrix ops; ``gradgradcheck`` checks the same rules
against finite differences, and catches a deliberately wrong rule.
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad.double_backward import RULES
from minigrad.gradgradcheck import gradgradcheck

LIBS = {"minigrad": mg, "torch": torch}


def _labels(lib, values):
    return lib.tensor(values)


def _second(lib, fn, arrays, seed=0):
    """Gradient of <grad f, w> for a random w: a Hessian-vector product per input."""
    autograd = lib.autograd
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    firsts = autograd.grad(y, xs, create_graph=True)
    rng = np.random.default_rng(seed)
    total = 0
    for g in firsts:
        w = lib.tensor(rng.standard_normal(tuple(g.shape)))
        total = total + (g * w).sum()
    seconds = autograd.grad(total, xs, allow_unused=True)
    as_np = (lambda t: t.detach().numpy()) if lib is torch else (lambda t: t.data)
    return ([as_np(g) for g in firsts],
            [None if s is None else as_np(s) for s in seconds], firsts)


def _compare(fn, *arrays):
    (f_m, s_m, g_m), (f_t, s_t, g_t) = (_second(LIBS[k], fn, arrays) for k in LIBS)
    for a, b in zip(f_m, f_t, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(s_m, s_t, strict=True):
        a = np.zeros_like(b) if a is None and b is not None else a
        b = np.zeros_like(a) if b is None and a is not None else b
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
            assert a.dtype == b.dtype
    for a, b in zip(g_m, g_t, strict=True):  # a first gradient is a graph in both
        assert a.requires_grad == b.requires_grad


rng = np.random.default_rng(0)
A, C = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
B, V = rng.normal(size=(4, 2)), rng.normal(size=4)
P = np.abs(A) + 0.5
W = rng.normal(size=(2, 4))
F = torch.nn.functional


def _f(lib):
    return F if lib is torch else mg.nn.functional


CASES = {
    "add_sub_neg": (lambda lib, a, b: ((a + b) * (a - b) * -a).sum(), A, C),
    "add_broadcast": (lambda lib, a, v: ((a + v) ** 3).sum(), A, V),
    "mul": (lambda lib, a, b: (a * b * a).sum(), A, C),
    "mul_scalar": (lambda lib, a: (3.0 * a * a * 2).sum(), A),
    "div": (lambda lib, a, b: (a / (b * b + 1)).sum(), A, C),
    "rdiv_reciprocal": (lambda lib, a: (2.0 / a).sum(), P),
    "rsub": (lambda lib, a: ((1 - a) ** 3).sum(), A),
    "pow_int": (lambda lib, a: (a ** 3).sum(), A),
    "pow_float": (lambda lib, a: (a ** 2.5).sum(), P),
    "pow_half": (lambda lib, a: (a ** 0.5).sum(), P),
    "pow_zero": (lambda lib, a: (a ** 0 * a * a).sum(), A),
    "pow_tensor": (lambda lib, a, b: (a ** b).sum(), P, C),
    "rpow": (lambda lib, a: (2.0 ** a).sum(), A),
    "exp": (lambda lib, a: a.exp().sum(), A),
    "log": (lambda lib, a: a.log().sum(), P),
    "tanh": (lambda lib, a: a.tanh().sum(), A),
    "sigmoid": (lambda lib, a: a.sigmoid().sum(), A),
    "relu": (lambda lib, a: (a.relu() ** 2).sum(), A),
    "sum_all": (lambda lib, a: a.sum() ** 2, A),
    "sum_dim": (lambda lib, a: (a.sum(1) ** 2).sum(), A),
    "sum_keepdim": (lambda lib, a: (a.sum(1, keepdim=True) ** 2 * a).sum(), A),
    "mean_all": (lambda lib, a: a.mean() ** 3, A),
    "mean_dim": (lambda lib, a: (a.mean(0) ** 2).sum(), A),
    "max_all": (lambda lib, a: a.max() ** 2, A),
    "max_dim": (lambda lib, a: (a.max(1)[0] ** 2).sum(), A),
    "max_dim_keepdim": (lambda lib, a: (a.max(0, keepdim=True)[0] * a).sum(), A),
    "mm": (lambda lib, a, b: ((a @ b) ** 2).sum(), A, B),
    "mm_function": (lambda lib, a, b: (lib.mm(a, b).tanh()).sum(), A, B),
    "matvec": (lambda lib, a, v: ((a @ v) ** 2).sum(), A, V),
    "vecmat": (lambda lib, v, b: ((v @ b) ** 3).sum(), V, B),
    "dot": (lambda lib, u, v: (u @ v) ** 2, V, V[::-1].copy()),
    "batched_matmul": (lambda lib, a, b: (lib.matmul(a.reshape(3, 1, 4), b) ** 2).sum(),
                       A, B),
    "reshape": (lambda lib, a: (a.reshape(4, 3) ** 3).sum(), A),
    "transpose": (lambda lib, a: ((a.transpose(0, 1) @ a) ** 2).sum(), A),
    "t": (lambda lib, a: ((a.t() @ a).tanh()).sum(), A),
    "T": (lambda lib, a: ((a.T @ a) ** 2).sum(), A),
    "unsqueeze": (lambda lib, v: ((v.unsqueeze(0) * v.unsqueeze(1)) ** 2).sum(), V),
    "squeeze": (lambda lib, a: (a.reshape(3, 1, 4).squeeze() ** 3).sum(), A),
    "squeeze_dim": (lambda lib, a: (a.reshape(3, 1, 4).squeeze(1) ** 3).sum(), A),
    "index_list": (lambda lib, a: (a[[0, 2, 0]] ** 2).sum(), A),
    "index_slice": (lambda lib, a: (a[1, 1:3] ** 3).sum() + (a[:, 0] ** 3).sum(), A),
    "index_select": (lambda lib, a: (a[2] ** 3).sum(), A),
    "clone": (lambda lib, a: (a.clone() ** 3).sum(), A),
    "to_dtype": (lambda lib, a: (a.to(lib.float32).to(lib.float64) ** 3).sum(), A),
    "mse_mean": (lambda lib, a, b: _f(lib).mse_loss(a * a, b), A, C),
    "mse_sum": (lambda lib, a, b: _f(lib).mse_loss(a * a, b, reduction="sum"), A, C),
    "mse_none": (lambda lib, a, b: (_f(lib).mse_loss(a * a, b, reduction="none") ** 2).sum(),
                 A, C),
    "cross_entropy": (lambda lib, a: _f(lib).cross_entropy(a * a, _labels(lib, [0, 3, 1])), A),
    "cross_entropy_sum": (lambda lib, a: _f(lib).cross_entropy(
        a.tanh(), _labels(lib, [2, 2, 0]), reduction="sum"), A),
    "cross_entropy_none": (lambda lib, a: (_f(lib).cross_entropy(
        a, _labels(lib, [1, 0, 3]), reduction="none") ** 2).sum(), A),
    "linear": (lambda lib, x, w: (_f(lib).linear(x, w, w[:, 0]) ** 2).sum(), A, W),
    "linear_no_bias": (lambda lib, x, w: (_f(lib).linear(x, w).tanh()).sum(), A, W),
    "linear_3d": (lambda lib, x, w: (_f(lib).linear(x.reshape(3, 1, 4), w) ** 2).sum(), A, W),
    "mlp": (lambda lib, x, w: _f(lib).cross_entropy(
        _f(lib).linear(_f(lib).linear(x, w).relu(), w.t()), _labels(lib, [0, 1, 2])), A, W),
}


@pytest.mark.parametrize("name", CASES)
def test_second_derivatives_match_torch(name):
    fn, *arrays = CASES[name]
    _compare(fn, *arrays)


def test_every_op_has_a_rule_or_is_named_here():
    """Each op class in minigrad.ops has a second-order rule (or a base class with one)."""
    from minigrad import ops
    from minigrad.function import Function

    classes = set()
    for module in (ops.activations, ops.arithmetic, ops.indexing, ops.linear, ops.losses,
                   ops.matmul, ops.reductions, ops.shape):
        classes |= {c for c in vars(module).values()
                    if isinstance(c, type) and issubclass(c, Function) and c is not Function}
    missing = [c.__name__ for c in classes if not any(k in RULES for k in c.__mro__)]
    assert missing == []


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3),
       st.sampled_from(["mul", "div", "tanh_mm", "broadcast", "sigmoid_mean", "ce"]),
       st.integers(0, 2**16))
def test_second_derivatives_any_shape(n, m, k, kind, seed):
    r = np.random.default_rng(seed)
    a, b = r.normal(size=(n, m)), r.normal(size=(n, m))
    if kind == "mul":
        _compare(lambda lib, x, y: (x * y * x * y).sum(), a, b)
    elif kind == "div":
        _compare(lambda lib, x, y: (x / (y * y + 1)).sum(), a, b)
    elif kind == "tanh_mm":
        _compare(lambda lib, x, w: (x @ w).tanh().sum(), a, r.normal(size=(m, k)))
    elif kind == "broadcast":
        _compare(lambda lib, x, v: ((x * v + v) ** 3).mean(), a, r.normal(size=(m,)))
    elif kind == "sigmoid_mean":
        _compare(lambda lib, x: x.sigmoid().mean(1).exp().sum(), a)
    else:
        labels = [int(c) for c in r.integers(0, m, size=n)]
        _compare(lambda lib, x: _f(lib).cross_entropy(x * x, _labels(lib, labels)), a)


def test_third_derivative_of_x_to_the_fourth():
    results = {}
    for name, lib in LIBS.items():
        x = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        g1, = lib.autograd.grad(x ** 4, x, create_graph=True)
        g2, = lib.autograd.grad(g1, x, create_graph=True)
        g3, = lib.autograd.grad(g2, x)
        results[name] = [g1.item(), g2.item(), g3.item()]
    assert results["minigrad"] == results["torch"] == [32.0, 48.0, 48.0]


def test_backward_create_graph_leaves_a_differentiable_grad_and_warns_as_torch():
    """torch warns once per process (so only the first such call in a test run shows it)."""
    grads, messages = {}, {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            (x ** 3).sum().backward(create_graph=True)
        messages[name] = [str(w.message).split(" (Triggered")[0] for w in record]
        assert x.grad.requires_grad and x.grad.grad_fn is not None
        first = x.grad
        x.grad = None
        first.sum().backward()  # d/dx sum(3 x^2) = 6 x
        grads[name] = x.grad.tolist()
    assert grads["minigrad"] == grads["torch"] == [6.0, 12.0]
    assert len(messages["minigrad"]) == 1 and "reference cycle" in messages["minigrad"][0]
    assert messages["torch"] in ([], messages["minigrad"])


def test_a_gradient_that_requires_grad_is_differentiated_too():
    """The double-VJP trick: u -> J^T u is linear in u, so its gradient w.r.t. u is J v."""
    x0, v0 = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    out = {}
    for name, lib in LIBS.items():
        x = lib.tensor(x0, requires_grad=True)
        u = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        y = x.tanh() * x
        vjp, = lib.autograd.grad(y, x, grad_outputs=u, create_graph=True)
        jvp, = lib.autograd.grad(vjp, u, grad_outputs=lib.tensor(v0))
        out[name] = jvp.tolist()
    np.testing.assert_allclose(out["minigrad"], out["torch"], rtol=1e-12)


def test_retain_graph_defaults_to_create_graph():
    for lib in LIBS.values():
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = (x.exp() * x).sum()
        lib.autograd.grad(y, x, create_graph=True)
        lib.autograd.grad(y, x)  # the graph was kept
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            lib.autograd.grad(y, x)


def test_gradgradcheck_passes_right_rules_and_catches_a_wrong_one(monkeypatch):
    r = np.random.default_rng(3)
    a = mg.tensor(r.normal(size=(3, 4)), requires_grad=True)
    b = mg.tensor(r.normal(size=(4, 2)), requires_grad=True)
    assert gradgradcheck(lambda a, b: (a @ b).tanh(), [a, b])
    assert gradgradcheck(lambda a: mg.nn.functional.cross_entropy(a, mg.tensor([0, 1, 3])),
                         [a])
    at, bt = (torch.tensor(t.data, requires_grad=True) for t in (a, b))
    assert torch.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), [at, bt])

    from minigrad import double_backward
    from minigrad.ops import activations

    def wrong(ctx, g):  # the output's dependence on the input forgotten
        (out,) = double_backward.saved(ctx)
        return g * (1 - double_backward.const(out.data) ** 2)

    monkeypatch.setitem(RULES, activations.Tanh, wrong)
    assert not gradgradcheck(lambda a, b: (a @ b).tanh(), [a, b], raise_exception=False)
    with pytest.raises(mg.autograd.GradcheckError):
        gradgradcheck(lambda a, b: (a @ b).tanh(), [a, b])


def test_a_function_of_your_own_without_a_rule_builds_the_graph_from_its_backward():
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    x = mg.tensor([1.0, -2.0], dtype=mg.float64, requires_grad=True)
    g, = mg.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    h, = mg.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, -12.0]


@pytest.mark.parametrize("change", ["x", "w"])
def test_mm_saves_only_the_operand_the_other_gradient_needs(change):
    """As torch: ``w @ x`` with only w requiring grad keeps x (for w's gradient), not w,
    so changing w in place before backward is no error, and changing x is."""
    outcomes = {}
    for name, lib in LIBS.items():
        w = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        x = lib.ones(3, 4, dtype=lib.float64)
        y = (w @ x).sum()
        with lib.no_grad():
            (x if change == "x" else w).mul_(2)
        try:
            y.backward()
            outcomes[name] = "ok"
        except RuntimeError as error:
            outcomes[name] = "modified by an inplace operation" in str(error)
    assert outcomes["minigrad"] == outcomes["torch"] == ("ok" if change == "w" else True)
