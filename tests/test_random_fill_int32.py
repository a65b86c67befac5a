"""``normal_``/``uniform_``/``random_`` with ``generator=``, and the ``int32`` dtype,
against torch (values where a seed cannot match: ranges, dtypes, nodes, refusals)."""

import numpy as np
import pytest
import torch

import minigrad
from tests.edge_parity import check_snippet

ERRORS = [
    "torch.ones(2).normal_(0, -1)",
    "torch.ones(2).uniform_(1, 0)",
    "torch.ones(2, dtype=torch.long).normal_()",
    "torch.ones(2, dtype=torch.long).uniform_()",
    "torch.ones(2).random_(3, 3)",
    "torch.ones(2, dtype=torch.bool).random_(5)",
    "torch.ones(2).normal_(generator=3)",
    "x = torch.ones(2, requires_grad=True)\nx.normal_()",
    "x = torch.ones(2, requires_grad=True)\nx[0:1].uniform_()",
]


@pytest.mark.parametrize("snippet", ERRORS)
def test_random_fill_refusals_match_torch(snippet):
    theirs, ours = check_snippet(snippet)
    assert theirs is not None
    assert "Fix:" in str(ours)


RECORDED = ("x = torch.ones(3, dtype=torch.float64, requires_grad=True)\ny = x * 2\n"
            "y[1:].normal_()\na = y.grad_fn.name().split(':')[-1]\ny.uniform_(2, 3)\n"
            "b = y.grad_fn.name()\n"
            "y.random_(4)\nc = y.grad_fn.name()\ny.sum().backward()\n"
            "out = [a, b, c, x.grad, y.dtype]")


def test_random_fill_in_a_graph_gives_a_zero_gradient():
    check_snippet(RECORDED)


@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_random_fill_ranges(lib):
    g = lib.Generator().manual_seed(3)
    t = lib.empty(2000, dtype=lib.float64)
    n = t.normal_(2.0, 0.5, generator=g).numpy().copy()
    assert abs(n.mean() - 2.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    u = t.uniform_(-1.0, 3.0, generator=g).numpy().copy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.1
    r = t.random_(2, 6, generator=g).numpy().copy()
    assert set(np.unique(r)) == {2.0, 3.0, 4.0, 5.0}
    r = lib.zeros(500, dtype=lib.int64).random_(3).numpy()
    assert set(np.unique(r)) == {0, 1, 2}
    big = lib.zeros(500, dtype=lib.float32).random_().numpy()
    assert big.max() > 2 ** 20 and big.max() <= 2 ** 24 and (big == np.round(big)).all()


def test_random_fill_follows_its_generator():
    draws = [minigrad.empty(4).normal_(generator=minigrad.Generator().manual_seed(7)).numpy()
             for _ in range(2)]
    np.testing.assert_array_equal(draws[0], draws[1])


@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_random_fill_inside_vmap_error_mode_refuses(lib):
    with pytest.raises(RuntimeError, match="randomness error mode"):
        lib.func.vmap(lambda a: lib.ones(2).normal_() + a)(lib.ones(3, 2))


INT32 = (
    "a = torch.tensor([1, -2, 3], dtype=torch.int32)\nb = torch.tensor([4, 5, 6])\n"
    "f = torch.tensor([0.5, 1.5, 2.5])\n"
    "out = [a, a + 1, a * 2, a + b, a * f, a * 2.5, a / 2, a.sum(), a.max(), a.float(), "
    "b.int(), a.to(torch.int64), a.dtype, a > 1, a.abs(), -a, a ** 2, "
    "torch.zeros(2, dtype=torch.int32), a[1:], a.reshape(3, 1), "
    "torch.tensor(3, dtype=torch.int32) + f, torch.arange(3, dtype=torch.int32), a.argmax(), "
    "torch.tensor([1.7, -2.7]).int(), a.min(), torch.int32, torch.int, a.is_floating_point(), "
    "torch.tensor([2], dtype=torch.int32) + torch.tensor(2.0, dtype=torch.float64)]")


def test_int32_matches_torch():
    check_snippet(INT32, rtol=0, atol=0)


def test_int32_refusals_match_torch():
    for snippet in ["torch.tensor([1, 2], dtype=torch.int32).add_(1.5)",
                    "torch.tensor([1, 2], dtype=torch.int32).mean()",
                    "torch.tensor([1, 2], dtype=torch.int32).softmax(0)"]:
        theirs, ours = check_snippet(snippet)
        assert theirs is not None and "Fix:" in str(ours), snippet
