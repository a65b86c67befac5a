"""The grading routes chapter 14 switches off, by experiment: each forward-mode, double
backward and ready-made Jacobian entry point of minigrad and torch is caught by its route,
and the routes that must stay open stay open."""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import minigrad
from minigrad import func as mfunc
from minigrad.autograd import forward_ad as mfw
from minigrad.autograd import functional as mfn
from minigrad.course.grading import ROUTES, Forbidden, switched_off

X = np.array([0.5, -1.0, 2.0])
V = np.array([1.0, 0.5, -2.0])


def mf(t):
    return (t * t).tanh() * 2


def tf(t):
    return torch.tanh(t * t) * 2


def m(a):
    return minigrad.tensor(a)


def t(a):
    return torch.tensor(a)


def minigrad_dual():
    with mfw.dual_level():
        return mfw.unpack_dual(mf(mfw.make_dual(m(X), m(V))))


def minigrad_tangent_by_hand():  # a tangent attached without make_dual still propagates
    with mfw.dual_level():
        x = m(X)
        mfw._attach(x, V.copy())
        return mfw.unpack_dual(mf(x))


def torch_dual():
    with tfw.dual_level():
        return tfw.unpack_dual(tf(tfw.make_dual(t(X), t(V))))


def double_vjp():
    x = m(X).requires_grad_()
    u = m(np.zeros(3)).requires_grad_()
    (g,) = minigrad.autograd.grad(mf(x), x, u, create_graph=True)
    return minigrad.autograd.grad(g, u, m(V))


FORWARD = {
    "minigrad make_dual": minigrad_dual,
    "minigrad tangent attached by hand": minigrad_tangent_by_hand,
    "minigrad.func.jvp": lambda: mfunc.jvp(mf, (m(X),), (m(V),)),
    "minigrad.func.jacfwd": lambda: mfunc.jacfwd(mf)(m(X)),
    "minigrad jacobian forward-mode": lambda: mfn.jacobian(mf, m(X), strategy="forward-mode"),
    "torch make_dual": torch_dual,
    "torch.func.jvp": lambda: torch.func.jvp(tf, (t(X),), (t(V),)),
    "torch.func.jacfwd": lambda: torch.func.jacfwd(tf)(t(X)),
    "torch jacobian forward-mode": lambda: torch.autograd.functional.jacobian(
        tf, t(X), strategy="forward-mode", vectorize=True),
}

REVERSE = {
    "minigrad backward": lambda: mf(m(X).requires_grad_()).sum().backward(),
    "minigrad autograd.grad": lambda: (lambda x: minigrad.autograd.grad(mf(x).sum(), x))(
        m(X).requires_grad_()),
    "minigrad create_graph": lambda: mf(m(X).requires_grad_()).sum().backward(
        create_graph=True),
    "minigrad double VJP": double_vjp,
    "minigrad.functional.jvp": lambda: mfn.jvp(mf, m(X), m(V)),
    "minigrad.func.jacrev": lambda: mfunc.jacrev(mf)(m(X)),
    "minigrad.func.vjp": lambda: mfunc.vjp(mf, m(X))[1](m(V)),
    "torch backward": lambda: tf(t(X).requires_grad_()).sum().backward(),
    "torch.func.jacrev": lambda: torch.func.jacrev(tf)(t(X)),
    "torch.autograd.functional.jvp": lambda: torch.autograd.functional.jvp(tf, t(X), t(V)),
}


def caught(fn, forbid):
    try:
        with switched_off(forbid):
            fn()
    except Forbidden:
        return True
    return False


@pytest.mark.parametrize("name", FORWARD)
def test_forward_ad_catches_every_forward_mode_entry(name):
    assert caught(FORWARD[name], "forward_ad")
    assert not caught(FORWARD[name], "autograd")  # forward mode runs no backward pass


@pytest.mark.parametrize("name", REVERSE)
def test_autograd_catches_every_backward_pass(name):
    assert caught(REVERSE[name], "autograd")
    assert not caught(REVERSE[name], "forward_ad")


def test_routes_restore_what_they_switch_off():
    for route, fn in [("forward_ad", minigrad_dual), ("autograd", double_vjp),
                      ("minigrad.func", FORWARD["minigrad.func.jvp"]),
                      ("torch.func", FORWARD["torch.func.jvp"])]:
        assert caught(fn, route)
        fn()  # switched on again
    np.testing.assert_allclose(minigrad_dual()[1].data, torch_dual()[1].numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["minigrad.func.jacfwd", "minigrad jacobian forward-mode",
                                  "torch.func.jacfwd", "torch jacobian forward-mode"])
def test_jacobian_routes_catch_the_ready_made_jacobians(name):
    route = "minigrad.jacobian" if name.startswith("minigrad") else "torch.jacobian"
    assert caught(FORWARD[name], route)
    assert not caught(FORWARD["minigrad.func.jvp"], "minigrad.jacobian")


def test_func_routes():
    assert caught(FORWARD["minigrad.func.jvp"], "minigrad.func")
    assert caught(REVERSE["minigrad.functional.jvp"], "minigrad.func")
    assert caught(FORWARD["torch.func.jvp"], "torch.func")
    assert caught(REVERSE["torch.autograd.functional.jvp"], "torch.func")
    assert not caught(FORWARD["minigrad make_dual"], "minigrad.func")
    assert set(ROUTES["minigrad.jacobian"]) < set(ROUTES["minigrad.func"])


def test_counting_passes():
    calls = {}
    with switched_off(count=["minigrad.autograd", "minigrad.forward_ad"], calls=calls):
        double_vjp()
        mfunc.jvp(mf, (m(X),), (m(V),))
    assert calls["minigrad.autograd"] == 2  # one recorded pass, one plain
    assert calls["minigrad.forward_ad"] >= 1
