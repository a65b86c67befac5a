"""minigrad.Value against PyTorch (float64): every op, then random expressions.

One lambda runs on both libraries (``Value`` and a 0-d torch tensor share the
operators and the method names), as in tinygrad's ``helper_test_op``; the forward value
and every leaf's gradient are compared with :func:`minigrad.check_all` at rtol 1e-9.
"""

import math

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from minigrad import Value, check_all

RTOL, ATOL = 1e-9, 1e-12


def torch_leaves(xs):
    return [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]


def torch_grad(t):
    return 0.0 if t.grad is None else t.grad  # a leaf the output does not use


def compare(name, values, tensors, out, tout, equal_nan=False, atol=ATOL):
    results = {f"{name}: value": (out.data, tout)}
    for i, (v, t) in enumerate(zip(values, tensors, strict=True)):
        results[f"{name}: grad of input {i}"] = (v.grad, torch_grad(t))
    check_all(results, rtol=RTOL, atol=atol, equal_nan=equal_nan)


def helper_test_op(xs, fn, gradient=0.75, equal_nan=False):
    """Run ``fn`` on Values and on torch leaves made from ``xs``; compare both ways.

    The seed ``gradient`` is not 1, so a backward that ignores its upstream shows.
    """
    values, tensors = [Value(x) for x in xs], torch_leaves(xs)
    out, tout = fn(*values), fn(*tensors)
    out.backward(gradient)
    tout.backward(torch.tensor(gradient, dtype=torch.float64))
    compare("op", values, tensors, out, tout, equal_nan)


# --- every op, one line each: (inputs, op) ---

OP_CASES = [
    ((1.5, -2.0), lambda a, b: a + b),
    ((1.5, -2.0), lambda a, b: a - b),
    ((1.5, -2.0), lambda a, b: a * b),
    ((1.5, -2.0), lambda a, b: a / b),
    ((1.5, 2.5), lambda a, b: a ** b),
    ((-2.0, 3.0), lambda a, b: a ** b * 1.0),  # negative base, whole exponent
    ((1.5,), lambda a: a ** 2),
    ((-1.5,), lambda a: a ** 3),
    ((1.5,), lambda a: a ** 0.5),
    ((-1.5,), lambda a: a ** -1),
    ((1.5,), lambda a: a ** -2.5),
    ((1.5,), lambda a: a ** 0),
    ((0.7,), lambda a: 2 ** a),
    ((0.7,), lambda a: 1 + a),
    ((0.7,), lambda a: a + 1),
    ((0.7,), lambda a: 1 - a),
    ((0.7,), lambda a: a - 1),
    ((0.7,), lambda a: 3 * a),
    ((0.7,), lambda a: a * 3),
    ((0.7,), lambda a: 3 / a),
    ((0.7,), lambda a: a / 3),
    ((0.7,), lambda a: -a),
    ((0.7,), lambda a: a.exp()),
    ((0.7,), lambda a: a.log()),
    ((0.7,), lambda a: a.tanh()),
    ((-0.7,), lambda a: a.sigmoid()),
    ((0.7,), lambda a: a.sigmoid()),
    ((0.7,), lambda a: a.relu()),
    ((-0.7,), lambda a: a.relu()),
    # edges where the formula has no number: torch's conventions
    ((0.0,), lambda a: a.relu()),
    ((0.0,), lambda a: a ** 2),
    ((0.0,), lambda a: a ** 0.5),
    ((0.0,), lambda a: a ** 0),
    ((0.0, 2.0), lambda a, b: a ** b),
    ((-800.0,), lambda a: a.sigmoid()),
    ((800.0,), lambda a: a.sigmoid()),
    ((30.0,), lambda a: a.tanh()),
    ((1e-300,), lambda a: a.log()),
]


@pytest.mark.parametrize(("xs", "fn"), OP_CASES)
def test_op_matches_torch(xs, fn):
    helper_test_op(xs, fn, equal_nan=True)


# --- reuse: a node used more than once must receive every contribution ---

REUSE_CASES = [
    ((1.5,), lambda a: a * a),
    ((1.5,), lambda a: a + a),
    ((1.5,), lambda a: a - a),
    ((1.5,), lambda a: a / a),
    ((1.5,), lambda a: a ** a),
    ((1.5, -0.5), lambda a, b: (a * b) * (a * b).tanh()),
    ((1.5, -0.5), lambda a, b: (h := a * b + 1) * h + h.exp() - h.relu()),
    ((0.3,), lambda a: ((a * a) * (a * a)).sigmoid() * a),
]


@pytest.mark.parametrize(("xs", "fn"), REUSE_CASES)
def test_reuse_matches_torch(xs, fn):
    helper_test_op(xs, fn)


# --- random expressions: a small program over 2 or 3 leaves ---

# Each op takes two operands (the second may be ignored). Ops with a bounded domain
# raise in minigrad outside it; such draws are rejected, not compared.
PROGRAM_OPS = [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a / b,
    lambda a, b: a ** b,
    lambda a, b: a ** 2,
    lambda a, b: a ** 3,
    lambda a, b: a ** -1,
    lambda a, b: a ** 0.5,
    lambda a, b: 2 ** a,
    lambda a, b: 1.5 - a,
    lambda a, b: 0.5 * a + 1,
    lambda a, b: 3 / a,
    lambda a, b: -a,
    lambda a, b: a.exp(),
    lambda a, b: a.log(),
    lambda a, b: a.tanh(),
    lambda a, b: a.sigmoid(),
    lambda a, b: a.relu(),
]


@st.composite
def programs(draw):
    """Leaves, then steps ``(op, i, j)`` whose operands are any earlier nodes."""
    leaves = draw(st.lists(st.floats(-3, 3), min_size=2, max_size=3))
    steps, size = [], len(leaves)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.integers(0, len(PROGRAM_OPS) - 1))
        steps.append((op, draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))))
        size += 1
    second = draw(st.integers(len(leaves), size - 1))  # a second output for accumulation
    return leaves, steps, second


def run(leaves, steps):
    nodes = list(leaves)
    for op, i, j in steps:
        nodes.append(PROGRAM_OPS[op](nodes[i], nodes[j]))
    return nodes


def backward_or_reject(root, values):
    try:
        root.backward()
    except OverflowError:
        assume(False)  # a local gradient out of float range: Python refuses, torch gives inf
    # inf * 0 makes nan in both libraries; near-overflow grads are no test of the engine
    assume(all(math.isfinite(v.grad) and abs(v.grad) < 1e9 for v in values))


@settings(max_examples=500, suppress_health_check=[HealthCheck.filter_too_much])
@given(programs())
def test_random_expressions_match_torch(program):
    leaves, steps, second = program
    values = [Value(x) for x in leaves]
    try:
        nodes = run(values, steps)
        local_grads = [g for n in nodes for g in n.local_grads()]
    except (ValueError, ZeroDivisionError, OverflowError):
        assume(False)  # outside an op's domain: minigrad refuses, torch gives inf/nan
    # Bounded values and local gradients: past that, float rounding decides alone.
    assume(all(abs(n.data) < 1e6 for n in nodes))
    assume(all(abs(g) < 1e6 for g in local_grads))
    tensors = torch_leaves(leaves)
    tnodes = run(tensors, steps)
    root, troot = nodes[-1], tnodes[-1]
    backward_or_reject(root, values)
    troot.backward(retain_graph=True)
    compare("backward", values, tensors, root, troot, atol=ATOL * largest_term(nodes))
    root.backward()  # again: the leaves' grads add up
    troot.backward(retain_graph=True)
    compare("backward twice", values, tensors, root, troot, atol=ATOL * largest_term(nodes))
    backward_or_reject(nodes[second], values)  # another output of the same graph adds in too
    tnodes[second].backward()
    compare("second output", values, tensors, nodes[second], tnodes[second],
            atol=ATOL * largest_term(nodes))


def largest_term(nodes):
    """The largest ``local * upstream`` added into any grad: it sets the rounding error.

    Torch sums one pass's terms before adding them into ``.grad``; minigrad adds each
    term, so a grad that already holds a value may round differently by about this much
    times the machine epsilon.
    """
    return max([1.0] + [abs(g * n.grad) for n in nodes for g in n.local_grads()])
