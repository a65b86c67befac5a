"""``func.jvp`` / ``func.vjp`` / ``func.grad`` with pytrees (a dict of weights, tuples of
tuples) as primals, tangents, cotangents and outputs, against ``torch.func`` (chapter 15),
and torch's refusals of mismatched structures.
"""

import numpy as np
import pytest
import torch

import minigrad
from tests.edge_parity import compare

LIBS = [minigrad, torch]


def _weights(lib):
    rng = np.random.default_rng(3)
    return ({"w": lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64),
             "b": lib.tensor(rng.standard_normal(2), dtype=lib.float64)},
            {"w": lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64),
             "b": lib.tensor(rng.standard_normal(2), dtype=lib.float64)},
            lib.tensor(rng.standard_normal(3), dtype=lib.float64))


def _layer(p, x):
    return (p["w"] @ x + p["b"]).tanh()


def _nested(pair):
    a, (b, c) = pair
    return (a * b).sin() + c, {"sq": a * a}


def _pair(lib, seed):
    rng = np.random.default_rng(seed)
    t = [lib.tensor(rng.standard_normal(3), dtype=lib.float64) for _ in range(3)]
    return (t[0], (t[1], t[2]))


def _both(run):
    ours, theirs = run(minigrad), run(torch)
    flat_m, flat_t = _leaves(ours), _leaves(theirs)
    assert len(flat_m) == len(flat_t) and _shape(ours) == _shape(theirs)
    for k, (m, t) in enumerate(zip(flat_m, flat_t, strict=True)):
        compare(m, t, f"leaf {k}", 1e-10, 1e-12)


def _leaves(tree):
    if isinstance(tree, tuple | list):
        return [x for t in tree for x in _leaves(t)]
    if isinstance(tree, dict):
        return [x for k in tree for x in _leaves(tree[k])]
    return [tree]


def _shape(tree):
    if isinstance(tree, tuple | list):
        return (type(tree).__name__, [_shape(t) for t in tree])
    if isinstance(tree, dict):
        return ("dict", [(k, _shape(v)) for k, v in tree.items()])
    return "leaf"


def test_jvp_with_a_dict_of_weights():
    def run(lib):
        p, t, x = _weights(lib)
        return lib.func.jvp(lambda q: _layer(q, x), (p,), (t,))
    _both(run)


def test_vjp_with_a_dict_of_weights():
    def run(lib):
        p, _, x = _weights(lib)
        out, vjp_fn = lib.func.vjp(lambda q: _layer(q, x), p)
        return out, vjp_fn(lib.tensor([1.0, -2.0], dtype=lib.float64))
    _both(run)


def test_grad_with_a_dict_of_weights():
    _both(lambda lib: lib.func.grad(lambda q, x: _layer(q, x).sum())(*_weights(lib)[::2]))


def test_jvp_tuples_of_tuples_and_a_dict_output():
    _both(lambda lib: lib.func.jvp(_nested, (_pair(lib, 0),), (_pair(lib, 1),)))


def test_vjp_tuples_of_tuples_and_a_dict_output():
    def run(lib):
        out, vjp_fn = lib.func.vjp(_nested, _pair(lib, 0))
        a, (b, _) = _pair(lib, 1)
        return out, vjp_fn((a, {"sq": b}))
    _both(run)


def test_grad_of_tuples_of_tuples():
    _both(lambda lib: lib.func.grad(lambda p: _nested(p)[0].sum())(_pair(lib, 0)))


def test_functional_call_under_grad_with_a_dict():
    def run(lib):
        layer = lib.nn.Linear(3, 2).double()  # its own weights are replaced
        params = {"weight": lib.tensor(np.arange(6.0).reshape(2, 3) / 7, dtype=lib.float64),
                  "bias": lib.tensor([0.1, -0.2], dtype=lib.float64)}
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64)
        loss = lambda p: lib.func.functional_call(layer, p, (x,)).tanh().sum()  # noqa: E731
        return lib.func.grad(loss)(params), lib.func.jvp(loss, (params,), (params,))
    _both(run)


@pytest.mark.parametrize(("call", "phrase"), [
    (lambda lib, a: lib.func.jvp(lambda p: p["w"] * 2, ({"w": a},), ({"v": a},)),
     "Expected primals and tangents to have the same python structure"),
    (lambda lib, a: lib.func.jvp(lambda p: p * 2, (a,), (a, a)),
     "Expected primals and tangents to have the same python structure"),
    (lambda lib, a: lib.func.vjp(lambda v: (v, v * 2), a)[1](a),
     "Expected pytree structure of cotangents to be the same as pytree structure of outputs"),
    (lambda lib, a: lib.func.vjp(lambda v: (v, 3), a),
     "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type"),
    (lambda lib, a: lib.func.jvp(lambda v: (v, 3), (a,), (a,)),
     "jvp(f, primals, tangents): expected f(*primals) to return only tensors, got unsupported"),
])
def test_structure_errors_as_torch(call, phrase):
    for lib in LIBS:
        with pytest.raises(RuntimeError) as e:
            call(lib, lib.ones(2, dtype=lib.float64))
        assert phrase in str(e.value), (lib.__name__, str(e.value))
