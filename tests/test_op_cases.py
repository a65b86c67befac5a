"""Every op against torch, four ways, from the one table tests/op_cases.py (chapters 05-15).

For each case, both libraries run the same function on the same float64 inputs:

* forward: the value and its dtype;
* backward: ``autograd.grad`` with a random upstream gradient, each input's gradient;
* second order: ``autograd.grad(..., create_graph=True)``, then the gradient of
  ``sum(g * w)`` (a random weighting of the first gradients) w.r.t. every input: a
  Hessian-vector product per input;
* tangent: every input made dual (``forward_ad.make_dual``) with a random direction, the
  output's tangent from ``unpack_dual``.

All to rtol 1e-10. Then every ``Function`` defined in minigrad must have a ``jvp`` and
appear in some case's graph.
"""

import zlib

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import minigrad as mg
from minigrad.autograd import forward_ad as mfw
from minigrad.autograd.function import AccumulateGrad, Function
from tests.op_cases import CASES, inputs

RTOL, ATOL = 1e-10, 1e-12
LIBS = {"minigrad": mg, "torch": torch}
IDS = [c.name for c in CASES]


def _np(t):
    return None if t is None else (t.detach().numpy() if isinstance(t, torch.Tensor)
                                   else t.detach().numpy())


def _rng(case, salt):
    return np.random.default_rng(zlib.crc32(f"{case.name}/{salt}".encode()))


def _close(a, b, what):
    if a is None or b is None:
        assert a is None and b is None, f"{what}: minigrad {a!r}, torch {b!r}"
        return
    assert a.shape == b.shape, f"{what}: shape {a.shape} in minigrad, {b.shape} in torch"
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=what)
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} in minigrad, {b.dtype} in torch"


def _leaves(lib, case):
    return [lib.tensor(a, requires_grad=True) for a in inputs(case)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_torch(case):
    out = {name: _np(case.fn(lib)(*[lib.tensor(a) for a in inputs(case)]))
           for name, lib in LIBS.items()}
    _close(out["minigrad"], out["torch"], "value")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backward_matches_torch(case):
    grads = {}
    for name, lib in LIBS.items():
        xs = _leaves(lib, case)
        y = case.fn(lib)(*xs)
        upstream = lib.tensor(_rng(case, "upstream").standard_normal(tuple(y.shape)))
        grads[name] = [_np(g) for g in lib.autograd.grad(y, xs, upstream, allow_unused=True)]
    for i, (a, b) in enumerate(zip(grads["minigrad"], grads["torch"], strict=True)):
        _close(a, b, f"gradient of input {i}")


def second_order(lib, case):
    """First gradients (recorded) and the gradient of <first gradients, w> per input."""
    xs = _leaves(lib, case)
    firsts = lib.autograd.grad(case.fn(lib)(*xs), xs, create_graph=True)
    rng = _rng(case, "weights")
    total = 0
    for g in firsts:
        total = total + (g * lib.tensor(rng.standard_normal(tuple(g.shape)))).sum()
    seconds = lib.autograd.grad(total, xs, allow_unused=True)
    return firsts, seconds


@pytest.mark.parametrize("case", [c for c in CASES if c.second],
                         ids=[c.name for c in CASES if c.second])
def test_second_order_matches_torch(case):
    (f_m, s_m), (f_t, s_t) = (second_order(lib, case) for lib in LIBS.values())
    for i, (a, b) in enumerate(zip(f_m, f_t, strict=True)):
        _close(_np(a), _np(b), f"first gradient of input {i}")
        assert a.requires_grad == b.requires_grad  # a graph in both, or in neither
    for i, (a, b) in enumerate(zip(s_m, s_t, strict=True)):
        a, b = _np(a), _np(b)  # an unused input: None in one, zeros in the other is fine
        a = np.zeros_like(b) if a is None and b is not None else a
        b = np.zeros_like(a) if b is None and a is not None else b
        _close(a, b, f"second derivative, input {i}")


@pytest.mark.parametrize("case", [c for c in CASES if c.tangent],
                         ids=[c.name for c in CASES if c.tangent])
def test_tangent_matches_torch(case):
    arrays = inputs(case)
    rng = _rng(case, "directions")
    directions = [rng.standard_normal(a.shape) for a in arrays]
    out = {}
    for (name, lib), fw in zip(LIBS.items(), (mfw, tfw), strict=True):
        with fw.dual_level():
            duals = [fw.make_dual(lib.tensor(a), lib.tensor(d))
                     for a, d in zip(arrays, directions, strict=True)]
            primal, tangent = fw.unpack_dual(case.fn(lib)(*duals))
            out[name] = (_np(primal), _np(tangent))
    _close(out["minigrad"][0], out["torch"][0], "primal")
    _close(out["minigrad"][1], out["torch"][1], "tangent")


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _nodes(tensors):
    """Every node's class in the graphs of ``tensors``."""
    seen, stack = set(), [t.grad_fn for t in tensors if t is not None and t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(node.next_functions)
    return {type(node) for node in seen}


def test_every_function_has_a_jvp_and_a_case():
    """Walks every Function subclass minigrad defines: each has its own tangent rule
    (``jvp``) and appears in the graph of some case (or of its recorded backward)."""
    import minigrad.nn.module_hooks  # noqa: F401 - every module that defines a Function
    import minigrad.utils.checkpoint  # noqa: F401

    functions = {c for c in _subclasses(Function)
                 if c.__module__.startswith("minigrad.") and c is not AccumulateGrad
                 and not c.__name__.startswith("_")}  # a private base (_Step) is no node
    assert len(functions) > 40
    assert [c.__qualname__ for c in functions if c.jvp is Function.jvp] == []
    covered = set()
    for case in CASES:
        xs = _leaves(mg, case)
        y = case.fn(mg)(*xs)
        covered |= _nodes([y])
        if case.second:
            covered |= _nodes(second_order(mg, case)[0])
    # torch has no derivative for floor_divide: its node refuses backward and jvp, as
    # torch's (test_floor_round_relu.py), so no case can run it
    missing = sorted(c.__qualname__ for c in functions - covered if c.__name__ != "FloorDivide")
    assert missing == []
