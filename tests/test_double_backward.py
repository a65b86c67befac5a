"""Gradients of gradients (create_graph=True) against torch's (chapter 15).

Op by op, the second order is in tests/test_op_cases.py (from the table op_cases.py).
Here: hypothesis varies shapes and values of the elementwise, broadcasting and matrix
ops (first ``autograd.grad(f, xs, create_graph=True)``, then the gradient of
``sum(g * w)`` for a random ``w``, compared to 1e-10); the third derivative, ``backward
(create_graph=True)``, ``retain_graph``; ``gradgradcheck`` checks the ops' recorded
backwards against finite differences, and catches a deliberately wrong one.
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad.autograd.gradcheck import gradgradcheck

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


F = torch.nn.functional


def _f(lib):
    return F if lib is torch else mg.nn.functional


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

    from minigrad.autograd.function import constant
    from minigrad.ops import activations

    def wrong(ctx, g):  # the output's dependence on the input forgotten
        (out,) = ctx.saved_tensors
        return g * (1 - constant(out.data) ** 2)

    monkeypatch.setattr(activations.Tanh, "differentiable_backward", staticmethod(wrong),
                        raising=False)
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
