"""The everyday torch names a PyTorch user's code reaches for, against torch itself.

Each differentiable op (sin, cos, abs, sqrt, sign, clamp, where, stack, cat, permute,
movedim, dot, norm) runs in both libraries on the same float64 inputs: forward values,
the node's name and the gradients after a non-uniform upstream gradient
(``helper_test_op``), then second derivatives (``autograd.grad(create_graph=True)``) and
tangents (``forward_ad``). Then dtypes, the factories (eye, linspace, full, the
``*_like``, ``device=``), the comparisons, ``set_printoptions``, and the errors: the same
exception type as torch, torch's key phrase, and minigrad's " Fix:".
"""

import math

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad.autograd import forward_ad as mfw
from tests.edge_parity import check_snippet
from tests.tensor_parity import assert_close, helper_test_op

INF = math.inf


def lib_of(t):
    return torch if isinstance(t, torch.Tensor) else mg


def norm_of(lib):
    return lib.linalg.vector_norm


# name: (shapes, function of (lib, *inputs), low, high)
OPS = {
    "sin": ([(3, 4)], lambda L, a: L.sin(a), -3, 3),
    "sin_method": ([(5,)], lambda L, a: a.sin(), -3, 3),
    "cos": ([(3, 4)], lambda L, a: L.cos(a), -3, 3),
    "cos_method": ([(2, 3, 2)], lambda L, a: a.cos(), -3, 3),
    "abs": ([(3, 4)], lambda L, a: L.abs(a), -2, 2),
    "abs_builtin": ([(4,)], lambda L, a: abs(a), -2, 2),
    "abs_method": ([(2, 3)], lambda L, a: a.abs(), -2, 2),
    "absolute": ([(2, 3)], lambda L, a: L.absolute(a), -2, 2),
    "sqrt": ([(3, 4)], lambda L, a: L.sqrt(a), 0.1, 4),
    "sqrt_method": ([(3,)], lambda L, a: a.sqrt(), 0.1, 4),
    "sign": ([(3, 4)], lambda L, a: L.sign(a), -2, 2),
    "clamp": ([(4, 5)], lambda L, a: L.clamp(a, -0.5, 0.7), -2, 2),
    "clamp_method": ([(4, 5)], lambda L, a: a.clamp(-0.5, 0.7), -2, 2),
    "clamp_min_only": ([(4, 5)], lambda L, a: a.clamp(min=-0.5), -2, 2),
    "clamp_max_only": ([(4, 5)], lambda L, a: L.clamp(a, max=0.5), -2, 2),
    "clamp_int_bounds": ([(4, 5)], lambda L, a: a.clamp(-1, 1), -2, 2),
    "clip": ([(4, 5)], lambda L, a: L.clip(a, -0.5, 0.7), -2, 2),
    "clamp_tensors": ([(4, 5), (4, 5), (4, 5)], lambda L, a, lo, hi: L.clamp(a, lo, hi), -2, 2),
    "clamp_tensors_broadcast": ([(4, 5), (5,), (4, 1)],
                                lambda L, a, lo, hi: a.clamp(lo - 1, hi + 1), -2, 2),
    "clamp_tensor_min_only": ([(4, 5), (5,)], lambda L, a, lo: a.clamp(min=lo), -2, 2),
    "clamp_tensor_max_only": ([(4, 5), (4, 5)], lambda L, a, hi: L.clamp(a, max=hi), -2, 2),
    "clamp_min_tensor": ([(4, 5), (4, 5)], lambda L, a, lo: L.clamp_min(a, lo), -2, 2),
    "clamp_max_tensor": ([(4, 5), (1, 5)], lambda L, a, hi: a.clamp_max(hi), -2, 2),
    "clamp_min": ([(4, 5)], lambda L, a: L.clamp_min(a, 0.2), -2, 2),
    "clamp_min_method": ([(4, 5)], lambda L, a: a.clamp_min(0), -2, 2),
    "clamp_max": ([(4, 5)], lambda L, a: L.clamp_max(a, 0.2), -2, 2),
    "clamp_max_method": ([(4, 5)], lambda L, a: a.clamp_max(-0.1), -2, 2),
    "where": ([(3, 4), (3, 4)], lambda L, a, b: L.where(a > 0, a, b), -2, 2),
    "where_broadcast": ([(3, 4), (4,)], lambda L, a, b: L.where(a > b, a, b), -2, 2),
    "where_broadcast_cond": ([(3, 1), (1, 4)], lambda L, a, b: L.where(a > 0, a, b), -2, 2),
    "where_scalar_other": ([(3, 4)], lambda L, a: L.where(a > 0, a, 0.0), -2, 2),
    "where_scalar_input": ([(3, 4)], lambda L, a: L.where(a > 0, 1.5, a), -2, 2),
    "where_method": ([(3, 4), (3, 4)], lambda L, a, b: a.where(b > 0, b), -2, 2),
    "stack": ([(3, 4), (3, 4)], lambda L, a, b: L.stack([a, b]), -2, 2),
    "stack_dim1": ([(3, 4), (3, 4), (3, 4)], lambda L, a, b, c: L.stack((a, b, c), 1), -2, 2),
    "stack_last": ([(3, 4), (3, 4)], lambda L, a, b: L.stack([a, b], dim=-1), -2, 2),
    "stack_same_twice": ([(2, 3)], lambda L, a: L.stack([a, a * 2]), -2, 2),
    "cat": ([(2, 4), (3, 4)], lambda L, a, b: L.cat([a, b]), -2, 2),
    "cat_dim1": ([(3, 1), (3, 4), (3, 2)], lambda L, a, b, c: L.cat((a, b, c), 1), -2, 2),
    "cat_last": ([(2, 3, 2), (2, 3, 1)], lambda L, a, b: L.cat([a, b], dim=-1), -2, 2),
    "concat": ([(2, 4), (2, 4)], lambda L, a, b: L.concat([a, b], dim=1), -2, 2),
    "cat_same_twice": ([(2, 3)], lambda L, a: L.cat([a, a]), -2, 2),
    "movedim": ([(2, 3, 4)], lambda L, a: L.movedim(a, 0, 2), -2, 2),
    "movedim_tuples": ([(2, 3, 4, 5)], lambda L, a: a.movedim((0, 1), (3, 0)), -2, 2),
    "movedim_negative": ([(2, 3, 4)], lambda L, a: a.movedim(-1, 0), -2, 2),
    "moveaxis": ([(2, 3, 4)], lambda L, a: L.moveaxis(a, 1, 2), -2, 2),
    "permute": ([(2, 3, 4)], lambda L, a: a.permute(2, 0, 1), -2, 2),
    "permute_tuple": ([(2, 3, 4)], lambda L, a: L.permute(a, (1, 2, 0)), -2, 2),
    "dot": ([(5,), (5,)], lambda L, a, b: L.dot(a, b), -2, 2),
    "dot_method": ([(5,), (5,)], lambda L, a, b: a.dot(b), -2, 2),
    "norm": ([(3, 4)], lambda L, a: a.norm(), -2, 2),
    "norm_toplevel": ([(3, 4)], lambda L, a: L.norm(a), -2, 2),
    "norm_dim": ([(3, 4)], lambda L, a: a.norm(dim=1), -2, 2),
    "norm_dim_keepdim": ([(3, 4)], lambda L, a: a.norm(dim=0, keepdim=True), -2, 2),
    "norm_dims": ([(2, 3, 4)], lambda L, a: a.norm(dim=(0, 2)), -2, 2),
    "norm_p1": ([(3, 4)], lambda L, a: a.norm(p=1), -2, 2),
    "norm_p1_dim": ([(3, 4)], lambda L, a: a.norm(1, 1), -2, 2),
    "norm_p3": ([(3, 4)], lambda L, a: a.norm(p=3, dim=1), -2, 2),
    "norm_p1_5": ([(3, 4)], lambda L, a: a.norm(p=1.5), -2, 2),
    "norm_inf": ([(3, 4)], lambda L, a: a.norm(p=INF, dim=1), -2, 2),
    "norm_minus_inf": ([(3, 4)], lambda L, a: a.norm(p=-INF), -2, 2),
    "norm_p0": ([(3, 4)], lambda L, a: a.norm(p=0), -2, 2),
    "vector_norm": ([(3, 4)], lambda L, a: norm_of(L)(a), -2, 2),
    "vector_norm_ord_dim": ([(3, 4)], lambda L, a: norm_of(L)(a, 3, 1, True), -2, 2),
    "linalg_norm": ([(5,)], lambda L, a: L.linalg.norm(a), -2, 2),
}


@pytest.mark.parametrize("name", OPS)
def test_op_matches_torch(name):
    shapes, fn, low, high = OPS[name]
    helper_test_op(shapes, lambda *xs: fn(torch, *xs), lambda *xs: fn(mg, *xs),
                   low=low, high=high)


# --- second derivatives and tangents -----------------------------------------------
rng = np.random.default_rng(0)
A, C = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
V, U = rng.normal(size=4), rng.normal(size=4)
P = np.abs(A) + 0.5

SECOND = {
    "sin": (lambda L, a: (L.sin(a) * a).sum(), A),
    "cos": (lambda L, a: L.cos(a * a).sum(), A),
    "sin_cos": (lambda L, a, b: (a.sin() * b.cos()).sum(), A, C),
    "abs": (lambda L, a: (L.abs(a) * a).sum(), A),
    "sqrt": (lambda L, a: L.sqrt(a).sum(), P),
    "sign": (lambda L, a: (L.sign(a) * a * a).sum(), A),
    "clamp": (lambda L, a: (a.clamp(-0.5, 0.7) ** 2).sum(), A),
    "clamp_min": (lambda L, a: (a.clamp_min(0.1) * a).sum(), A),
    "clamp_max": (lambda L, a: (L.clamp_max(a, 0.1) ** 3).sum(), A),
    "clamp_tensors": (lambda L, a, b: (a.clamp(b * b - 1, b + 1) ** 2 * b).sum(), A, C),
    "clamp_min_tensor": (lambda L, a, b: (a.clamp_min(b) ** 3).sum(), A, C),
    "clamp_max_tensor": (lambda L, a, v: (L.clamp_max(a * v, v) ** 2).sum(), A, V),
    "where": (lambda L, a, b: (L.where(a > 0, a * a, b ** 3)).sum(), A, C),
    "where_broadcast": (lambda L, a, v: (L.where(a > v, a * v, v * v)).sum(), A, V),
    "where_scalar": (lambda L, a: (L.where(a > 0, a, 0.0) ** 2).sum(), A),
    "stack": (lambda L, a, b: (L.stack([a * b, a ** 2], 1) ** 2).sum(), A, C),
    "cat": (lambda L, a, b: (L.cat([a * b, b ** 2], -1) ** 2).sum(), A, C),
    "movedim": (lambda L, a, b: (a.movedim(0, 1) ** 2 @ b).sum(), A, C),
    "dot": (lambda L, v, u: L.dot(v * u, v) ** 2, V, U),
    "norm": (lambda L, a: a.norm(), A),
    "norm_dim": (lambda L, a: (a.norm(dim=1) ** 2 * a.sum(1)).sum(), A),
    "norm_p3": (lambda L, a: a.norm(p=3, dim=0, keepdim=True).sum(), A),
    "norm_p1_5": (lambda L, a: a.norm(p=1.5), P),
    "norm_p1": (lambda L, a: a.norm(p=1) * a.sum(), A),
    "norm_inf": (lambda L, a: a.norm(p=INF, dim=1).sum() * a.sum(), A),
}


def _second(lib, fn, arrays, seed=0):
    """First gradients (a graph) and the gradient of <first, w> for a random w."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    firsts = lib.autograd.grad(fn(lib, *xs), xs, create_graph=True)
    r = np.random.default_rng(seed)
    total = 0
    for g in firsts:
        total = total + (g * lib.tensor(r.standard_normal(tuple(g.shape)))).sum()
    seconds = lib.autograd.grad(total, xs, allow_unused=True)
    return firsts, seconds, xs


@pytest.mark.parametrize("name", SECOND)
def test_second_derivative_matches_torch(name):
    fn, *arrays = SECOND[name]
    f_m, s_m, _ = _second(mg, fn, arrays)
    f_t, s_t, xs_t = _second(torch, fn, arrays)
    for a, b in zip(f_m, f_t, strict=True):
        assert_close(a, b, what="first derivative")
        assert a.requires_grad == b.requires_grad
    for a, b, x in zip(s_m, s_t, xs_t, strict=True):
        b = torch.zeros_like(x) if b is None else b
        a = mg.zeros(tuple(b.shape), dtype=mg.float64) if a is None else a
        assert_close(a, b, what="second derivative")


def test_sin_second_derivative_is_minus_sin():
    """d2/dx2 sin x = -sin x: the recorded backward goes through CosBackward0."""
    x = mg.tensor([0.3, 1.2, -2.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(x.sin().sum(), x, create_graph=True)
    assert g.grad_fn is not None
    (h,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.data, -np.sin(x.data), rtol=1e-12)


TANGENT = dict(SECOND)
TANGENT.update({
    "sign_alone": (lambda L, a: L.sign(a), A),
    "abs_alone": (lambda L, a: L.abs(a), A),
    "stack_one_dual": (lambda L, a, b: L.stack([a, b.detach() * 1.0]), A, C),
    "where_alone": (lambda L, a, b: L.where(a > b, a, b), A, C),
    "norm_p0": (lambda L, a: a.norm(p=0), A),
    "clamp_alone": (lambda L, a: a.clamp(-0.5, 0.5), A),
})


def _tangent(lib, fw, fn, arrays, seed=0):
    r = np.random.default_rng(seed)
    directions = [r.standard_normal(a.shape) for a in arrays]
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(a), lib.tensor(d))
                 for a, d in zip(arrays, directions, strict=True)]
        primal, tangent = fw.unpack_dual(fn(lib, *duals))
        return primal.detach(), tangent


@pytest.mark.parametrize("name", TANGENT)
def test_tangent_matches_torch(name):
    fn, *arrays = TANGENT[name]
    pm, tm = _tangent(mg, mfw, fn, arrays)
    pt, tt = _tangent(torch, tfw, fn, arrays)
    assert_close(pm, pt, what="primal")
    tt = torch.zeros_like(pt) if tt is None else tt
    tm = mg.zeros(tuple(tt.shape), dtype=mg.float64) if tm is None else tm
    assert_close(tm, tt, what="tangent")


# --- torch's values at the kinks: clamp's boundary, abs at 0, sqrt at 0, NaN ---------
NAN = float("nan")
KINKS = {
    "clamp_boundary": (lambda L, x: x.clamp(-1, 1), [-2.0, -1.0, 0.0, 1.0, 2.0, NAN]),
    "clamp_min_above_max": (lambda L, x: x.clamp(1, -1), [-2.0, -1.0, 0.0, 1.0, 2.0]),
    "clamp_tensor_bounds": (lambda L, x: L.clamp(
        x, L.tensor([-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, NAN], dtype=L.float64),
        L.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0], dtype=L.float64)),
        [-2.0, -1.0, 0.0, 1.0, 2.0, NAN, 0.5, 0.3]),
    "clamp_min_boundary": (lambda L, x: x.clamp_min(0), [-1.0, 0.0, 1.0, NAN]),
    "clamp_max_boundary": (lambda L, x: x.clamp_max(0), [-1.0, 0.0, 1.0, NAN]),
    "abs_zero_nan": (lambda L, x: x.abs(), [-1.0, 0.0, 1.0, NAN, -0.0]),
    "sqrt_zero_negative": (lambda L, x: x.sqrt(), [0.0, 1.0, 4.0, -1.0]),
    "sign_nan": (lambda L, x: x.sign(), [0.0, -2.0, 1.0, NAN]),
    "norm_of_zeros": (lambda L, x: x.norm(), [0.0, 0.0]),
    "norm_p3_zeros": (lambda L, x: x.norm(p=3), [0.0, 0.0]),
    "norm_inf_ties": (lambda L, x: x.norm(p=INF), [2.0, 1.0, -2.0]),
    "norm_p1_zero": (lambda L, x: x.norm(p=1), [0.0, 1.0, -2.0]),
    "where_inf_upstream": (lambda L, x: L.where(x > 0, x, 0.0), [1.0, -1.0], INF),
    "clamp_inf_upstream": (lambda L, x: x.clamp(-0.5, 0.5), [1.0, 0.1], INF),
    "sign_inf_upstream": (lambda L, x: x.sign(), [1.0, 0.1], INF),
}


@pytest.mark.parametrize("name", KINKS)
def test_values_and_gradients_at_kinks_match_torch(name):
    fn, values, *upstream = KINKS[name]
    out = {}
    for lib in (torch, mg):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = fn(lib, x)
        y.backward(lib.full_like(y, upstream[0] if upstream else 1.0))
        out[lib] = (y, x.grad)
    for a, b in zip(out[mg], out[torch], strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


# --- dtypes, factories, devices, comparisons: snippets run with both libraries ---------
SNIPPETS = {
    # dtypes of the pointwise ops, as torch
    "sin_int_is_float32": "out = [torch.sin(torch.tensor([1, 2])), torch.tensor([1, 2]).cos()]",
    "sin_bool_is_float32": "out = torch.tensor([True, False]).sin()",
    "sqrt_int_is_float32": "out = torch.tensor([1, 4]).sqrt()",
    "abs_int_stays_int": "out = [abs(torch.tensor([-1, 2])), torch.tensor([-3]).abs()]",
    "sign_keeps_dtype": "out = [torch.tensor([-3, 0, 2]).sign(),\n"
                        "       torch.tensor([True, False]).sign()]",
    "sin_float32": "out = torch.tensor([0.5, 1.5]).sin()",
    "clamp_int": "out = torch.tensor([-2, 0, 3]).clamp(0, 1)",
    "clamp_int_float_bound": "out = torch.tensor([-2, 0, 3]).clamp(0.5, 1)",
    "clamp_int_max_only": "out = torch.tensor([1, 2]).clamp(None, 1.5)",
    "clamp_bool": "out = torch.tensor([True, False]).clamp(0, 1)",
    "clamp_float32_int_bounds": "out = torch.tensor([0.5, 3.0]).clamp(1, 2)",
    "clamp_0d_tensor_bound": "out = torch.tensor([0.5, 3.0]).clamp(min=torch.tensor(1.0))",
    "clamp_tensor_dtypes": "f, d = torch.ones(3), torch.zeros(3, dtype=torch.float64)\n"
                           "out = [torch.clamp(f, d), torch.clamp(d, f), f.clamp(max=d),\n"
                           "       torch.clamp(torch.tensor([1, 2]), torch.tensor([1.5, 1.5])),\n"
                           "       f.clamp(torch.tensor(0.5, dtype=torch.float64)),\n"
                           "       torch.tensor([1, 5]).clamp_min(torch.tensor(2)),\n"
                           "       f.clamp(torch.zeros(2, 3), torch.ones(2, 1)).shape]",
    "clamp_min_int": "out = [torch.tensor([1, 5]).clamp_min(2),\n"
                     "       torch.tensor([1, 5]).clamp_max(2.5)]",
    "where_promotes": "a = torch.ones(2)\nb = torch.ones(2, dtype=torch.float64)\n"
                      "out = [torch.where(a > 0, a, b), torch.where(a > 0, a, 2.),\n"
                      "       torch.where(a > 0, torch.tensor([1, 2]), 2.),\n"
                      "       torch.where(a > 0, 1, 2.), torch.where(a > 0, 1, 2),\n"
                      "       torch.where(a > 0, torch.tensor([1, 2]), 2)]",
    "where_0d_float64": "c = torch.tensor([True, False])\n"
                        "out = torch.where(c, torch.tensor(1., dtype=torch.float64), 0.)",
    "where_numbers_requires_grad": "x = torch.ones(2, requires_grad=True)\n"
                                   "y = torch.where(torch.tensor([True, False]), 1., x)\n"
                                   "y.sum().backward()\nout = [y, x.grad]",
    "where_one_argument": "out = list(torch.where(torch.tensor([[True, False], [False, True]])))",
    "stack_promotes": "a = torch.ones(2, 3)\n"
                      "out = [torch.stack([a, torch.ones(2, 3, dtype=torch.int64)]),\n"
                      "       torch.stack([a, torch.ones(2, 3, dtype=torch.float64)]),\n"
                      "       torch.stack([torch.tensor([1, 2]), torch.tensor([True, False])])]",
    "stack_0d": "out = torch.stack([torch.tensor(1.), torch.tensor(2.)])",
    "cat_promotes": "out = torch.cat([torch.ones(2, 3), torch.ones(1, 3, dtype=torch.int64)])",
    "cat_skips_empty_1d": "x = torch.ones(2, 3, requires_grad=True)\n"
                          "e = torch.tensor([], requires_grad=True)\n"
                          "y = torch.cat([x, e, x * 2])\ny.sum().backward()\n"
                          "out = [y, x.grad, e.grad]",
    "cat_only_empty": "out = torch.cat([torch.tensor([]), torch.tensor([])])",
    "cat_float32_grad_through_promotion": "x = torch.ones(2, requires_grad=True)\n"
                                          "y = torch.cat([x, torch.ones(2, dtype=torch.float64)])\n"
                                          "(y * torch.arange(4.)).sum().backward()\n"
                                          "out = [y, x.grad]",
    "concatenate_axis": "out = torch.concatenate([torch.ones(2, 1), torch.zeros(2, 2)], axis=1)",
    "dot_int": "out = torch.dot(torch.tensor([1, 2]), torch.tensor([3, 4]))",
    "norm_float32": "out = [torch.tensor([3., 4.]).norm(),\n"
                    "       torch.norm(torch.tensor([[3., 4.]]), dim=1)]",
    "norm_dtype": "out = torch.linalg.vector_norm(torch.tensor([3., 4.]), dtype=torch.float64)",
    "norm_0d": "out = [torch.tensor(-3.).norm(), torch.tensor(-3.).norm(dim=0)]",
    "norm_empty": "out = torch.tensor([]).norm()",
    "norm_fro": "out = torch.tensor([[3., 4.]]).norm(p='fro')",
    "permute_is_view": "x = torch.arange(6.).reshape(2, 3)\ny = x.permute(1, 0)\n"
                       "x.mul_(2)\nout = [y, y.shape]",
    # factories
    "eye": "out = [torch.eye(3), torch.eye(2, 3), torch.eye(3, 2, dtype=torch.int64),\n"
           "       torch.eye(0), torch.eye(2, requires_grad=True)]",
    "linspace": "out = [torch.linspace(0, 1, 5), torch.linspace(-1.5, 2, 7),\n"
                "       torch.linspace(0, 1, 1), torch.linspace(0, 1, 0),\n"
                "       torch.linspace(0, 10, 3, dtype=torch.int64),\n"
                "       torch.linspace(0, 7, 4, dtype=torch.int64),\n"
                "       torch.linspace(2, -3, 6, dtype=torch.float64),\n"
                "       torch.linspace(torch.tensor(0.), 1, 3)]",
    "arange": "out = [torch.arange(5), torch.arange(0, 1, 0.25), torch.arange(1, 4),\n"
              "       torch.arange(5.0), torch.arange(5, 0, -1), torch.arange(torch.tensor(3)),\n"
              "       torch.arange(0, 1, 0.1), torch.arange(3, dtype=torch.float64),\n"
              "       torch.arange(1, 2.5, 0.5), torch.arange(True), torch.arange(0, 10, 3)]",
    "full": "out = [torch.full((2,), 1), torch.full((2,), 1.5), torch.full((2,), True),\n"
            "       torch.full([2, 1], 3, dtype=torch.float64), torch.full((), 2.),\n"
            "       torch.full((2,), torch.tensor(2.)), torch.full(torch.Size([1, 2]), -1.),\n"
            "       torch.full((2,), 1.5, requires_grad=True)]",
    "like": "i = torch.tensor([1, 2])\nf = torch.tensor([[1., 2.]])\n"
            "out = [torch.zeros_like(i), torch.ones_like(f, dtype=torch.float64),\n"
            "       torch.full_like(i, 2.7), torch.full_like(f, 7), torch.empty_like(i) * 0,\n"
            "       torch.zeros_like(f, requires_grad=True),\n"
            "       torch.ones_like(i, dtype=torch.float32),\n"
            "       torch.rand_like(f).shape, torch.randn_like(f, dtype=torch.float64).dtype,\n"
            "       torch.zeros_like(torch.ones(2, requires_grad=True))]",
    "empty": "out = [torch.empty(2, 3).shape, torch.empty((2, 3)).dtype,\n"
             "       torch.empty(2, dtype=torch.int64).dtype,\n"
             "       torch.empty_like(torch.ones(3)).shape]",
    "device_argument": "d = torch.device('cpu')\n"
                       "out = [torch.zeros(2, device='cpu'), torch.ones(2, device=d),\n"
                       "       torch.tensor([1.], device='cpu'), torch.randn(2, device=d).shape,\n"
                       "       torch.rand(2, device='cpu').shape, torch.arange(3, device='cpu'),\n"
                       "       torch.eye(2, device=d), torch.full((1,), 2., device='cpu'),\n"
                       "       torch.linspace(0, 1, 2, device=d),\n"
                       "       torch.zeros_like(torch.ones(1), device='cpu')]",
    "to": "x = torch.ones(2, requires_grad=True)\n"
          "out = [x.to('cpu'), x.to(torch.device('cpu')), x.to('cpu', torch.float64),\n"
          "       x.to('cpu', dtype=torch.float64), x.to(device='cpu'),\n"
          "       x.to(torch.zeros(1, dtype=torch.float64)), x.to(torch.float64),\n"
          "       x.to(dtype=torch.float64, device='cpu'), x.to('cpu') is x,\n"
          "       x.to('cpu', copy=True) is x, x.to(torch.int64)]",
    # comparisons
    "isclose": "n, i = float('nan'), float('inf')\n"
               "a = torch.tensor([1., 2., n, i, -i, 1e-9])\n"
               "b = torch.tensor([1.0001, 2.1, n, i, i, 0.])\n"
               "out = [torch.isclose(a, b), torch.isclose(a, b, rtol=1e-3, equal_nan=True),\n"
               "       torch.isclose(a, b, atol=0.2), a.isclose(b),\n"
               "       torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])),\n"
               "       torch.isclose(torch.tensor([True]), torch.tensor([True])),\n"
               "       torch.isclose(torch.ones(2, 3), torch.ones(1))]",
    "allclose": "a = torch.ones(2, 3)\nn = torch.tensor([float('nan')])\n"
                "out = [torch.allclose(a, a + 1e-9), torch.allclose(a, a * 2), a.allclose(a),\n"
                "       torch.allclose(a, torch.ones(3)), torch.allclose(n, n),\n"
                "       torch.allclose(n, n, equal_nan=True),\n"
                "       torch.allclose(a, a + 0.1, atol=0.2),\n"
                "       type(torch.allclose(a, a)) is bool]",
    "equal": "a = torch.ones(2, 3)\n"
             "out = [torch.equal(a, a.clone()), torch.equal(a, torch.ones(3, 2)), a.equal(a * 2),\n"
             "       torch.equal(a, torch.ones(2, 3, dtype=torch.float64)),\n"
             "       torch.equal(torch.tensor([float('nan')]), torch.tensor([float('nan')])),\n"
             "       torch.equal(torch.ones(1, 3), torch.ones(3)), type(a.equal(a)) is bool,\n"
             "       torch.equal(torch.tensor([1, 2]), torch.tensor([1., 2.]))]",
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_snippet_matches_torch(name):
    theirs, _ = check_snippet(SNIPPETS[name])
    assert theirs is None, f"torch raised {theirs!r}: the snippet is wrong"


def test_linspace_ends_exactly_and_agrees_with_torch_to_the_last_bit():
    """Both ends exact; inside, float32 values within one rounding of torch's (whose
    vectorized float32 kernel rounds differently from minigrad's float64 one)."""
    for start, end, steps in [(0, 1, 7), (-3.3, 2.9, 11), (0.1, 0.7, 1000), (5, -5, 9)]:
        ours = mg.linspace(start, end, steps).data
        theirs = torch.linspace(start, end, steps).numpy()
        assert ours.dtype == theirs.dtype
        assert ours[0] == theirs[0] and ours[-1] == theirs[-1]
        np.testing.assert_allclose(ours, theirs, rtol=3e-7, atol=3e-7 * abs(end - start))
        ours64 = mg.linspace(start, end, steps, dtype=mg.float64).data
        theirs64 = torch.linspace(start, end, steps, dtype=torch.float64).numpy()
        np.testing.assert_allclose(ours64, theirs64, rtol=1e-15, atol=1e-15)


def test_factories_make_leaves_that_may_require_grad():
    for make in (lambda L: L.eye(2, requires_grad=True),
                 lambda L: L.full((2,), 1.5, requires_grad=True),
                 lambda L: L.linspace(0, 1, 3, requires_grad=True),
                 lambda L: L.zeros_like(L.ones(2), requires_grad=True),
                 lambda L: L.rand_like(L.ones(2), requires_grad=True),
                 lambda L: L.empty(2, requires_grad=True)):
        t = make(mg)
        assert t.requires_grad and t.is_leaf and t.grad_fn is None
        assert repr(t).endswith("requires_grad=True)") == repr(make(torch)).endswith(
            "requires_grad=True)")


def test_random_like_draw_from_the_seeded_generator():
    mg.manual_seed(3)
    a = mg.rand_like(mg.ones(2, 3))
    b = mg.randn_like(mg.ones(2, 3, dtype=mg.float64))
    mg.manual_seed(3)
    assert np.array_equal(mg.rand_like(mg.ones(2, 3)).data, a.data)
    assert a.dtype == mg.float32 and b.dtype == mg.float64
    assert 0 <= a.data.min() and a.data.max() < 1
    np.testing.assert_array_equal(mg.randn_like(mg.ones(2, 3)).data, b.data.astype(np.float32))


def test_device_object_reads_like_torch():
    for lib in (torch, mg):
        d = lib.device("cpu")
        assert repr(d) == "device(type='cpu')" and str(d) == "cpu"
        assert d.type == "cpu" and d.index is None
        assert d == lib.device("cpu") and d != "cpu" and d != lib.device("cpu:0")
        assert hash(d) == hash(lib.device("cpu"))
        assert repr(lib.device("cpu", 0)) == "device(type='cpu', index=0)"
        assert str(lib.device("cuda:1")) == "cuda:1" and lib.device("cuda").type == "cuda"
        assert lib.ones(2).device == d
        assert isinstance(lib.ones(2).device, lib.device)
    assert mg.ones(2).to(mg.device("cpu")).device == mg.device("cpu")


def test_the_usual_device_line_picks_the_cpu():
    line = "d = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    assert not mg.cuda.is_available() and mg.cuda.device_count() == 0
    scope = {"torch": mg}
    exec(line + "out = torch.ones(2, device=d).to(d).device", scope)
    assert scope["out"] == mg.device("cpu")


@pytest.mark.parametrize("make", [
    lambda: mg.zeros(2, device="cuda"),
    lambda: mg.ones(2, device=mg.device("cuda", 0)),
    lambda: mg.tensor([1.0], device="cuda"),
    lambda: mg.eye(2, device="cuda:0"),
    lambda: mg.full((2,), 1.0, device="cuda"),
    lambda: mg.zeros_like(mg.ones(2), device="cuda"),
    lambda: mg.arange(3, device="cuda"),
    lambda: mg.ones(2).to("cuda"),
    lambda: mg.ones(2).to(mg.device("cuda")),
    lambda: mg.ones(2).to("cuda", mg.float64),
    lambda: mg.ones(2).cuda(),
])
def test_cuda_is_refused_as_cuda_is(make):
    with pytest.raises(RuntimeError, match="CPU only. Fix:"):
        make()


def test_builtin_abs_and_methods_exist_where_torch_has_them():
    for name in ("sin", "cos", "abs", "absolute", "sqrt", "sign", "clamp", "clip", "clamp_min",
                 "clamp_max", "where", "permute", "movedim", "moveaxis", "dot", "norm",
                 "isclose", "allclose", "equal", "to", "__abs__"):
        assert hasattr(torch.Tensor, name) and hasattr(mg.Tensor, name), name
    for name in ("eye", "linspace", "arange", "full", "zeros_like", "ones_like", "full_like",
                 "rand_like", "randn_like", "empty", "empty_like", "stack", "cat", "concat",
                 "concatenate", "where", "movedim", "dot", "norm", "allclose", "isclose",
                 "equal", "set_printoptions", "device", "nan", "inf", "pi", "e"):
        assert hasattr(torch, name) and hasattr(mg, name), name
        assert name in mg.__all__, name
    assert not hasattr(torch.Tensor, "stack") and not hasattr(mg.Tensor, "stack")
    assert (mg.inf, mg.pi, mg.e) == (torch.inf, torch.pi, torch.e) and math.isnan(mg.nan)


# --- errors: torch's exception type and key phrase, then minigrad's " Fix:" -------------
ERRORS = {
    "stack_unequal": ("torch.stack([torch.ones(2, 3), torch.ones(3, 2)])",
                      "stack expects each tensor to be equal size, but got [2, 3] at entry 0 "
                      "and [3, 2] at entry 1"),
    "stack_empty": ("torch.stack([])", "stack expects a non-empty TensorList"),
    "stack_tensor_not_list": ("torch.stack(torch.ones(2))", "must be tuple of Tensors"),
    "stack_number_in_list": ("torch.stack([torch.ones(2), 1])",
                             "expected Tensor as element 1 in argument 0, but got int"),
    "stack_dim_range": ("torch.stack([torch.ones(2, 3)] * 2, 3)",
                        "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    "cat_empty": ("torch.cat([])", "expected a non-empty list of Tensors"),
    "cat_sizes": ("torch.cat([torch.ones(2, 3), torch.ones(3, 2)])",
                  "Sizes of tensors must match except in dimension 0. Expected size 3 but got "
                  "size 2 for tensor number 1 in the list."),
    "cat_sizes_dim1": ("torch.cat([torch.ones(2, 3), torch.ones(3, 2)], 1)",
                       "Sizes of tensors must match except in dimension 1. Expected size 2 but "
                       "got size 3 for tensor number 1 in the list."),
    "cat_ndim": ("torch.cat([torch.ones(2, 3), torch.ones(2)])",
                 "Tensors must have same number of dimensions: got 2 and 1"),
    "cat_0d": ("torch.cat([torch.tensor(1.), torch.tensor(2.)])",
               "zero-dimensional tensor (at position 0) cannot be concatenated"),
    "cat_dim_range": ("torch.cat([torch.ones(2, 3)] * 2, 2)",
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    "where_float_condition": ("a = torch.ones(2)\ntorch.where(a, a, a)",
                              "where expected condition to be a boolean tensor, but got a "
                              "tensor with dtype Float"),
    "where_broadcast": ("a = torch.ones(2)\ntorch.where(a > 0, a, torch.ones(3))",
                        "The size of tensor a (2) must match the size of tensor b (3) at "
                        "non-singleton dimension 0"),
    "clamp_no_bounds": ("torch.clamp(torch.ones(2))",
                        "torch.clamp: At least one of 'min' or 'max' must not be None"),
    "clamp_method_no_bounds": ("torch.ones(2).clamp()", "At least one of 'min' or 'max'"),
    "clamp_number_and_tensor": ("torch.clamp(torch.ones(3), 0, torch.ones(3))",
                                "clamp() received an invalid combination of arguments"),
    "clamp_tensor_broadcast": ("torch.clamp(torch.ones(2, 3), torch.zeros(2))",
                               "The size of tensor a (3) must match the size of tensor b (2)"),
    "abs_bool": ("torch.tensor([True]).abs()", "\"abs_cpu\" not implemented for 'Bool'"),
    "dot_2d": ("torch.dot(torch.ones(3, 1), torch.ones(3))",
               "1D tensors expected, but got 2D and 1D tensors"),
    "dot_sizes": ("torch.dot(torch.ones(3), torch.ones(2))",
                  "inconsistent tensor size, expected tensor [3] and src [2] to have the same "
                  "number of elements, but got 3 and 2 elements respectively"),
    "dot_dtypes": ("torch.dot(torch.ones(3), torch.ones(3, dtype=torch.float64))",
                   "dot : expected both vectors to have same dtype, but found Float and Double"),
    "norm_int": ("torch.tensor([3, 4]).norm()",
                 "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                 "Got Long"),
    "norm_dim_range": ("torch.tensor([[3., 4.]]).norm(dim=2)", "Dimension out of range"),
    "norm_inf_empty": ("torch.tensor([]).norm(p=float('inf'))",
                       "linalg.vector_norm cannot compute the inf norm on an empty tensor"),
    "movedim_range": ("torch.movedim(torch.ones(2, 3, 4), 3, 0)",
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    "movedim_repeated": ("torch.movedim(torch.ones(2, 3, 4), (0, 0), (1, 2))",
                         "movedim: repeated dim in `source` ([0, 0])"),
    "movedim_repeated_destination": ("torch.movedim(torch.ones(2, 3, 4), (0, 1), (1, 1))",
                                     "movedim: repeated dim in `destination` ([1, 1])"),
    "movedim_lengths": ("torch.movedim(torch.ones(2, 3, 4), (0, 1), (1,))",
                        "should contain the same number of dims as destination"),
    "permute_length": ("torch.ones(2, 3, 4).permute(2, 0)",
                       "number of dimensions in the tensor input does not match the length of "
                       "the desired ordering of dimensions"),
    "permute_duplicate": ("torch.ones(2, 3, 4).permute(2, 0, 0)",
                          "duplicate dims are not allowed"),
    "isclose_number": ("torch.isclose(torch.ones(2), 1.0)",
                       "argument 'other' (position 2) must be Tensor, not float"),
    "isclose_dtypes": ("torch.isclose(torch.ones(2), torch.tensor([1, 2]))",
                       "Float did not match Long"),
    "allclose_dtypes": ("torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))",
                        "Float did not match Double"),
    "allclose_shapes": ("torch.allclose(torch.ones(2, 3), torch.ones(3, 2))",
                        "The size of tensor a (3) must match the size of tensor b (2) at "
                        "non-singleton dimension 1"),
    "isclose_rtol": ("a = torch.ones(2)\ntorch.isclose(a, a, rtol=-1)",
                     "rtol must be greater than or equal to zero, but got -1"),
    "isclose_atol": ("a = torch.ones(2)\ntorch.isclose(a, a, atol=-1)",
                     "atol must be greater than or equal to zero, but got -1"),
    "equal_number": ("torch.equal(torch.ones(2), 1)",
                     "argument 'other' (position 2) must be Tensor, not int"),
    "eye_negative": ("torch.eye(-1)", "n must be greater or equal to 0, got -1"),
    "eye_m_negative": ("torch.eye(2, -1)", "m must be greater or equal to 0, got -1"),
    "eye_float": ("torch.eye(2.0)", "argument 'n'"),
    "linspace_negative": ("torch.linspace(0, 1, -1)", "number of steps must be non-negative"),
    "linspace_float_steps": ("torch.linspace(0, 1, 2.0)", "linspace()"),
    "arange_zero_step": ("torch.arange(0, 5, 0)", "step must be nonzero"),
    "arange_bounds": ("torch.arange(5, 0)",
                      "upper bound and lower bound inconsistent with step sign"),
    "full_int_size": ("torch.full(2, 1)",
                      "full(): argument 'size' (position 1) must be tuple of ints, not int"),
    "rand_like_int": ("torch.rand_like(torch.tensor([1, 2]))",
                      "\"check_uniform_bounds\" not implemented for 'Long'"),
    "randn_like_int": ("torch.randn_like(torch.tensor([1, 2]))",
                       "\"normal_kernel_cpu\" not implemented for 'Long'"),
    "int_requires_grad": ("torch.zeros(2, dtype=torch.int64, requires_grad=True)",
                          "Only Tensors of floating point and complex dtype can require "
                          "gradients"),
    "full_int_requires_grad": ("torch.full((2,), 1, requires_grad=True)",
                               "Only Tensors of floating point"),
    "device_unknown": ("torch.device('foo')", "device type at start of device string: foo"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_matches_torch(name):
    snippet, phrase = ERRORS[name]
    theirs, ours = check_snippet(snippet)
    assert theirs is not None, "torch raised nothing: the case is wrong"
    assert phrase in str(theirs), f"the phrase is not torch's: {theirs}"
    assert phrase in str(ours), f"minigrad: {ours}"
    assert " Fix: " in str(ours), f"no Fix: in {ours}"


def test_clamp_tensor_bounds_get_torch_gradients_at_ties_and_crossings():
    values = {"x": [-2.0, -1.0, 0.0, 1.0, 2.0, NAN, 0.5, 0.3],
              "low": [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, NAN],
              "high": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0]}
    calls = [lambda L, x, lo, hi: L.clamp(x, lo, hi), lambda L, x, lo, hi: x.clamp(min=lo),
             lambda L, x, lo, hi: x.clamp(max=hi), lambda L, x, lo, hi: x.clamp_min(lo),
             lambda L, x, lo, hi: L.clamp_max(x, hi)]
    for call in calls:
        out = {}
        for lib in (torch, mg):
            xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values.values()]
            y = call(lib, *xs)
            y.backward(lib.ones_like(y))
            out[lib] = [y, y.grad_fn.name()] + [x.grad for x in xs]
        assert out[mg][1] == out[torch][1]
        for a, b in zip(out[mg][2:] + out[mg][:1], out[torch][2:] + out[torch][:1], strict=True):
            if b is None:
                assert a is None
            else:
                np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


# --- set_printoptions: minigrad's repr follows it as torch's does ------------------------
PRINTED = [
    lambda L: L.tensor([1.123456789, 2.5, 3.0]),
    lambda L: L.tensor([1e-5, 1.0, 1000.0]),
    lambda L: L.tensor([1.0, 2.0, 3.0]),
    lambda L: L.arange(30.0) / 7,
    lambda L: L.tensor(1.23456789),
    lambda L: L.tensor([1, 2]),
    lambda L: L.tensor([[0.5, -1.25], [3.0, 100.0]], requires_grad=True) * 1,
    lambda L: L.arange(2000.0).reshape(40, 50) / 3,
    lambda L: L.arange(12.0),
    lambda L: L.tensor([1e10, 1.0, -3.0], dtype=L.float64),
]
OPTIONS = [
    {"precision": 2},
    {"precision": 6},
    {"precision": 4, "sci_mode": True},
    {"sci_mode": False},
    {"linewidth": 40},
    {"linewidth": 120, "precision": 3},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"profile": "short"},
    {"profile": "full", "linewidth": 200},
    {"profile": "default"},
]


@pytest.fixture
def restore_printoptions():
    yield
    torch.set_printoptions(profile="default")
    mg.set_printoptions(profile="default")


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_set_printoptions_changes_repr_as_torch(options, restore_printoptions):
    torch.set_printoptions(**options)
    mg.set_printoptions(**options)
    for make in PRINTED:
        assert repr(make(mg)) == repr(make(torch)).replace("torch.", "minigrad."), options


def test_printoptions_persist_until_reset_and_sci_mode_resets(restore_printoptions):
    from minigrad.printing import get_printoptions, printoptions

    mg.set_printoptions(precision=2, sci_mode=True)
    mg.set_printoptions(linewidth=100)  # precision stays; sci_mode goes back to None
    assert get_printoptions() == {"precision": 2, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 100, "sci_mode": None}
    assert repr(mg.tensor([1.125])) == "tensor([1.12])"
    with printoptions(precision=5):
        assert repr(mg.tensor([1.125])) == "tensor([1.12500])"
    assert repr(mg.tensor([1.125])) == "tensor([1.12])"
    mg.set_printoptions(profile="default")
    assert repr(mg.tensor([1.125])) == "tensor([1.1250])"


# --- the rest of autograd's rules hold for the new ops ----------------------------------
SAVED = {  # an in-place change of what backward needs is caught; of what it does not, not
    "sin_input": "y = x * 1\nz = y.sin()\ny.mul_(2)",
    "cos_input": "y = x * 1\nz = torch.cos(y)\ny.add_(1)",
    "abs_input": "y = x * 1\nz = y.abs()\ny.mul_(2)",
    "sqrt_output": "z = x.sqrt()\nz.mul_(2)",
    "clamp_input": "y = x * 1\nz = y.clamp(0, 1.5)\ny.mul_(2)",
    "clamp_tensor_bound": "b = torch.ones(2)\nz = x.clamp(max=b)\nb.mul_(2)",
    "norm_output": "z = x.norm()\nz.mul_(2)",
    "dot_input": "y = x * 1\nz = torch.dot(y, x)\ny.mul_(2)",
    "where_condition": "c = torch.tensor([True, False])\nz = torch.where(c, x, 0.)\n"
                       "c.fill_(True)",
    "stack_needs_nothing": "y = x * 1\nz = torch.stack([y, y])\ny.mul_(2)",
    "cat_needs_nothing": "y = x * 1\nz = torch.cat([y, x])\ny.mul_(2)",
    "sign_needs_nothing": "y = x * 1\nz = y.sign() * y.detach()\ny.mul_(2)",
    "movedim_view_in_place": "y = (x * 1).reshape(1, 2)\nz = y.movedim(0, 1)\nz.mul_(3)",
}


@pytest.mark.parametrize("name", SAVED)
def test_in_place_change_of_saved_values_is_caught_as_torch(name):
    snippet = ("x = torch.tensor([1., 2.], requires_grad=True)\n" + SAVED[name]
               + "\nz.sum().backward()\nout = [z, x.grad]")
    check_snippet(snippet)


def test_gradcheck_and_gradgradcheck_pass_on_the_new_ops():
    from minigrad.autograd.gradcheck import gradgradcheck

    def f(a, b, v):
        s = mg.stack([a.sin(), b.cos()], 1)
        c = mg.cat([s.movedim(0, 2), s.movedim(0, 2) * 2], 0)
        w = mg.where(a > 0, a.abs().sqrt(), b.clamp(-0.5, 0.5))
        return c.norm(dim=1).sum() + mg.dot(v, v.clamp_min(b[0])) + w.norm(p=3)

    r = np.random.default_rng(1)
    inputs = [mg.tensor(r.uniform(0.2, 1.5, size=shape) * r.choice([-1, 1], size=shape),
                        dtype=mg.float64, requires_grad=True)
              for shape in ((3, 4), (3, 4), (4,))]
    assert mg.gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_hooks_and_retain_grad_see_the_new_nodes():
    got = {}
    for lib in (torch, mg):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        seen = []
        y = lib.stack([x.sin(), x.abs()])
        y.retain_grad()
        y.register_hook(lambda g, seen=seen: seen.append(tuple(g.shape)) or g * 2)
        y.sum().backward()
        nodes = [n[0] if isinstance(n, tuple) else n for n in y.grad_fn.next_functions]
        got[lib] = (seen, y.grad, x.grad, [n.name() for n in nodes if n is not None])
    assert got[mg][0] == got[torch][0] == [(2, 2)]
    assert_close(got[mg][1], got[torch][1], rtol=1e-6)
    assert_close(got[mg][2], got[torch][2], rtol=1e-6)
    assert got[mg][3] == got[torch][3] == ["SinBackward0", "AbsBackward0"]


@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.integers(0, 2**16),
       st.integers(-4, 3), st.booleans(), st.sampled_from([1, 2, 3, INF]))
def test_joins_moves_and_norms_of_any_shape_match_torch(shape, seed, dim, keepdim, p):
    """stack, cat, movedim and norm along every valid dim of random shapes."""
    ndim = len(shape)
    dim = dim % ndim if -ndim <= dim < ndim else ndim - 1
    other = list(shape)
    other[dim] = other[dim] % 3 + 1  # another size along dim: cat must still work

    def fn(L, a, b, c):
        joined = L.cat([a, b], dim).movedim(dim, -1)
        stacked = L.stack([a, c * a], dim)
        return (joined.norm(p=p, dim=-1, keepdim=keepdim).sum()
                + stacked.norm(p=p, dim=dim, keepdim=keepdim).sum() + joined.norm(p=p))

    helper_test_op([tuple(shape), tuple(other), tuple(shape)], lambda *xs: fn(torch, *xs),
                   lambda *xs: fn(mg, *xs), seed=seed)
