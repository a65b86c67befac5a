"""Every public tensor op against torch, forward and backward (chapters 05-07).

Each case is one line for ``helper_test_op``; hypothesis drives shapes and broadcasting
for the binary ops, with bounded domains for division, ``log`` and ``pow``.
"""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import minigrad
from minigrad.nn import functional as mF
from tests.tensor_parity import helper_test_op

F = torch.nn.functional
POS = {"low": 0.5, "high": 2.0}

# (id, shapes, torch lambda, minigrad lambda or None when the same one works, options)
CASES = [
    ("add", [(3, 4), (3, 4)], lambda a, b: a + b, None, {}),
    ("add_scalar", [(3, 4)], lambda a: a + 1.5, None, {}),
    ("radd", [(3, 4)], lambda a: 1.5 + a, None, {}),
    ("add_method_alpha", [(3,), (3,)], lambda a, b: a.add(b, alpha=2.0), None,
     {"check_name": False}),
    ("sub", [(3, 4), (3, 4)], lambda a, b: a - b, None, {}),
    ("sub_scalar", [(3, 4)], lambda a: a - 1.5, None, {}),
    ("rsub", [(3, 4)], lambda a: 1.5 - a, None, {}),
    ("mul", [(3, 4), (3, 4)], lambda a, b: a * b, None, {}),
    ("mul_scalar", [(3, 4)], lambda a: a * 2.5, None, {}),
    ("rmul", [(3, 4)], lambda a: 2.5 * a, None, {}),
    ("div", [(3, 4), (3, 4)], lambda a, b: a / b, None, POS),
    ("div_scalar", [(3, 4)], lambda a: a / 2.5, None, {}),
    ("rdiv", [(3, 4)], lambda a: 2.5 / a, None, POS),
    ("pow_int", [(3, 4)], lambda a: a ** 2, None, {}),
    ("pow_float", [(3, 4)], lambda a: a ** 1.7, None, POS),
    ("pow_negative", [(3, 4)], lambda a: a ** -0.5, None, POS),
    ("pow_zero", [(3,)], lambda a: a ** 0, None, {}),
    ("pow_tensor", [(3, 4), (3, 4)], lambda a, b: a ** b, None, POS),
    ("rpow", [(3, 4)], lambda a: 2.0 ** a, None, {}),
    ("pow_method", [(3,)], lambda a: a.pow(3), None, {}),
    ("neg", [(3, 4)], lambda a: -a, None, {}),
    ("reciprocal", [(3, 4)], lambda a: a.reciprocal(), None, POS),
    ("neg_sub_mul_div_methods", [(3,), (3,)], lambda a, b: a.neg().sub(b).mul(b).div(2.0),
     None, {"check_name": False}),
    ("matmul_2d", [(3, 4), (4, 5)], lambda a, b: a @ b, None, {}),
    ("mm", [(3, 4), (4, 5)], lambda a, b: torch.mm(a, b), lambda a, b: minigrad.mm(a, b), {}),
    ("mm_method", [(3, 4), (4, 2)], lambda a, b: a.mm(b), None, {}),
    ("matmul_function", [(2, 3), (3, 2)], lambda a, b: torch.matmul(a, b),
     lambda a, b: minigrad.matmul(a, b), {}),
    ("matmul_mv", [(3, 4), (4,)], lambda a, b: a @ b, None, {}),
    ("matmul_dot", [(4,), (4,)], lambda a, b: a @ b, None, {}),
    ("matmul_vm", [(4,), (4, 3)], lambda a, b: a @ b, None, {"check_name": False}),
    ("matmul_batched", [(2, 3, 4), (4, 5)], lambda a, b: a @ b, None, {"check_name": False}),
    ("matmul_batched_both", [(2, 3, 4), (1, 4, 5)], lambda a, b: a.matmul(b), None,
     {"check_name": False}),
    ("sum", [(3, 4)], lambda a: a.sum(), None, {}),
    ("sum_dim0", [(3, 4)], lambda a: a.sum(0), None, {}),
    ("sum_dim_neg", [(2, 3, 4)], lambda a: a.sum(-1), None, {}),
    ("sum_dim_tuple", [(2, 3, 4)], lambda a: a.sum(dim=(0, 2)), None, {}),
    ("sum_keepdim", [(2, 3, 4)], lambda a: a.sum(1, keepdim=True), None, {}),
    ("sum_function", [(3, 4)], lambda a: torch.sum(a, 1), lambda a: minigrad.sum(a, 1), {}),
    ("mean", [(3, 4)], lambda a: a.mean(), None, {}),
    ("mean_dim", [(3, 4)], lambda a: a.mean(dim=1), None, {}),
    ("mean_keepdim_tuple", [(2, 3, 4)], lambda a: a.mean((0, 1), keepdim=True), None, {}),
    ("max", [(3, 4)], lambda a: a.max(), None, {}),
    ("max_dim_values", [(3, 4)], lambda a: a.max(dim=1).values, None, {}),
    ("max_dim_keepdim", [(3, 4)], lambda a: a.max(0, keepdim=True)[0], None, {}),
    ("max_function", [(3, 4)], lambda a: torch.max(a), lambda a: minigrad.max(a), {}),
    ("exp", [(3, 4)], lambda a: a.exp(), None, {}),
    ("log", [(3, 4)], lambda a: a.log(), None, POS),
    ("tanh", [(3, 4)], lambda a: a.tanh(), None, {}),
    ("sigmoid", [(3, 4)], lambda a: a.sigmoid(), None, {}),
    ("sigmoid_extreme", [(3, 4)], lambda a: (a * 400).sigmoid(), None, {}),
    ("relu", [(3, 4)], lambda a: a.relu(), None, {}),
    ("functions", [(3,)], lambda a: torch.exp(a) + torch.tanh(a) + torch.sigmoid(a)
     + torch.relu(a), lambda a: minigrad.exp(a) + minigrad.tanh(a) + minigrad.sigmoid(a)
     + minigrad.relu(a), {}),
    ("log_function", [(3,)], lambda a: torch.log(a), lambda a: minigrad.log(a), POS),
    ("reshape", [(3, 4)], lambda a: a.reshape(2, 6), None, {}),
    ("reshape_tuple_neg", [(3, 4)], lambda a: a.reshape((-1, 3)), None, {}),
    ("view", [(3, 4)], lambda a: a.view(12), None, {}),
    ("reshape_function", [(3, 4)], lambda a: torch.reshape(a, (4, 3)),
     lambda a: minigrad.reshape(a, (4, 3)), {}),
    ("flatten", [(2, 3)], lambda a: a.flatten(), None, {"check_name": False}),
    ("t", [(3, 4)], lambda a: a.t(), None, {}),
    ("T", [(3, 4)], lambda a: a.T, None, {}),
    ("transpose", [(2, 3, 4)], lambda a: a.transpose(0, 2), None, {}),
    ("transpose_function", [(2, 3)], lambda a: torch.transpose(a, 0, 1),
     lambda a: minigrad.transpose(a, 0, 1), {}),
    ("unsqueeze", [(3, 4)], lambda a: a.unsqueeze(1), None, {}),
    ("unsqueeze_neg", [(3, 4)], lambda a: a.unsqueeze(-1), None, {}),
    ("squeeze_all", [(3, 1, 4, 1)], lambda a: a.squeeze(), None, {}),
    ("squeeze_dim", [(3, 1, 4)], lambda a: a.squeeze(1), None, {}),
    ("squeeze_dim_noop", [(3, 2)], lambda a: a.squeeze(1), None, {}),
    ("squeeze_unsqueeze_functions", [(3,)], lambda a: torch.squeeze(torch.unsqueeze(a, 0)),
     lambda a: minigrad.squeeze(minigrad.unsqueeze(a, 0)), {}),
    ("index_int", [(3, 4)], lambda a: a[1], None, {}),
    ("index_neg", [(3, 4)], lambda a: a[-1, 2], None, {"check_name": False}),
    ("slice", [(5, 4)], lambda a: a[1:4], None, {}),
    ("slice_step_2d", [(5, 4)], lambda a: a[::2, 1:], None, {"check_name": False}),
    ("index_list_repeated", [(4, 3)], lambda a: a[[0, 0, 2]], None, {}),
    ("index_arrays_repeated", [(4, 3)], lambda a: a[[0, 1, 0], [2, 2, 2]], None, {}),
    ("index_mask", [(4, 3)], lambda a: a[a > 0], None, {}),
    ("index_none_ellipsis", [(2, 3)], lambda a: a[None, ..., 1], None, {"check_name": False}),
    ("clone", [(3,)], lambda a: a.clone(), None, {}),
    ("linear", [(5, 3), (4, 3), (4,)], lambda x, w, b: F.linear(x, w, b),
     lambda x, w, b: mF.linear(x, w, b), {}),
    ("linear_no_bias", [(5, 3), (4, 3)], lambda x, w: F.linear(x, w),
     lambda x, w: mF.linear(x, w), {}),
    ("linear_batched", [(2, 5, 3), (4, 3), (4,)], lambda x, w, b: F.linear(x, w, b),
     lambda x, w, b: mF.linear(x, w, b), {"check_name": False}),
    ("relu_functional", [(3, 4)], lambda a: F.relu(a), lambda a: mF.relu(a), {}),
    ("mse_mean", [(5, 3), (5, 3)], lambda a, b: F.mse_loss(a, b),
     lambda a, b: mF.mse_loss(a, b), {}),
    ("mse_sum", [(5, 3), (5, 3)], lambda a, b: F.mse_loss(a, b, reduction="sum"),
     lambda a, b: mF.mse_loss(a, b, reduction="sum"), {}),
    ("mse_none", [(5, 3), (5, 3)], lambda a, b: F.mse_loss(a, b, reduction="none"),
     lambda a, b: mF.mse_loss(a, b, reduction="none"), {}),
    ("composite_mlp", [(4, 3), (5, 3), (5,), (2, 5)],
     lambda x, w1, b1, w2: ((x @ w1.t() + b1).relu() @ w2.t()).tanh().sum(1).mean(), None,
     {}),
    ("float_double", [(3,)], lambda a: a.float().double() * 2, None,
     {"rtol": 1e-6, "atol": 1e-6}),
    ("to_float32_and_back", [(3,)], lambda a: a.to(torch.float32).to(torch.float64),
     lambda a: a.to(minigrad.float32).to(minigrad.float64), {"rtol": 1e-6, "atol": 1e-6}),
]

TARGETS = [0, 2, 1, 2, 0]


@pytest.mark.parametrize("shapes, torch_fn, minigrad_fn, options",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_op_matches_torch(shapes, torch_fn, minigrad_fn, options):
    helper_test_op(shapes, torch_fn, minigrad_fn, **options)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_torch(reduction):
    helper_test_op(
        [(5, 3)],
        lambda z: F.cross_entropy(z * 10, torch.tensor(TARGETS), reduction=reduction),
        lambda z: mF.cross_entropy(z * 10, minigrad.tensor(TARGETS), reduction=reduction))


def test_cross_entropy_is_stable_for_large_logits():
    helper_test_op([(4, 3)], lambda z: F.cross_entropy(z * 1e4, torch.tensor([0, 1, 2, 0])),
                   lambda z: mF.cross_entropy(z * 1e4, minigrad.tensor([0, 1, 2, 0])),
                   rtol=1e-9, check_name=False)


def test_max_ties_share_the_gradient_like_torch():
    t = torch.tensor([1.0, 3.0, 3.0, 2.0], dtype=torch.float64, requires_grad=True)
    m = minigrad.tensor([1.0, 3.0, 3.0, 2.0], dtype=minigrad.float64, requires_grad=True)
    t.max().backward()
    m.max().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=0, atol=1e-15)


def test_max_with_dim_returns_values_and_indices():
    data = [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]
    values, indices = minigrad.tensor(data).max(dim=1)
    expected = torch.tensor(data).max(dim=1)
    np.testing.assert_allclose(values.numpy(), expected.values.numpy())
    assert indices.tolist() == expected.indices.tolist()
    assert indices.dtype == minigrad.int64


def test_comparisons_and_argmax_match_torch():
    a = [[1.0, -2.0], [3.0, 0.5]]
    for op in (lambda x: x > 0, lambda x: x <= 0.5, lambda x: x == 3.0, lambda x: x != 1.0,
               lambda x: x < 1, lambda x: x >= 3):
        assert op(minigrad.tensor(a)).tolist() == op(torch.tensor(a)).tolist()
    assert minigrad.tensor(a).argmax(1).tolist() == torch.tensor(a).argmax(1).tolist()
    for lib in (torch, minigrad):
        assert bool((lib.tensor(a) > -5).all()) and not bool((lib.tensor(a) > 5).any())


shape_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                min_side=1, max_side=4)
BINARY = {
    "add": (lambda a, b: a + b, {}),
    "sub": (lambda a, b: a - b, {}),
    "mul": (lambda a, b: a * b, {}),
    "div": (lambda a, b: a / b, POS),
    "pow": (lambda a, b: a ** b, POS),
}


@pytest.mark.parametrize("name", list(BINARY))
@given(shapes=shape_pairs, seed=st.integers(0, 2**16))
def test_binary_ops_broadcast_like_torch(name, shapes, seed):
    fn, domain = BINARY[name]
    helper_test_op(list(shapes.input_shapes), fn, seed=seed, **domain)


@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), seed=st.integers(0, 99),
       data=st.data())
def test_reductions_over_any_dim_like_torch(shape, seed, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    helper_test_op([shape], lambda a: a.sum(dim, keepdim=keepdim) * 2
                   + a.mean(dim, keepdim=keepdim) + a.max(dim, keepdim=keepdim)[0],
                   seed=seed, check_name=False)


@given(n=st.integers(1, 4), k=st.integers(1, 4), m=st.integers(1, 4),
       seed=st.integers(0, 99))
def test_matmul_shapes_like_torch(n, k, m, seed):
    helper_test_op([(n, k), (k, m)], lambda a, b: a @ b, seed=seed)


def test_float32_stays_float32():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + 1.5) ** 2 / 3 - x.exp() + 2.0 ** x
    assert y.dtype == minigrad.float32
    y.sum().backward()
    assert x.grad.dtype == minigrad.float32
