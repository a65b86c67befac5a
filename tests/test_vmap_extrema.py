"""``max(dim)``/``min(dim)`` inside vmap (their ``.indices`` per sample, as torch's), and
``min``/``argmin`` themselves against torch (chapter 05's reductions, chapter 14's vmap)."""

import pytest
import torch

import minigrad
from tests.edge_parity import check_snippet, compare

MAPPED = {
    "max_indices": lambda lib: lambda r: r.max(0).indices,
    "max_item_1": lambda lib: lambda r: r.max(0)[1],
    "top_level_max_indices": lambda lib: lambda r: lib.max(r, 0).indices,
    "max_keepdim_indices": lambda lib: lambda r: r.max(-1, keepdim=True).indices,
    "min_indices": lambda lib: lambda r: r.min(0).indices,
    "min_values": lambda lib: lambda r: r.min(0).values,
    "top_level_min_keepdim": lambda lib: lambda r: lib.min(r, 0, keepdim=True)[1],
    "min_all": lambda lib: lambda r: r.min(),
    "argmin_all": lambda lib: lambda r: r.argmin(),
    "argmin_dim": lambda lib: lambda r: r.argmin(0),
}


@pytest.mark.parametrize("in_dims", [0, 1])
@pytest.mark.parametrize("name", sorted(MAPPED))
def test_indices_inside_vmap_match_torch(name, in_dims):
    outs = []
    for lib in (torch, minigrad):
        x = lib.tensor([[1., 5., 2.], [7., 0., 3.], [4., 4., -1.]], dtype=lib.float64)
        outs.append(lib.func.vmap(MAPPED[name](lib), in_dims=in_dims)(x))
    compare(outs[1], outs[0], rtol=1e-12, atol=0)


def test_min_vmap_gradient_matches_torch():
    outs = []
    for lib in (torch, minigrad):
        x = lib.tensor([[1., 5., 2.], [7., 0., 3.]], dtype=lib.float64)
        outs.append(lib.func.vmap(lib.func.grad(lambda r: r.min() + r.min(0).values))(x))
    compare(outs[1], outs[0], rtol=1e-12, atol=0)


SNIPPETS = [
    "x = torch.tensor([[1., float('nan'), 2.], [1., 1., 3.]], dtype=torch.float64, "
    "requires_grad=True)\nm = x.min()\nr = x.min(1)\n(m + r.values.sum()).backward()\n"
    "out = [m, r.values, r.indices, x.grad, m.grad_fn.name(), r.values.grad_fn.name()]",
    "x = torch.tensor([[2., 1.], [1., 1.]], dtype=torch.float64, requires_grad=True)\n"
    "m = torch.min(x)\nm.backward()\nout = [m, x.grad, x.argmin(), x.argmin(1, keepdim=True)]",
    "out = [torch.tensor(3.).min(0).indices, torch.tensor([[1, 2], [1, 0]]).min(0).values]",
    "torch.tensor([]).min()",
    "torch.zeros(2, 0).min(1)",
    "torch.tensor([True]).argmin()",
]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_min_matches_torch(snippet):
    theirs, ours = check_snippet(snippet, rtol=1e-12, atol=0)
    if theirs is not None:
        assert "Fix:" in str(ours)
