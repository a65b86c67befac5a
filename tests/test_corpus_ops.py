"""Parity with torch for what the corpus programs (scripts/as_torch.py) needed: item
assignment, var/std, Generator/randint/multinomial, softmax/log_softmax/one_hot,
torch.all/any, keepdims=, Module.to/double/float."""

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn.functional as F


def _pair(shape=(4, 5), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return minigrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


@pytest.mark.parametrize("kwargs", [{}, {"dim": 0, "keepdim": True}, {"dim": 1},
                                    {"dim": 1, "unbiased": False}, {"dim": (0, 1)},
                                    {"dim": 0, "correction": 2}, {"dim": 0, "keepdims": True}])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std(name, kwargs):
    x, t = _pair()
    y, z = getattr(x, name)(**kwargs), getattr(t, name)(**kwargs)
    w = np.random.default_rng(1).standard_normal(z.shape)
    (y * minigrad.tensor(w)).sum().backward()
    (z * torch.tensor(w)).sum().backward()
    assert y.dtype == minigrad.float64 and tuple(y.shape) == tuple(z.shape)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_var_refusals():
    with pytest.raises(RuntimeError, match="only support floating point.*Fix:"):
        minigrad.tensor([1, 2]).var()
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1, 2]).var()
    with pytest.raises(TypeError, match="received an invalid combination of arguments.*Fix:"):
        minigrad.ones(3).var(0, unbiased=True, correction=1)
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        torch.ones(3).var(0, unbiased=True, correction=1)


def test_float32_var():
    a = np.random.default_rng(2).standard_normal((32, 7)).astype(np.float32)
    y, z = minigrad.tensor(a).var(0), torch.tensor(a).var(0)
    assert y.dtype == minigrad.float32
    np.testing.assert_allclose(y.numpy(), z.numpy(), rtol=1e-5)


def test_setitem_writes_and_bumps_version():
    for lib in (minigrad, torch):
        h = lib.tensor([[-1.0, 2.0], [3.0, -4.0]])
        g = lib.ones(2, 2)
        version = g._version
        g[h < 0] = 0
        g[0, 1] = 5.0
        g[1] = lib.tensor([7.0, 8.0])
        assert g._version > version
        assert g.tolist() == [[0.0, 5.0], [7.0, 8.0]]


def test_setitem_through_a_view_writes_the_base():
    for lib in (minigrad, torch):
        base = lib.zeros(2, 3)
        view = base[1]
        view[0] = 4.0
        assert base.tolist() == [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0]]


def test_setitem_refusals():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad.*Fix:"):
        minigrad.ones(3, requires_grad=True)[0] = 2.0
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        torch.ones(3, requires_grad=True)[0] = 2.0
    x, t = minigrad.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    with minigrad.no_grad():
        x[0] = 2.0
    with torch.no_grad():
        t[0] = 2.0
    assert x.tolist() == t.tolist() and x.requires_grad


@pytest.mark.parametrize("case", range(4))
def test_recorded_setitem_values_and_gradients(case):
    def program(lib):
        a = np.arange(6.0).reshape(2, 3)
        w = lib.tensor(a + 1, requires_grad=True)
        v = lib.tensor([7.0, 8.0], dtype=lib.float64, requires_grad=True)
        d = lib.zeros(2, 3, dtype=lib.float64)
        if case == 0:
            d[1, :2] = v * w[0, :2]
        elif case == 1:
            d[lib.tensor(0)] += w[1] * 3
        elif case == 2:
            d = w * 1
            d[d > 4] = v[0]
        else:
            d = w * 1
            d[[0, 1], [2, 0]] = v
            d[0, 1] = 5.0
        (d * lib.tensor(a) * d).sum().backward()
        return d.tolist(), w.grad.tolist(), None if v.grad is None else v.grad.tolist()

    assert program(minigrad) == program(torch)


def test_recorded_setitem_into_a_view_is_recorded_as_torch():
    grads = []
    for lib in (minigrad, torch):
        x = lib.ones(2, 3, requires_grad=True)
        d = x * 1
        d[0][1] = 5.0  # into the view d[0]: the base's node becomes CopySlices
        assert d.grad_fn.name().endswith("CopySlices")
        (d * d).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_generator_reproduces_its_draws():
    draws = []
    for _ in range(2):
        g = minigrad.Generator().manual_seed(2147483647)
        assert isinstance(g, minigrad.Generator) and g.initial_seed() == 2147483647
        draws.append((minigrad.randn(3, generator=g).tolist(),
                      minigrad.rand(2, generator=g).tolist(),
                      minigrad.randint(0, 10, (5,), generator=g).tolist()))
    assert draws[0] == draws[1]
    g = minigrad.Generator().manual_seed(1)
    assert minigrad.randn(3, generator=g).tolist() != draws[0][0]


def test_randint_and_multinomial_like_torch():
    g = minigrad.Generator().manual_seed(0)
    r, rt = minigrad.randint(3, 7, (1000,), generator=g), torch.randint(3, 7, (1000,))
    assert r.dtype == minigrad.int64 and rt.dtype == torch.int64
    assert set(r.tolist()) == set(rt.tolist()) == {3, 4, 5, 6}
    assert tuple(minigrad.randint(5, (2, 3)).shape) == (2, 3)
    with pytest.raises(RuntimeError, match="expects 'from' to be less than 'to'.*Fix:"):
        minigrad.randint(5, 5, (2,))
    with pytest.raises(RuntimeError, match="expects 'from' to be less than 'to'"):
        torch.randint(5, 5, (2,))
    probs = [[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]]
    m = minigrad.multinomial(minigrad.tensor(probs), 1, generator=g)
    mt = torch.multinomial(torch.tensor(probs), 1)
    assert m.dtype == minigrad.int64 and tuple(m.shape) == tuple(mt.shape) == (2, 1)
    assert m[0, 0].item() == mt[0, 0].item() == 1 and m[1, 0].item() in (0, 2)
    assert sorted(minigrad.multinomial(minigrad.tensor([1.0, 1, 1]), 3).tolist()) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.*Fix:"):
        minigrad.multinomial(minigrad.tensor([1.0, 1.0]), 3)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
        torch.multinomial(torch.tensor([1.0, 1.0]), 3)


@pytest.mark.parametrize("ours,theirs", [(F.softmax, torch.softmax),
                                         (F.log_softmax, torch.log_softmax)])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax(ours, theirs, dim):
    x, t = _pair((3, 6), seed=dim + 5)
    y, z = ours(x, dim), theirs(t, dim)
    w = np.random.default_rng(3).standard_normal((3, 6))
    (y * minigrad.tensor(w)).sum().backward()
    (z * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_one_hot():
    labels = [[0, 3], [2, 1]]
    for args in ((), (5,)):
        y = F.one_hot(minigrad.tensor(labels), *args)
        z = torch.nn.functional.one_hot(torch.tensor(labels), *args)
        assert y.dtype == minigrad.int64 and y.tolist() == z.tolist()
    for bad, phrase in (([0.0, 1.0], "only applicable to index tensor"),
                        ([-1, 1], "must be non-negative")):
        with pytest.raises(RuntimeError, match=phrase + ".*Fix:"):
            F.one_hot(minigrad.tensor(bad), 3)
        with pytest.raises(RuntimeError, match=phrase):
            torch.nn.functional.one_hot(torch.tensor(bad), 3)
    with pytest.raises(RuntimeError, match="smaller than num_classes.*Fix:"):
        F.one_hot(minigrad.tensor([0, 5]), 3)


def test_all_any_and_keepdims():
    a = [[1.0, -2.0], [3.0, 4.0]]
    x, t = minigrad.tensor(a), torch.tensor(a)
    assert minigrad.all(x > 0).item() == torch.all(t > 0).item() is False
    assert minigrad.all(x > -5).item() == torch.all(t > -5).item() is True
    assert minigrad.all(x > 0, 1).tolist() == torch.all(t > 0, 1).tolist()
    assert (x > 3).any(0).tolist() == (t > 3).any(0).tolist()
    for name in ("sum", "mean"):
        assert getattr(x, name)(1, keepdims=True).tolist() == getattr(t, name)(
            1, keepdims=True).tolist()
    assert x.max(1, keepdims=True).values.tolist() == t.max(1, keepdims=True).values.tolist()


def test_module_to_double_float():
    for lib in (minigrad, torch):
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        assert net.to("cpu") is net
        assert net.double() is net
        assert net[0].weight.dtype == lib.float64 and net[1].running_mean.dtype == lib.float64
        assert net[1].num_batches_tracked.dtype == lib.int64
        net.to(lib.float32)
        assert net[0].bias.dtype == lib.float32
        net.to("cpu", lib.float64)
        assert net[0].weight.dtype == lib.float64
        assert net.float()[1].weight.dtype == lib.float32
