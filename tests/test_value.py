"""Unit tests of minigrad.Value: the seed examples, reuse, accumulation, errors, depth."""

import gc
import math
import tracemalloc

import numpy as np
import pytest
import torch

from minigrad import Value, backward_order, check_all


def leaf(x):
    """A float64 torch leaf that requires grad."""
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


# --- the seed examples, each against torch ---

def test_seed_square_at_3_gives_6():
    x, tx = Value(3.0), leaf(3.0)
    (x ** 2).backward()
    (tx ** 2).backward()
    check_all({"x.grad": (x.grad, tx.grad)})
    assert math.isclose(x.grad, 6.0)


def test_seed_two_inputs_gives_4_and_3():
    x, y, tx, ty = Value(2.0), Value(4.0), leaf(2.0), leaf(4.0)
    (x ** 2 + 3 * y).backward()
    (tx ** 2 + 3 * ty).backward()
    check_all({"x.grad": (x.grad, tx.grad), "y.grad": (y.grad, ty.grad)})
    assert (x.grad, y.grad) == pytest.approx((4.0, 3.0))


def test_seed_chain_rule_gives_8():
    x, tx = Value(3.0), leaf(3.0)
    ((x + 1) ** 2).backward()
    ((tx + 1) ** 2).backward()
    check_all({"x.grad": (x.grad, tx.grad)})
    assert x.grad == pytest.approx(8.0)


def test_seed_local_and_upstream_gives_10_and_10():
    x, y, tx, ty = Value(2.0), Value(3.0), leaf(2.0), leaf(3.0)
    a = x + y
    z = a ** 2
    z.backward()
    ((tx + ty) ** 2).backward()
    check_all({"x.grad": (x.grad, tx.grad), "y.grad": (y.grad, ty.grad)})
    assert (a.grad, x.grad, y.grad) == pytest.approx((10.0, 10.0, 10.0))


def test_seed_accumulation_4_then_7():
    x, tx = Value(2.0), leaf(2.0)
    (x ** 2).backward()
    (tx ** 2).backward()
    check_all({"after y.backward()": (x.grad, tx.grad)})
    assert x.grad == pytest.approx(4.0)
    (3 * x).backward()
    (3 * tx).backward()
    check_all({"after z.backward()": (x.grad, tx.grad)})
    assert x.grad == pytest.approx(7.0)


# --- reuse and accumulation ---

@pytest.mark.parametrize(("build", "expected"), [
    (lambda a: a + a, 2.0),
    (lambda a: a * a, 6.0),
    (lambda a: a * a * a, 27.0),
    (lambda a: (a + 1) * (a + 1), 8.0),
    (lambda a: a - a, 0.0),
])
def test_a_node_used_twice_gets_both_contributions(build, expected):
    a = Value(3.0)
    build(a).backward()
    assert a.grad == pytest.approx(expected)


def test_one_node_feeding_two_consumers():
    x = Value(2.0)
    h = x * 3  # h feeds both p and q
    (h * h + h.exp()).backward()
    th = (tx := leaf(2.0)) * 3
    (th * th + th.exp()).backward()
    check_all({"x.grad": (x.grad, tx.grad)})


def test_second_backward_adds_into_leaves_without_reusing_stale_grads():
    x, tx = Value(3.0), leaf(3.0)
    z, tz = (x + 1) ** 2, (tx + 1) ** 2
    z.backward()
    z.backward()
    tz.backward(retain_graph=True)
    tz.backward()
    check_all({"x.grad": (x.grad, tx.grad)})
    assert x.grad == pytest.approx(16.0)
    assert z.grad == pytest.approx(1.0)  # intermediate grads are fresh on every call


def test_backward_of_a_leaf_and_a_seed_gradient():
    x = Value(2.0)
    x.backward()
    assert x.grad == pytest.approx(1.0)
    y = Value(2.0)
    (y * y).backward(gradient=0.5)
    assert y.grad == pytest.approx(2.0)


def test_reset_by_assigning_zero():
    x = Value(2.0)
    (x * x).backward()
    x.grad = 0.0
    (x * 5).backward()
    assert x.grad == pytest.approx(5.0)


# --- structure: parents, ops, order, repr ---

def test_parents_are_a_tuple_in_operand_order_and_ops_are_named():
    x, y = Value(2.0, "x"), Value(3.0, "y")
    z = x * y
    assert z._prev == (x, y)
    assert z._op == "*"
    assert (x ** 2)._op == "**2"
    assert (x ** 0.5)._op == "**0.5"
    assert (x ** y)._op == "**"
    assert [(f(x))._op for f in (Value.exp, Value.log, Value.tanh, Value.sigmoid,
                                 Value.relu)] == ["exp", "log", "tanh", "sigmoid", "relu"]
    assert x.is_leaf and not z.is_leaf
    assert z.local_grads() == pytest.approx((3.0, 2.0))
    assert x.local_grads() == ()


def test_backward_order_puts_every_node_after_its_users():
    x, y = Value(2.0, "x"), Value(3.0, "y")
    a = x + y
    b = a * x
    c = b + a.tanh()
    order = backward_order(c)
    position = {id(v): i for i, v in enumerate(order)}
    assert len(order) == len(position) == 6
    for v in order:
        for parent in v._prev:
            assert position[id(parent)] > position[id(v)]
    assert [v.label for v in backward_order(c) if v.label] == [v.label for v in order
                                                               if v.label]


def test_identity_hash_and_equality_are_objects():
    # backward_order keys a dict by node: that must stay keying by identity
    assert Value.__hash__ is object.__hash__
    assert Value.__eq__ is object.__eq__


def test_repr_is_readable_and_has_no_address():
    x = Value(3.0, "x")
    z = x ** 2
    z.backward()
    assert repr(z) == "Value(data=9.0, grad=1.0)"
    assert repr(x) == "Value(data=3.0, grad=6.0, label='x')"


def test_numbers_of_any_real_type_and_bools():
    x = Value(np.float32(1.5))
    assert type(x.data) is float
    assert (x + np.int64(2)).data == pytest.approx(3.5)
    assert (x + True).data == pytest.approx(2.5)  # a bool counts as 1, as in Python
    assert Value(True).data == pytest.approx(1.0)
    assert (2 ** Value(3.0)).data == pytest.approx(8.0)
    assert (1 - Value(3.0)).data == pytest.approx(-2.0)
    assert (6 / Value(3.0)).data == pytest.approx(2.0)


# --- bad input: same exception type as Python, a hint at the fix ---

@pytest.mark.parametrize(("make", "error", "phrase"), [
    (lambda: Value(-1.0).log(), ValueError, "log needs a positive input, got -1.0"),
    (lambda: Value(0.0).log(), ValueError, "math domain error"),
    (lambda: Value(1.0) / 0, ZeroDivisionError, "division by zero"),
    (lambda: Value(1.0) / Value(0.0), ZeroDivisionError, "division by zero"),
    (lambda: 1 / Value(0.0), ZeroDivisionError, "division by zero"),
    (lambda: Value(0.0) ** -1, ZeroDivisionError, "cannot be raised to a negative power"),
    (lambda: Value(0.0) ** Value(-2.0), ZeroDivisionError, "negative power"),
    (lambda: Value(-8.0) ** (1 / 3), ValueError, "negative base needs a whole exponent"),
    (lambda: Value(1.0) + "a", TypeError, "for +: 'Value' and 'str'"),
    (lambda: Value(1.0) + [1], TypeError, "for +: 'Value' and 'list'"),
    (lambda: "a" * Value(1.0), TypeError, "for *: 'str' and 'Value'"),
    (lambda: Value(1.0) - None, TypeError, "for -: 'Value' and 'NoneType'"),
    (lambda: Value(1.0) / "2", TypeError, "for /: 'Value' and 'str'"),
    (lambda: Value(1.0) ** "2", TypeError, "for **: 'Value' and 'str'"),
    (lambda: Value("3"), TypeError, "needs a real number, got str"),
    (lambda: Value(torch.tensor(1.0)), TypeError, "item()"),
])
def test_bad_input_raises_with_a_hint(make, error, phrase):
    with pytest.raises(error, match="e.g.") as info:
        make()
    assert phrase in str(info.value)


# --- deep graphs: no recursion anywhere ---

def chain(n):
    x = Value(0.5, "x")
    v = x
    for _ in range(n):
        v = v + x
    return x, v


def test_deeper_than_the_recursion_limit():
    x, v = chain(20_000)
    v.backward()
    assert x.grad == pytest.approx(20_001.0)


@pytest.mark.slow
def test_a_million_node_chain_backpropagates_and_is_freed():
    # The graph holds no reference cycles, so pausing the cyclic garbage collector
    # (which would rescan torch's and pytest's objects many times) only saves time.
    gc.disable()
    try:
        x, v = chain(1_000_000)
        v.backward()
        assert x.grad == pytest.approx(1_000_001.0)
        del v  # freeing a million nested nodes must not recurse either
    finally:
        gc.enable()
    assert x.grad == pytest.approx(1_000_001.0)


def peak_bytes_per_node(n):
    tracemalloc.start()
    try:
        x, v = chain(n)
        v.backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / n


def test_memory_stays_proportional_to_the_graph():
    small, large = peak_bytes_per_node(3_000), peak_bytes_per_node(30_000)
    assert large < 1.5 * small
    assert large < 400  # bytes per node, the backward pass included
