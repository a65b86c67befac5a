"""``checkpoint(fn, *args)`` with arguments that are not tensors, against torch (chapter 16).

Torch passes numbers, ``None`` and flags through to ``fn`` (both variants), and keyword
arguments too with ``use_reentrant=False``; with ``use_reentrant=True`` a keyword argument
is torch's ``ValueError: Unexpected keyword arguments``.
"""

import warnings

import numpy as np
import pytest
import torch
from torch.utils.checkpoint import checkpoint as torch_checkpoint

import minigrad
from minigrad.utils.checkpoint import checkpoint as minigrad_checkpoint
from tests.edge_parity import compare

CHECKPOINT = {minigrad: minigrad_checkpoint, torch: torch_checkpoint}


def _block(x, k, bias, flag, w, scale=1.0):
    y = (x * k).sin() @ w
    if bias is not None:
        y = y + bias
    return (y * 2 if flag else y) * scale


CALLS = [
    ((3, None, True), {}),
    ((0.5, None, False), {}),
    ((2, "bias", True), {}),
    ((1.5, None, True), {"scale": -0.5}),
]


def _run(lib, reentrant, positional, keywords):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 2)), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(rng.standard_normal((2, 2)), dtype=lib.float64, requires_grad=True)
    bias = lib.tensor(rng.standard_normal(2), dtype=lib.float64, requires_grad=True)
    k, b, flag = positional
    args = (x, k, bias if b == "bias" else None, flag, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = CHECKPOINT[lib](_block, *args, use_reentrant=reentrant, **keywords)
        (out * out).sum().backward()
    return out, [x.grad, w.grad, bias.grad]


@pytest.mark.parametrize("reentrant", [False, True])
@pytest.mark.parametrize(("positional", "keywords"), CALLS, ids=str)
def test_non_tensor_arguments_pass_through_as_torch(reentrant, positional, keywords):
    if reentrant and keywords:
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale") as e:
            _run(torch, reentrant, positional, keywords)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale") as e:
            _run(minigrad, reentrant, positional, keywords)
        assert " Fix: " in str(e.value)
        return
    out_m, grads_m = _run(minigrad, reentrant, positional, keywords)
    out_t, grads_t = _run(torch, reentrant, positional, keywords)
    compare(out_m, out_t, "output", 1e-10, 1e-12)
    for name, g_m, g_t in zip(["x", "w", "bias"], grads_m, grads_t, strict=True):
        assert (g_m is None) == (g_t is None), name
        if g_t is not None:
            compare(g_m, g_t, f"{name}.grad", 1e-10, 1e-12)


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_of_numbers_only_returns_the_value(reentrant):
    """No tensor among the arguments: the value comes back (torch warns, reentrant)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = minigrad_checkpoint(lambda k: minigrad.tensor(1.0) * k, 2,
                                   use_reentrant=reentrant)
        theirs = torch_checkpoint(lambda k: torch.tensor(1.0) * k, 2, use_reentrant=reentrant)
    assert ours.item() == theirs.item()
    assert ours.requires_grad == theirs.requires_grad
