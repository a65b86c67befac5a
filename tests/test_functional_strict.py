"""``strict=True`` in ``autograd.functional``'s vjp, jvp, jacobian, hessian, hvp and vhp
(chapters 14, 15): torch raises RuntimeError where an output does not depend on an input
(or, with create_graph, where a derivative does not); minigrad raises the same type with
torch's phrase, and without strict both return the same zeros."""

import pytest
import torch

import minigrad
from tests.edge_parity import compare


def _linear(x, y):
    return (2 * x).sum()


def _ignores_y(x, y):
    return (x ** 3).sum()


def _cubic(x, y):
    return (x ** 3).sum() + (x * y * y).sum()


def _const_out(x, y):
    return (x + y).detach().sum()


CASES = [  # (name, call(lib, fn, x, y), fn)
    ("vjp_ignores_y", lambda lib, f, x, y: lib.autograd.functional.vjp(f, (x, y), strict=True),
     _ignores_y),
    ("vjp_detached_output",
     lambda lib, f, x, y: lib.autograd.functional.vjp(f, (x, y), strict=True), _const_out),
    ("vjp_linear_create_graph",
     lambda lib, f, x, y: lib.autograd.functional.vjp(f, (x, y), create_graph=True,
                                                      strict=True), _linear),
    ("jvp_ignores_y",
     lambda lib, f, x, y: lib.autograd.functional.jvp(f, (x, y), (x, y), strict=True),
     _ignores_y),
    ("jvp_detached_output",
     lambda lib, f, x, y: lib.autograd.functional.jvp(f, (x, y), (x, y), strict=True),
     _const_out),
    ("jvp_linear",
     lambda lib, f, x, y: lib.autograd.functional.jvp(f, (x, y), (x, y), strict=True),
     _linear),
    ("jacobian_ignores_y",
     lambda lib, f, x, y: lib.autograd.functional.jacobian(f, (x, y), strict=True),
     _ignores_y),
    ("jacobian_detached_output",
     lambda lib, f, x, y: lib.autograd.functional.jacobian(f, (x, y), strict=True),
     _const_out),
    ("jacobian_linear_create_graph",
     lambda lib, f, x, y: lib.autograd.functional.jacobian(lambda a, b: 2 * a + b, (x, y),
                                                           create_graph=True, strict=True),
     _linear),
    ("jacobian_forward_mode_strict",
     lambda lib, f, x, y: lib.autograd.functional.jacobian(f, (x, y), strict=True,
                                                           strategy="forward-mode",
                                                           vectorize=True), _cubic),
    ("hessian_ignores_y",
     lambda lib, f, x, y: lib.autograd.functional.hessian(f, (x, y), strict=True),
     _ignores_y),
    ("hessian_linear",
     lambda lib, f, x, y: lib.autograd.functional.hessian(f, (x, y), strict=True), _linear),
    ("hessian_detached_output",
     lambda lib, f, x, y: lib.autograd.functional.hessian(f, (x, y), strict=True),
     _const_out),
    ("vhp_ignores_y",
     lambda lib, f, x, y: lib.autograd.functional.vhp(f, (x, y), (x, y), strict=True),
     _ignores_y),
    ("vhp_linear",
     lambda lib, f, x, y: lib.autograd.functional.vhp(f, (x, y), (x, y), strict=True),
     _linear),
    ("hvp_ignores_y",
     lambda lib, f, x, y: lib.autograd.functional.hvp(f, (x, y), (x, y), strict=True),
     _ignores_y),
    ("hvp_linear",
     lambda lib, f, x, y: lib.autograd.functional.hvp(f, (x, y), (x, y), strict=True),
     _linear),
    ("hvp_detached_output",
     lambda lib, f, x, y: lib.autograd.functional.hvp(f, (x, y), (x, y), strict=True),
     _const_out),
    # strict and fine: the same numbers as without strict
    ("vjp_cubic", lambda lib, f, x, y: lib.autograd.functional.vjp(f, (x, y), strict=True),
     _cubic),
    ("jvp_cubic",
     lambda lib, f, x, y: lib.autograd.functional.jvp(f, (x, y), (x, y), strict=True),
     _cubic),
    ("jacobian_cubic",
     lambda lib, f, x, y: lib.autograd.functional.jacobian(f, (x, y), strict=True,
                                                           create_graph=True), _cubic),
    ("hessian_cubic",
     lambda lib, f, x, y: lib.autograd.functional.hessian(f, (x, y), strict=True), _cubic),
    ("hvp_cubic",
     lambda lib, f, x, y: lib.autograd.functional.hvp(f, (x, y), (y, x), strict=True),
     _cubic),
    ("vhp_cubic",
     lambda lib, f, x, y: lib.autograd.functional.vhp(f, (x, y), (y, x), strict=True),
     _cubic),
]


def _run(lib, call, fn):
    x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)
    y = lib.tensor([0.5, 3.0, -1.0], dtype=lib.float64)
    try:
        return call(lib, fn, x, y), None
    except Exception as exc:  # noqa: BLE001 - compared with torch's
        return None, exc


def _first_sentence(message):
    return message.split(" This is not allowed")[0].split(" Fix:")[0]


@pytest.mark.parametrize(("name", "call", "fn"), CASES, ids=[c[0] for c in CASES])
def test_strict_matches_torch(name, call, fn):
    theirs, t_exc = _run(torch, call, fn)
    ours, m_exc = _run(minigrad, call, fn)
    if t_exc is not None:
        assert type(m_exc) is type(t_exc), (t_exc, m_exc)
        assert _first_sentence(str(t_exc)) in str(m_exc), (str(t_exc), str(m_exc))
        assert "Fix:" in str(m_exc)
        return
    assert m_exc is None, m_exc
    compare(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("what", ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"])
def test_without_strict_an_unused_input_gets_zeros(what):
    results = []
    for lib in (torch, minigrad):
        fn = getattr(lib.autograd.functional, what)
        x = lib.tensor([1.0, -2.0], dtype=lib.float64)
        y = lib.tensor([0.5, 3.0], dtype=lib.float64)
        args = (_ignores_y, (x, y)) + (((x, y),) if what in ("jvp", "hvp", "vhp") else ())
        results.append(fn(*args))
    compare(results[1], results[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("transform", ["jacrev", "vjp"])
def test_func_of_an_output_independent_of_the_input_is_zeros(transform):
    results = []
    for lib in (torch, minigrad):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64)
        if transform == "jacrev":
            results.append(lib.func.jacrev(lambda a: a.detach() * 2)(x))
        else:
            _, vjp_fn = lib.func.vjp(lambda a: a.detach() * 2, x)
            results.append(vjp_fn(lib.ones(2, dtype=lib.float64)))
    compare(results[1], results[0], rtol=1e-10, atol=1e-12)
