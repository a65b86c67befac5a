"""``nn.functional.dropout`` and ``nn.Dropout`` against torch (chapter 09).

torch is the oracle wherever dropout is deterministic (eval, ``p`` of 0 or 1, the
errors, the repr, the scale of a kept element); the random masks differ between the
libraries (each has its own generator), so for them the properties that must hold are
checked: every element is zeroed or scaled by ``1 / (1 - p)``, the gradient is that
mask, about ``1 - p`` of the elements are kept, and ``manual_seed`` repeats a mask.
"""

import numpy as np
import pytest
import torch

import minigrad
from minigrad import nn
from minigrad.nn import functional as F

X = np.linspace(-2.0, 3.0, 24).reshape(4, 6)  # float64, no zero: output / x is the mask


def pair(values=X, requires_grad=True):
    """The same float64 tensor in both libraries."""
    ours = minigrad.tensor(values, requires_grad=requires_grad)
    theirs = torch.tensor(values, requires_grad=requires_grad)
    return ours, theirs


def test_eval_and_training_false_return_the_input_itself_as_torch():
    x, x_t = pair()
    assert torch.nn.functional.dropout(x_t, 0.5, training=False) is x_t
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.5, training=False, inplace=True) is x
    layer, layer_t = nn.Dropout(0.5), torch.nn.Dropout(0.5)
    assert layer.eval() is layer
    layer_t.eval()
    assert layer_t(x_t) is x_t and layer(x) is x
    assert x.grad_fn is None and x.detach().numpy().tolist() == X.tolist()


def test_p_zero_and_an_empty_input_are_returned_as_they_are():
    x, x_t = pair()
    assert torch.nn.functional.dropout(x_t, 0.0) is x_t
    assert F.dropout(x, 0.0) is x and nn.Dropout(0.0)(x) is x
    empty, empty_t = pair(np.zeros((0, 3)))
    assert torch.nn.functional.dropout(empty_t, 0.5) is empty_t
    assert F.dropout(empty, 0.5) is empty


def test_p_one_gives_zeros_and_a_zero_gradient_as_torch():
    x, x_t = pair()
    out, out_t = F.dropout(x, 1.0), torch.nn.functional.dropout(x_t, 1.0)
    assert out.grad_fn.name() == out_t.grad_fn.name() == "MulBackward0"
    np.testing.assert_array_equal(out.detach().numpy(), out_t.detach().numpy())
    assert not out.detach().numpy().any()
    out.sum().backward()
    out_t.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), x_t.grad.numpy())
    assert not x.grad.numpy().any() and not np.isnan(x.grad.numpy()).any()
    # A layer with p=1 in a network: the layers before it get zero gradients, not nan.
    model = nn.Sequential(nn.Linear(6, 3, dtype=minigrad.float64), nn.Dropout(1.0))
    model(minigrad.tensor(X)).sum().backward()
    assert not model[0].weight.grad.numpy().any() and not model[0].bias.grad.numpy().any()


@pytest.mark.parametrize("p", [-0.1, 1.5, 2])
def test_p_outside_0_1_is_a_value_error_with_torch_message(p):
    x, x_t = pair()
    for make in (lambda: torch.nn.functional.dropout(x_t, p),
                 lambda: torch.nn.functional.dropout(x_t, p, training=False),
                 lambda: torch.nn.Dropout(p)):
        with pytest.raises(ValueError) as theirs:
            make()
        message = str(theirs.value)
        assert message == f"dropout probability has to be between 0 and 1, but got {p}"
        for ours in (lambda: F.dropout(x, p), lambda: F.dropout(x, p, training=False),
                     lambda: nn.Dropout(p)):
            with pytest.raises(ValueError) as error:
                ours()
            assert str(error.value).startswith(message + ". Fix: ")


@pytest.mark.parametrize("args", [(), (0.2,), (0.25, True), (1,), (0,)])
def test_repr_as_torch(args):
    assert repr(nn.Dropout(*args)) == repr(torch.nn.Dropout(*args))
    assert nn.Dropout(*args).extra_repr() == torch.nn.Dropout(*args).extra_repr()
    ours = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dropout(*args))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Dropout(*args))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_dtype_is_kept(dtype, p):
    x = minigrad.tensor(X, dtype=dtype, requires_grad=True)
    out = F.dropout(x, p)
    assert out.dtype == x.dtype
    out.sum().backward()
    assert x.grad.dtype == x.dtype


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("p", [0.1, 0.25, 1 / 3, 0.5, 0.7, 0.9, 0.999])
def test_a_kept_element_is_scaled_exactly_as_torch_scales_it(dtype, p):
    """torch computes the mask's value as 1 / (1 - p) in the tensor's dtype; so does
    minigrad (in float32, 1 / float32(1 - p), not float32(1 / (1 - p)))."""
    ones_t = torch.ones(20_000, dtype=dtype)
    ones = minigrad.tensor(ones_t.numpy())
    theirs = set(torch.nn.functional.dropout(ones_t, p).tolist()) - {0.0}
    ours = set(F.dropout(ones, p).detach().numpy().tolist()) - {0.0}
    assert ours == theirs and len(ours) == 1


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_each_element_is_zeroed_or_scaled_and_the_gradient_is_the_mask(p):
    minigrad.manual_seed(11)
    x = minigrad.tensor(X, requires_grad=True)
    out = F.dropout(x, p)
    assert out.grad_fn.name() == torch.nn.functional.dropout(
        torch.ones(2, requires_grad=True), p).grad_fn.name() == "MulBackward0"
    scale = 1.0 / (1.0 - p)  # float64: 1 / (1 - p) as torch computes it
    kept = out.detach().numpy() != 0
    assert 0 < kept.sum() < kept.size  # both kinds occur in 24 elements at these seeds
    np.testing.assert_array_equal(out.detach().numpy()[kept], X[kept] * scale)
    np.testing.assert_allclose(out.detach().numpy()[kept], X[kept] / (1 - p), rtol=1e-15, atol=0)
    upstream = np.arange(1.0, 25.0).reshape(4, 6)
    out.backward(minigrad.tensor(upstream))
    mask = out.detach().numpy() / X  # from the output alone: 0 or 1 / (1 - p) elementwise
    np.testing.assert_allclose(mask[kept], scale, rtol=1e-15, atol=0)
    np.testing.assert_allclose(x.grad.numpy(), upstream * mask, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(x.grad.numpy(), upstream * np.where(kept, scale, 0.0))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_the_kept_fraction_is_one_minus_p(p):
    minigrad.manual_seed(0)
    out = F.dropout(minigrad.ones(100_000, dtype=minigrad.float64), p)
    assert abs((out.detach().numpy() != 0).mean() - (1 - p)) < 0.01


def test_manual_seed_repeats_the_mask_and_another_seed_changes_it():
    x = minigrad.ones(1000, dtype=minigrad.float64)
    minigrad.manual_seed(5)
    first, second = F.dropout(x, 0.5).detach().numpy(), F.dropout(x, 0.5).detach().numpy()
    minigrad.manual_seed(5)
    again = nn.Dropout(0.5)(x).detach().numpy()
    minigrad.manual_seed(6)
    other = F.dropout(x, 0.5).detach().numpy()
    np.testing.assert_array_equal(first, again)
    assert (first != second).any() and (first != other).any()


def test_the_module_follows_train_and_eval_inside_sequential():
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 50, dtype=minigrad.float64), nn.ReLU(), nn.Dropout(0.5))
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    x = minigrad.tensor(X)
    hidden = model[1](model[0](x)).detach().numpy()
    trained = model(x)
    assert model[2].training and trained.grad_fn.name() == "MulBackward0"
    dropped = (trained.detach().numpy() == 0) & (hidden != 0)
    assert dropped.any()
    np.testing.assert_array_equal(trained.detach().numpy()[~dropped], hidden[~dropped] * 2)
    model.eval()
    assert not model[2].training
    np.testing.assert_array_equal(model(x).detach().numpy(), hidden)
    assert model(x).grad_fn.name() == "ReluBackward0"
    model.train()
    assert model[2].training and (model(x).detach().numpy() != hidden).any()
    trained.sum().backward()  # a gradient through the mask reaches the first layer
    assert model[0].weight.grad.numpy().any()


def test_no_grad_still_drops_and_records_nothing():
    minigrad.manual_seed(0)
    x = minigrad.tensor(X, requires_grad=True)
    with minigrad.no_grad():
        out = F.dropout(x, 0.5)
    assert out.grad_fn is None and not out.requires_grad and (out.detach().numpy() == 0).any()


def test_inplace_changes_the_input_as_torch():
    x, x_t = pair()
    h, h_t = x * 1, x_t * 1
    out, out_t = F.dropout(h, 1.0, inplace=True), torch.nn.functional.dropout(
        h_t, 1.0, inplace=True)
    assert out is h and out_t is h_t
    assert h.grad_fn.name() == h_t.grad_fn.name() == "MulBackward0"
    assert h._version == h_t._version == 1
    np.testing.assert_array_equal(h.detach().numpy(), h_t.detach().numpy())
    h.sum().backward()
    h_t.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), x_t.grad.numpy())

    minigrad.manual_seed(3)
    y = x * 1
    out = nn.Dropout(0.5, inplace=True)(y)
    assert out is y and y._version == 1
    kept = y.detach().numpy() != 0
    np.testing.assert_array_equal(y.detach().numpy()[kept], X[kept] * 2)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(kept, 2.0, 0.0))

    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.nn.functional.dropout(x_t, 0.5, inplace=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.dropout(x, 0.5, inplace=True)


@pytest.mark.parametrize("values", [[1, 2, 3], [True, False]])
def test_int_and_bool_inputs_as_torch(values):
    x_t, x = torch.tensor(values), minigrad.tensor(values)
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.dropout(x_t, 0.5)
    with pytest.raises(RuntimeError) as ours:
        F.dropout(x, 0.5)
    assert str(ours.value).startswith(str(theirs.value) + ". Fix: ")
    for p in (0.0, 1.0):
        out, out_t = F.dropout(x, p), torch.nn.functional.dropout(x_t, p)
        assert out.detach().numpy().tolist() == out_t.tolist()
        assert str(out.dtype) == str(out_t.dtype).replace("torch", "minigrad")
