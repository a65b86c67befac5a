"""A minigrad tensor prints as torch's, with ``minigrad`` for ``torch`` (chapter 05).

Notebooks show these reprs and strict nbval compares them, so they must match torch's
layout exactly and never show a memory address.
"""

import numpy as np
import pytest
import torch

import minigrad

REPRS = [
    lambda L: L.tensor(6.0),
    lambda L: L.tensor([2.0, 4.0, 6.0], requires_grad=True),
    lambda L: L.tensor([[10.0, 10.0, 10.0], [26.0, 26.0, 26.0]]),
    lambda L: L.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda L: (L.tensor(3.0, dtype=L.float64, requires_grad=True) ** 2),
    lambda L: L.tensor([1.5, 2.0], dtype=L.float64),
    lambda L: L.tensor([1, 2, 300]),
    lambda L: L.tensor([0.1234567, -2.0, 3.5]),
    lambda L: L.tensor([1e-5, 1.0]),
    lambda L: L.tensor([1e10, 1.0, -3.0]),
    lambda L: L.tensor([[0.5, -1.25], [3.0, 100.0]], requires_grad=True).sum(0),
    lambda L: L.tensor(np.linspace(-3, 3, 12, dtype=np.float32).reshape(2, 3, 2)),
    lambda L: L.tensor(np.linspace(-1, 1, 40, dtype=np.float32)),
    lambda L: L.tensor(np.arange(2000, dtype=np.float32).reshape(40, 50) / 7),
    lambda L: L.tensor(np.arange(3000, dtype=np.float32) / 3),
    lambda L: L.tensor([float("nan"), float("inf"), 1.0]),
    lambda L: L.tensor([]),
    lambda L: L.zeros(2, 0),
    lambda L: L.tensor([1, 2])[:0],
    lambda L: L.tensor([1.0, -2.0]) > 0,
    lambda L: L.tensor([[1.0, 2.0]]).mean(),
    lambda L: L.tensor(np.linspace(0, 1, 30).reshape(5, 6), requires_grad=True) * 1,
]


@pytest.mark.parametrize("make", REPRS, ids=[str(i) for i in range(len(REPRS))])
def test_repr_reads_like_torch(make):
    assert repr(make(minigrad)) == repr(make(torch)).replace("torch.", "minigrad.")


def test_shape_dtype_and_node_reprs_have_torch_look_and_no_address():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert repr(minigrad.zeros(3, 4).shape) == "minigrad.Size([3, 4])"
    assert minigrad.zeros(3, 4).shape == (3, 4)
    assert repr(y.grad_fn) == "<MulBackward0 object>"
    assert y.grad_fn.name() == "MulBackward0"
    assert repr(y.grad_fn.next_functions) == "(<AccumulateGrad object>, None)"
    assert repr(minigrad.float64) == "minigrad.float64"
    assert minigrad.tensor([1.0]).dtype == minigrad.float32
