"""``minigrad.optim`` on 0-d parameters against ``torch.optim`` (chapter 10).

A 0-d parameter's arithmetic in numpy gives numpy scalars, not arrays: a state buffer made
from one is not written in place, and the steps drift from torch's (SGD with momentum and
weight decay took 1.15, 1.3, 1.45 where torch takes 1.15, 1.3975, 1.67087). Every optimizer
case of test_optim.py runs here on a 0-d and a (1,) parameter, step by step.
"""

import pytest
import torch

import minigrad
from tests.edge_parity import compare
from tests.test_optim import CASES


def _run(lib, name, options, shape, steps=6):
    p = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
    if shape == (1,):
        p = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
    opt = getattr(lib.optim, name)([p], **options)
    values = []
    for k in range(steps):
        opt.zero_grad()
        loss = (p * p * (0.5 + 0.1 * k) - p * 0.3).sum()
        loss.backward()
        opt.step()
        values.append((p.detach().clone(), {key: v.clone() if hasattr(v, "clone") else v
                                            for key, v in opt.state[p].items()}))
    return values


@pytest.mark.parametrize("shape", [(), (1,)], ids=["0-d", "(1,)"])
@pytest.mark.parametrize(("name", "options"), CASES, ids=lambda v: str(v))
def test_0d_parameter_steps_match_torch(name, options, shape):
    ours = _run(minigrad, name, options, shape)
    theirs = _run(torch, name, options, shape)
    for k, ((p_m, s_m), (p_t, s_t)) in enumerate(zip(ours, theirs, strict=True)):
        compare(p_m, p_t, f"step {k}: parameter", 1e-10, 1e-12)
        assert list(s_m) == list(s_t), f"step {k}: state keys {list(s_m)} vs {list(s_t)}"
        for key in s_t:
            compare(s_m[key], s_t[key], f"step {k}: state[{key!r}]", 1e-10, 1e-12)


def test_sgd_momentum_weight_decay_0d_gives_torchs_numbers():
    """The case from the chapter writers (lr 0.1, momentum 0.9, weight_decay 0.5)."""
    p = minigrad.tensor(1.0, dtype=minigrad.float64, requires_grad=True)
    opt = minigrad.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.5)
    got = []
    for _ in range(3):
        opt.zero_grad()
        (p * -1.0).backward()
        opt.step()
        got.append(p.item())
    p_t = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    opt_t = torch.optim.SGD([p_t], lr=0.1, momentum=0.9, weight_decay=0.5)
    want = []
    for _ in range(3):
        opt_t.zero_grad()
        (p_t * -1.0).backward()
        opt_t.step()
        want.append(p_t.item())
    assert got == pytest.approx(want, rel=1e-12)
