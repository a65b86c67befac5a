"""``minigrad.optim`` against ``torch.optim`` (chapter 10): SGD, Adam, AdamW, RMSprop.

Each test builds the same float64 parameters in both libraries, runs 10-20 steps of a
small loss on the same data, and after every step compares every parameter (values,
version counter, ``.grad``) and the optimizer's state (keys, values, dtypes, versions),
rtol 1e-10. Some parameters skip steps (no gradient: the step must leave them and their
state alone) and one gets its first gradient late (its state is made then). The errors
are in test_optim_errors.py.
"""

import copy
import pickle

import numpy as np
import pytest
import torch

import minigrad
from tests.edge_parity import compare

RTOL = 1e-10
ATOL = 1e-12
SHAPES = [(3, 4), (3,), (3,), (2,), (2, 2)]


def _params(lib, seed=0, dtype="float64"):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.uniform(-1, 1, s), dtype=getattr(lib, dtype), requires_grad=True)
            for s in SHAPES]


def _loss(lib, params, x, y, k):
    """A small regression loss. ``d`` has no gradient at steps 1, 4, 7...; ``e`` none
    before step 3 (its state is made late)."""
    w, b, c, d, e = params
    loss = (((x @ w.T + b).tanh() @ c - y) ** 2).mean()
    if k % 3 != 1:
        loss = loss + (d * d).sum() * 0.5 + (d * c[:2]).sum()
    if k >= 3:
        loss = loss + ((e @ e) * x[:2, :2]).sum() * 0.1
    return loss


def _data(rng, dtype="float64"):
    return (rng.standard_normal((6, 4)).astype(dtype), rng.standard_normal(6).astype(dtype))


def _compare_state(opt_m, opt_t, ours, theirs, what, rtol=RTOL, atol=ATOL, versions=True):
    """Parameters and state equal; ``versions``: the state's version counters too."""
    for i, (p, q) in enumerate(zip(ours, theirs, strict=True)):
        label = f"{what}, parameter {i}"
        compare(p, q, label, rtol, atol)
        compare(p.grad, q.grad, f"{label}: .grad (a step leaves it alone)", rtol, atol)
        assert p.is_leaf and p.requires_grad and p.grad_fn is None, label
        assert p._version == q._version, f"{label}: version {p._version} vs {q._version}"
        s_m, s_t = opt_m.state.get(p), opt_t.state.get(q)
        assert (s_m is None) == (s_t is None), f"{label}: state {s_m} vs {s_t}"
        if s_t is None:
            continue
        assert list(s_m) == list(s_t), f"{label}: state keys {list(s_m)} vs {list(s_t)}"
        for key, value in s_t.items():
            compare(s_m[key], value, f"{label}, state[{key!r}]", rtol, atol)
            assert not s_m[key].requires_grad and s_m[key].grad_fn is None, key
            assert not versions or s_m[key]._version == value._version, (
                f"{label}, state[{key!r}]: version {s_m[key]._version} vs {value._version}")


def _compare_groups(groups_m, groups_t, what="param_groups", packed=False):
    assert len(groups_m) == len(groups_t), what
    for g_m, g_t in zip(groups_m, groups_t, strict=True):
        assert list(g_m) == list(g_t), f"{what}: keys {list(g_m)} vs {list(g_t)}"
        for key, value in g_t.items():
            if key == "params" and not packed:
                assert len(g_m[key]) == len(value), what
            else:
                assert g_m[key] == value and type(g_m[key]) is type(value), (
                    f"{what}[{key!r}]: {g_m[key]!r} vs {value!r}")


def _groups(params, spec):
    """``spec`` None: the list itself; else [(indices, options)...] as param group dicts."""
    if spec is None:
        return list(params)
    return [{"params": [params[i] for i in idx], **opts} for idx, opts in spec]


def _train(name, options, steps=15, groups=None, seed=0, dtype="float64", rtol=RTOL,
           atol=ATOL, set_to_none=True):
    """Train both libraries' ``name`` side by side, comparing after each step."""
    theirs, ours = _params(torch, seed, dtype), _params(minigrad, seed, dtype)
    opt_t = getattr(torch.optim, name)(_groups(theirs, groups), **options)
    opt_m = getattr(minigrad.optim, name)(_groups(ours, groups), **options)
    _compare_groups(opt_m.param_groups, opt_t.param_groups)
    rng = np.random.default_rng(seed + 1)
    for k in range(steps):
        x, y = _data(rng, dtype)
        for lib, params, opt in ((torch, theirs, opt_t), (minigrad, ours, opt_m)):
            opt.zero_grad(set_to_none=set_to_none)
            _loss(lib, params, lib.tensor(x), lib.tensor(y), k).backward()
            assert opt.step() is None
        _compare_state(opt_m, opt_t, ours, theirs, f"{name}({options}), step {k}", rtol, atol)
    return opt_m, opt_t, ours, theirs


SGD_CASES = [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.5},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "maximize": True},
    {"lr": 0.05, "momentum": 0.8, "dampening": 0.2, "weight_decay": 0.05, "maximize": True},
    {"lr": 0.02, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "maximize": True},
]
ADAM_CASES = [
    {"lr": 0.05},
    {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-6},
    {"lr": 0.05, "betas": (0.3, 0.6)},  # 1 - beta1 > 0.5: torch's other lerp branch
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "amsgrad": True},
    {"lr": 0.05, "maximize": True},
    {"lr": 0.02, "maximize": True, "amsgrad": True, "weight_decay": 0.01},
]
ADAMW_CASES = [
    {"lr": 0.05},  # weight_decay 1e-2 by default, decoupled
    {"lr": 0.05, "weight_decay": 0.2, "betas": (0.85, 0.95)},
    {"lr": 0.05, "weight_decay": 0},
    {"lr": 0.05, "amsgrad": True, "maximize": True},
]
RMSPROP_CASES = [
    {"lr": 0.01},
    {"lr": 0.01, "alpha": 0.9, "eps": 1e-6},
    {"lr": 0.01, "weight_decay": 0.1},
    {"lr": 0.01, "momentum": 0.9},
    {"lr": 0.01, "centered": True},
    {"lr": 0.01, "centered": True, "alpha": 0.3},  # grad_avg's lerp, weight > 0.5
    {"lr": 0.005, "centered": True, "momentum": 0.5, "weight_decay": 0.05, "maximize": True},
]
CASES = ([("SGD", o) for o in SGD_CASES] + [("Adam", o) for o in ADAM_CASES]
         + [("AdamW", o) for o in ADAMW_CASES] + [("RMSprop", o) for o in RMSPROP_CASES])
NAMES = ["SGD", "Adam", "AdamW", "RMSprop"]


@pytest.mark.parametrize(("name", "options"), CASES, ids=lambda v: str(v))
def test_training_matches_torch_step_by_step(name, options):
    opt_m, opt_t, _, _ = _train(name, options)
    _compare_groups(opt_m.param_groups, opt_t.param_groups)


@pytest.mark.parametrize(("name", "options"), [
    ("SGD", {"lr": 0.05, "momentum": 0.9}), ("SGD", {"lr": 0.05, "momentum": 0.5,
                                                      "nesterov": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True}), ("RMSprop", {"momentum": 0.5, "centered": True})])
def test_gradients_zeroed_in_place_share_nothing_with_the_state(name, options):
    """``zero_grad(set_to_none=False)`` reuses each ``.grad``: a momentum buffer that
    shared its array (no copy of the first gradient) would be zeroed with it."""
    _train(name, options, steps=10, set_to_none=False)


@pytest.mark.parametrize("name", NAMES)
def test_defaults_and_param_groups_match_torch(name):
    """torch's defaults (the group keys and values, in order), two groups with their own
    options, and ``add_param_group`` mid-training (the group gets the defaults)."""
    options = {"SGD": {"momentum": 0.9}}.get(name, {})
    opt_m, opt_t, _, _ = _train(name, options, steps=12,
                                groups=[([0, 1], {"lr": 0.05}), ([2, 3, 4], {})])
    _compare_groups([opt_m.defaults], [opt_t.defaults], "defaults", packed=True)
    theirs, ours = _params(torch, 3), _params(minigrad, 3)
    opt_t = getattr(torch.optim, name)(theirs[:2], lr=0.05)
    opt_m = getattr(minigrad.optim, name)(ours[:2], lr=0.05)
    rng = np.random.default_rng(4)
    for k in range(10):
        if k == 4:
            opt_t.add_param_group({"params": theirs[2:], "lr": 0.01})
            opt_m.add_param_group({"params": ours[2:], "lr": 0.01})
            _compare_groups(opt_m.param_groups, opt_t.param_groups)
        x, y = _data(rng)
        for lib, params, opt in ((torch, theirs, opt_t), (minigrad, ours, opt_m)):
            opt.zero_grad()
            _loss(lib, params, lib.tensor(x), lib.tensor(y), k).backward()
            opt.step()
        _compare_state(opt_m, opt_t, ours, theirs, f"{name}, add_param_group, step {k}")
    assert repr(opt_m) == repr(opt_t).replace("torch", "minigrad")


@pytest.mark.parametrize("name", NAMES)
def test_float32_parameters_keep_torchs_dtypes(name):
    """float32 parameters: float32 state (and a float32 ``step`` counter, as torch's)."""
    _train(name, {"lr": 0.01}, steps=6, dtype="float32", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_step_records_nothing_and_runs_the_closure_with_grad(name):
    theirs, ours = _params(torch), _params(minigrad)
    x, y = _data(np.random.default_rng(2))
    for lib, params in ((torch, theirs), (minigrad, ours)):
        opt = getattr(lib.optim, name)(params, lr=0.01)
        seen = []

        def closure(lib=lib, params=params, opt=opt, seen=seen):
            seen.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = _loss(lib, params, lib.tensor(x), lib.tensor(y), 0)
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        assert seen == [True] and loss.grad_fn is not None
        assert all(p.is_leaf and p.grad_fn is None for p in params)
    for p, q in zip(ours, theirs, strict=True):
        compare(p, q, "after a step with a closure", RTOL, ATOL)


def test_zero_grad_set_to_none_false_zeroes_in_place_like_torch():
    theirs, ours = _params(torch), _params(minigrad)
    x, y = _data(np.random.default_rng(5))
    for lib, params in ((torch, theirs), (minigrad, ours)):
        opt = lib.optim.Adam(params, lr=0.01)
        _loss(lib, params, lib.tensor(x), lib.tensor(y), 3).backward()  # all get a grad
        grads = [p.grad for p in params]
        versions = [g._version for g in grads]
        opt.zero_grad(set_to_none=False)
        assert all(p.grad is g for p, g in zip(params, grads, strict=True))
        assert [g._version - v for g, v in zip(grads, versions, strict=True)] == [1] * 5
        assert all(not p.grad.requires_grad and not p.grad.detach().numpy().any()
                   for p in params)
        before = [p.detach().numpy().copy() for p in params]
        opt.step()  # zero gradients are stepped (the state is made), unlike None ones
        assert len(opt.state) == 5 and all(
            np.array_equal(p.detach().numpy(), b) for p, b in zip(params, before, strict=True))
        opt.zero_grad()
        assert all(p.grad is None for p in params)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip_resumes_like_torch(name):
    """``state_dict()`` as torch (ids for parameters, the state by id, the groups), and
    a new optimizer that loads it continues exactly as the first one."""
    options = {"SGD": {"momentum": 0.9}, "Adam": {"amsgrad": True},
               "RMSprop": {"centered": True, "momentum": 0.5}}.get(name, {})
    groups = [([0, 1], {"lr": 0.05}), ([2, 3, 4], {"lr": 0.01})]
    opt_m, opt_t, ours, theirs = _train(name, options, steps=6, groups=groups)
    sd_m, sd_t = opt_m.state_dict(), opt_t.state_dict()
    assert list(sd_m) == ["state", "param_groups"]
    _compare_groups(sd_m["param_groups"], sd_t["param_groups"], "state_dict", packed=True)
    assert list(sd_m["state"]) == list(sd_t["state"])
    for i, s in sd_t["state"].items():
        assert list(sd_m["state"][i]) == list(s)
        for key, value in s.items():
            compare(sd_m["state"][i][key], value, f"state_dict state {i} {key}", RTOL, ATOL)
    twins = [p.detach().clone().requires_grad_() for p in ours]
    twins_t = [p.detach().clone().requires_grad_() for p in theirs]
    twin = getattr(minigrad.optim, name)(_groups(twins, [(i, {}) for i, _ in groups]))
    twin_t = getattr(torch.optim, name)(_groups(twins_t, [(i, {}) for i, _ in groups]))
    twin.load_state_dict(pickle.loads(pickle.dumps(sd_m)))  # as saved to disk: copies
    twin_t.load_state_dict(copy.deepcopy(sd_t))
    _compare_groups(twin.param_groups, twin_t.param_groups)
    _compare_state(twin, twin_t, twins, twins_t, "loaded", versions=False)  # copies
    rng = np.random.default_rng(9)
    for k in range(6, 12):
        x, y = _data(rng)
        for lib, params, opt in ((minigrad, ours, opt_m), (minigrad, twins, twin),
                                 (torch, twins_t, twin_t)):
            opt.zero_grad()
            _loss(lib, params, lib.tensor(x), lib.tensor(y), k).backward()
            opt.step()
        for p, q in zip(twins, ours, strict=True):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(),
                                          f"resumed, step {k}")
        _compare_state(twin, twin_t, twins, twins_t, f"resumed, step {k}", versions=False)

def test_optimizer_pickles_and_deepcopies_with_its_state():
    opt_m, _, ours, _ = _train("Adam", {"lr": 0.05}, steps=3)
    for other in (copy.deepcopy(opt_m), pickle.loads(pickle.dumps(opt_m))):
        assert len(other.state) == len(opt_m.state) == 4  # e has had no gradient yet
        assert other.param_groups[0]["betas"] == (0.9, 0.999)
        for p, q in zip(other.param_groups[0]["params"][:4], ours[:4], strict=True):
            np.testing.assert_array_equal(other.state[p]["exp_avg"].numpy(),
                                          opt_m.state[q]["exp_avg"].numpy(), "copied state")
