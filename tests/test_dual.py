"""minigrad.dual.Dual (chapter 14): every op's tangent against torch's forward_ad on
0-d float64 tensors, and the derivative of the course's scalar examples."""

import math

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as fwad
from hypothesis import given, settings
from hypothesis import strategies as st

from minigrad.dual import Dual, derivative

FUNCTIONS = {
    "x ** 2": lambda x: x ** 2,
    "x * x + 2 * x": lambda x: x * x + 2 * x,
    "(x + 1) ** 2": lambda x: (x + 1) ** 2,
    "x ** 3 - 1 / x": lambda x: x ** 3 - 1 / x,
    "3 - x / 2": lambda x: 3 - x / 2,
    "-x * 4": lambda x: -x * 4,
    "exp(x) * log(x)": lambda x: x.exp() * x.log(),
    "tanh(2 x) + sigmoid(x)": lambda x: (2 * x).tanh() + x.sigmoid(),
    "x ** 0.5 + x ** 0": lambda x: x ** 0.5 + x ** 0,
    "2 / (x + x * x)": lambda x: 2 / (x + x * x),
}


def torch_dual(f, x, tangent=1.0):
    with fwad.dual_level():
        t = fwad.make_dual(torch.tensor(x, dtype=torch.float64),
                           torch.tensor(tangent, dtype=torch.float64))
        primal, tan = fwad.unpack_dual(f(t))
        return primal.item(), tan.item()


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("x", [0.7, 3.0, 1.9])
def test_each_function_against_torch_forward_ad(name, x):
    f = FUNCTIONS[name]
    y = f(Dual(x, 1.0))
    primal, tangent = torch_dual(f, x)
    assert y.primal == pytest.approx(primal, rel=1e-12)
    assert y.tangent == pytest.approx(tangent, rel=1e-12, abs=1e-14)


def test_the_course_examples():
    assert derivative(lambda x: x ** 2, 3.0) == 6.0
    assert derivative(lambda x: x * x + 2 * x, 3.0) == 8.0
    assert derivative(lambda x: (x + 1) ** 2, 3.0) == 8.0


@settings(deadline=None, max_examples=50)
@given(st.floats(-3, 3), st.floats(-3, 3), st.floats(-2, 2), st.floats(-2, 2))
def test_product_of_two_duals(a, b, da, db):
    y = Dual(a, da) * Dual(b, db) + Dual(a, da).tanh()
    with fwad.dual_level():
        at = fwad.make_dual(torch.tensor(a, dtype=torch.float64),
                            torch.tensor(da, dtype=torch.float64))
        bt = fwad.make_dual(torch.tensor(b, dtype=torch.float64),
                            torch.tensor(db, dtype=torch.float64))
        primal, tangent = fwad.unpack_dual(at * bt + torch.tanh(at))
    np.testing.assert_allclose([y.primal, y.tangent], [primal.item(), tangent.item()],
                               rtol=1e-12, atol=1e-14)


def test_a_number_is_a_constant_and_errors():
    y = 5 + Dual(2.0, 1.0) * 3
    assert (y.primal, y.tangent) == (11.0, 3.0)
    assert repr(Dual(2.0, 1.0)) == "Dual(primal=2.0, tangent=1.0)"
    with pytest.raises(TypeError, match="needs real numbers"):
        Dual("2")
    with pytest.raises(TypeError, match="unsupported operand"):
        Dual(1.0) + [1]
    with pytest.raises(TypeError, match="Dual exponent"):
        Dual(2.0) ** Dual(2.0, 1.0)
    assert math.isclose(derivative(lambda x: x.exp(), 0.0), 1.0)
