"""Second-order transforms under vmap (chapter 15): batched Hessians of a small function
on a batch of points, ``vmap(hessian(f))``, ``vmap(jacrev(jacrev(f)))``,
``vmap(jacfwd(jacrev(f)))`` and their cousins, compared with torch.func."""

import pytest
import torch

import minigrad
from tests.edge_parity import compare


def _f(x):
    return (x.sin() * x ** 3).sum() + x[0] * x[1] * x[2]


def _g(x, y):
    return (x * x * y).sum() + (y ** 3).sum()


FORMS = {
    "hessian": lambda fn, X: fn.vmap(fn.hessian(_f))(X),
    "jacrev_jacrev": lambda fn, X: fn.vmap(fn.jacrev(fn.jacrev(_f)))(X),
    "jacfwd_jacrev": lambda fn, X: fn.vmap(fn.jacfwd(fn.jacrev(_f)))(X),
    "jacrev_grad": lambda fn, X: fn.vmap(fn.jacrev(fn.grad(_f)))(X),
    "jacfwd_grad": lambda fn, X: fn.vmap(fn.jacfwd(fn.grad(_f)))(X),
    "grad_of_grad_sum": lambda fn, X: fn.vmap(fn.grad(lambda x: fn.grad(_f)(x).sum()))(X),
    "jvp_of_grad": lambda fn, X: fn.vmap(
        lambda x: fn.jvp(fn.grad(_f), (x,), (x * 0 + 1,))[1])(X),
    "vjp_of_grad": lambda fn, X: fn.vmap(
        lambda x: fn.vjp(fn.grad(_f), x)[1](x * 2)[0])(X),
    "hessian_in_dims_1": lambda fn, X: fn.vmap(fn.hessian(_f), in_dims=1)(X.T),
    "hessian_out_dims_1": lambda fn, X: fn.vmap(fn.hessian(_f), out_dims=1)(X),
    "nested_vmap_hessian": lambda fn, X: fn.vmap(fn.vmap(fn.hessian(_f)))(X.reshape(2, 1, 3)),
    "hessian_two_args": lambda fn, X: fn.vmap(fn.hessian(_g, argnums=1))(X, X * 0.5),
    "hessian_shared_arg": lambda fn, X: fn.vmap(fn.hessian(_g, argnums=1),
                                                in_dims=(None, 0))(X[0], X),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_second_order_under_vmap_matches_torch_func(form):
    outs = []
    for lib in (torch, minigrad):
        X = lib.tensor([[0.5, -1., 2.], [1.5, 0.3, -0.7]], dtype=lib.float64)
        outs.append(FORMS[form](lib.func, X))
    compare(outs[1], outs[0], rtol=1e-10, atol=1e-12)


def test_first_order_under_vmap_keeps_one_pass():
    """vmap(grad(f)) without a nested transform stays on the one-graph path."""
    from minigrad.func import batched_transforms

    calls = []
    original = batched_transforms._per_sample
    batched_transforms._per_sample = lambda *a: calls.append(a) or original(*a)
    try:
        X = minigrad.tensor([[0.5, -1., 2.], [1.5, 0.3, -0.7]], dtype=minigrad.float64)
        minigrad.func.vmap(minigrad.func.grad(_f))(X)
        assert not calls
        minigrad.func.vmap(minigrad.func.hessian(_f))(X)
        assert calls
    finally:
        batched_transforms._per_sample = original
