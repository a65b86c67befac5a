"""torch's autograd rules, checked against torch (chapters 05, 08, 09, 12).

Only leaves keep ``.grad``; gradients add up, across consumers and across calls; saved
values are freed after backward; grad modes nest; a tensor prints as torch's does.
"""

import warnings

import numpy as np
import pytest
import torch

import minigrad

LIBS = [torch, minigrad]


def _grads(lib, build):
    """Run ``build(lib)`` -> (loss, leaves); backward; return the leaves' grads as lists."""
    loss, leaves = build(lib)
    loss.backward()
    return [leaf.grad.tolist() for leaf in leaves]


REUSE = {
    "x_times_x": lambda L: (lambda x: ((x * x).sum(), [x]))(
        L.tensor([1.0, -2.0, 3.0], requires_grad=True)),
    "a_plus_a": lambda L: (lambda a: ((a + a).sum(), [a]))(
        L.tensor([1.0, 2.0], requires_grad=True)),
    "two_consumers": lambda L: (lambda x: (lambda h: ((h * 3 + h.tanh()).sum(), [x]))(
        x.exp()))(L.tensor([0.1, 0.2], requires_grad=True)),
    "leaf_used_three_times": lambda L: (lambda w: ((w * 2 + w ** 2 - w).sum(), [w]))(
        L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)),
}
REUSE["diamond"] = lambda L: (lambda x: ((lambda h: ((h * h + h) * h).sum())(x * 2 + 1), [x]))(
    L.tensor([0.5, -1.0], requires_grad=True))


@pytest.mark.parametrize("name", list(REUSE))
def test_reuse_adds_gradients_like_torch(name):
    ours, theirs = _grads(minigrad, REUSE[name]), _grads(torch, REUSE[name])
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-6)


def test_gradients_accumulate_across_backward_calls():
    x = minigrad.tensor(2.0, requires_grad=True)
    (x ** 2).backward()
    first = x.grad
    (3 * x).backward()
    assert abs(x.grad.item() - 7.0) < 1e-6
    assert first is x.grad  # added in place, as torch does


def test_zeroing_a_0d_gradient_in_place_like_torch():
    ours = minigrad.tensor(2.0, requires_grad=True)
    theirs = torch.tensor(2.0, requires_grad=True)
    for x in (ours, theirs):
        (x ** 2).backward()
        (3 * x).backward()
    kept = ours.grad
    ours.grad.zero_()
    theirs.grad.zero_()
    assert kept.item() == theirs.grad.item() == 0.0
    (ours ** 2).backward()
    (theirs ** 2).backward()
    assert ours.grad.item() == theirs.grad.item() == 4.0
    model = minigrad.nn.Linear(1, 1)
    model(minigrad.ones(1)).sum().backward()
    model.zero_grad(set_to_none=False)
    assert model.bias.grad.tolist() == [0.0] and model.weight.grad.tolist() == [[0.0]]
    s = minigrad.tensor(1.5, requires_grad=True)
    (s * 2).backward()
    minigrad.optim.SGD([s], lr=0.1).zero_grad(set_to_none=False)
    assert s.grad.item() == 0.0


def test_leaf_gradients_do_not_share_memory():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    a.grad.zero_()
    assert b.grad.tolist() == [1.0, 1.0]
    g = minigrad.tensor([5.0, 6.0])
    c = minigrad.tensor([0.0, 0.0], requires_grad=True)
    c.backward(g)
    c.grad.add_(1.0)
    assert g.tolist() == [5.0, 6.0]


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_only_leaves_get_grad_unless_retained():
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y * y
        z.retain_grad()
        z.sum().backward()
        assert x.is_leaf and not y.is_leaf
        assert y.grad is None
        assert z.grad.tolist() == [1.0, 1.0]
        assert z.retains_grad and not y.retains_grad


def test_retained_grad_accumulates_like_torch():
    results = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.sum().backward(retain_graph=True)
        (y * 2).sum().backward()
        results.append((y.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_saved_values_are_freed_after_backward():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.sum().backward(retain_graph=True)
    assert len(node._saved) == 1
    y.sum().backward()
    assert node._saved == ()


def test_deep_graph_of_100000_ops_backpropagates():
    x = minigrad.tensor(1.0, dtype=minigrad.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert abs(x.grad.item() - 1.0) < 1e-12


def test_dot_g_attribute_as_in_seed_001():
    t = minigrad.ones(2, 3)
    t.g = minigrad.zeros(2, 3)
    t.anything = 5
    assert t.g.shape == (2, 3) and t.anything == 5


def test_detach_shares_data_and_leaves_the_graph():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).detach()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    d = x.detach()
    d.numpy()[0] = 10.0
    assert x.tolist()[0] == 10.0


GRAD_MODES = {
    "no_grad": lambda L, x: _run_in(L.no_grad(), x),
    "enable_inside_no_grad": lambda L, x: _nested(L.no_grad(), L.enable_grad(), x),
    "no_grad_inside_enable": lambda L, x: _nested(L.enable_grad(), L.no_grad(), x),
    "set_false": lambda L, x: _run_in(L.set_grad_enabled(False), x),
    "set_true_inside_no_grad": lambda L, x: _nested(L.no_grad(), L.set_grad_enabled(True), x),
    "inference_mode": lambda L, x: _run_in(L.inference_mode(), x),
    "inference_mode_false": lambda L, x: _run_in(L.inference_mode(False), x),
    "decorator": lambda L, x: L.no_grad()(lambda: (x * 2, L.is_grad_enabled()))(),
    "bare_decorator": lambda L, x: L.no_grad(lambda: (x * 2, L.is_grad_enabled()))(),
    "enable_decorator": lambda L, x: _run_in(
        L.no_grad(), x, inner=L.enable_grad()(lambda: (x * 2, L.is_grad_enabled()))),
}


def _run_in(ctx, x, inner=None):
    with ctx:
        return inner() if inner else (x * 2, torch.is_grad_enabled() if isinstance(
            x, torch.Tensor) else minigrad.is_grad_enabled())


def _nested(outer, inner, x):
    with outer, inner:
        return x * 2, (torch if isinstance(x, torch.Tensor) else minigrad).is_grad_enabled()


@pytest.mark.parametrize("name", list(GRAD_MODES))
def test_grad_modes_nest_like_torch(name):
    seen = []
    for lib in LIBS:
        x = lib.tensor([1.0], requires_grad=True)
        y, enabled = GRAD_MODES[name](lib, x)
        seen.append((y.requires_grad, y.grad_fn is None, enabled, lib.is_grad_enabled()))
    assert seen[0] == seen[1]
    assert minigrad.is_grad_enabled()


def test_set_grad_enabled_as_a_call():
    minigrad.set_grad_enabled(False)
    try:
        assert not (minigrad.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        minigrad.set_grad_enabled(True)
    assert minigrad.is_grad_enabled()


def test_grad_mode_restored_after_an_exception():
    with pytest.raises(ValueError), minigrad.no_grad():
        raise ValueError
    assert minigrad.is_grad_enabled()


def test_factories_and_dtypes_follow_torch():
    for make, dtype in [(lambda L: L.tensor([1.0, 2.0]), "float32"),
                        (lambda L: L.tensor([1, 2]), "int64"),
                        (lambda L: L.tensor(np.array([1.0])), "float64"),
                        (lambda L: L.arange(5), "int64"),
                        (lambda L: L.arange(0, 1, 0.25), "float32"),
                        (lambda L: L.zeros(2, 3), "float32"),
                        (lambda L: L.ones((2, 3), dtype=L.float64), "float64"),
                        (lambda L: L.randn(2, 3), "float32")]:
        assert str(make(torch).dtype) == f"torch.{dtype}"
        assert repr(make(minigrad).dtype) == f"minigrad.{dtype}"
        assert tuple(make(minigrad).shape) == tuple(make(torch).shape)
    assert minigrad.arange(1, 7, 2).tolist() == torch.arange(1, 7, 2).tolist()


def test_manual_seed_makes_randn_reproducible():
    minigrad.manual_seed(3)
    a = minigrad.randn(4)
    minigrad.manual_seed(3)
    assert a.tolist() == minigrad.randn(4).tolist()


def test_conversions_and_attributes():
    x = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert x.size() == (2, 2) and x.size(1) == 2 and x.dim() == 2 and x.ndim == 2
    assert x.numel() == 4 and len(x) == 2
    assert isinstance(x.detach().numpy(), np.ndarray)
    assert x.double().dtype == minigrad.float64 and x.float() is x
    assert x.detach().numpy() is x.data.numpy()
    assert x.sum().item() == pytest.approx(10.0)
    assert f"{x.sum():.1f}" == "10.0"
    assert float(x[0, 0]) == pytest.approx(1.0)
    y = minigrad.tensor([1.0]).requires_grad_()
    assert y.requires_grad and y.is_leaf
    z = minigrad.zeros(2)
    z.fill_(3.0)
    assert z.tolist() == [3.0, 3.0]


def test_numpy_operand_on_the_left_defers_to_tensor():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([2.0, 3.0], dtype=np.float32) * x
    assert isinstance(y, minigrad.Tensor) and y.requires_grad


def test_reading_grad_of_a_non_leaf_warns_like_torch():
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.sum().backward(retain_graph=True)
        with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
            assert y.grad is None
        y.retain_grad()
        y.sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # retained: reading it does not warn
            assert y.grad.tolist() == [1.0, 1.0]
        assert x.grad.tolist() == [4.0, 4.0]


def test_in_place_change_of_a_saved_0d_output_is_caught_like_torch():
    for lib in LIBS:
        x = lib.tensor(3.0, requires_grad=True)
        h = lib.exp(x)  # ExpBackward0 saves its output, a 0-d tensor
        h.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            h.backward()


def _step_before_backward(lib):
    """forward, then an in-place weight update, then backward: legal in torch when the
    input batch needs no gradient (the weight was not saved for backward)."""
    lib.manual_seed(0)
    layer = lib.nn.Linear(3, 2)
    x = lib.ones(4, 3)
    loss = layer(x).sum()
    with lib.no_grad():
        layer.weight -= 0.1 * lib.ones(2, 3)
    loss.backward()
    return layer.weight.grad, layer.bias.grad


def test_linear_saves_the_weight_only_when_the_input_needs_a_gradient():
    ours, theirs = _step_before_backward(minigrad), _step_before_backward(torch)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    layer = minigrad.nn.Linear(3, 2)
    x = minigrad.ones(4, 3, requires_grad=True)  # now the weight is needed for x.grad
    loss = layer(x).sum()
    with minigrad.no_grad():
        layer.weight -= 0.1 * minigrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@pytest.mark.parametrize("mode", [1, None, lambda: 0])
def test_set_grad_enabled_needs_a_bool_like_torch(mode):
    with pytest.raises(TypeError) as theirs:
        torch.set_grad_enabled(mode)
    torch.set_grad_enabled(True)
    with pytest.raises(TypeError, match=r"argument 'enabled' \(position 1\) must be bool"):
        minigrad.set_grad_enabled(mode)
    assert "must be bool" in str(theirs.value)
    assert minigrad.is_grad_enabled()
