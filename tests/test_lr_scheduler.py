"""``minigrad.optim.lr_scheduler`` against torch's (chapter 10).

For each scheduler the learning rates over 30 epochs (``get_last_lr()`` and the groups'
``lr``), the bookkeeping (``last_epoch``, ``_step_count``, ``base_lrs``, the groups'
``initial_lr``) and ``state_dict()`` equal torch's; chained with an optimizer, the
parameters agree after every step.
"""

import re
import warnings

import numpy as np
import pytest
import torch

import minigrad
from tests.edge_parity import check_snippet, compare
from tests.test_optim import _compare_state, _data, _loss, _params

EPOCHS = 30


def _lambda_95(epoch):
    return 0.95 ** epoch


def _lambda_inverse(epoch):
    return 1 / (1 + epoch)


SCHEDULERS = [
    ("StepLR", {"step_size": 7, "gamma": 0.5}),
    ("StepLR", {"step_size": 1}),
    ("MultiStepLR", {"milestones": [3, 10, 10, 22], "gamma": 0.3}),
    ("MultiStepLR", {"milestones": [25, 5]}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 10}),  # 30 epochs: down, up again, down
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.01}),
    ("LambdaLR", {"lr_lambda": _lambda_95}),
    ("LambdaLR", {"lr_lambda": [_lambda_inverse, _lambda_95]}),
]


def _optimizers(name="SGD", options=None):
    """The same two-group optimizer in both libraries (lr 0.1 and 0.02)."""
    theirs, ours = _params(torch), _params(minigrad)
    made = []
    for lib, params in ((torch, theirs), (minigrad, ours)):
        made.append(getattr(lib.optim, name)(
            [{"params": params[:2]}, {"params": params[2:], "lr": 0.02}], lr=0.1,
            **(options or {})))
    return made[1], made[0], ours, theirs


def _same_bookkeeping(s_m, s_t, what):
    np.testing.assert_allclose(s_m.get_last_lr(), s_t.get_last_lr(), rtol=1e-14,
                               err_msg=f"{what}: get_last_lr()")
    for key in ("lr", "initial_lr"):
        np.testing.assert_allclose([g[key] for g in s_m.optimizer.param_groups],
                                   [g[key] for g in s_t.optimizer.param_groups], rtol=1e-14,
                                   err_msg=f"{what}: group {key}")
    assert (s_m.last_epoch, s_m._step_count) == (s_t.last_epoch, s_t._step_count), what
    assert s_m.base_lrs == s_t.base_lrs, what
    sd_m, sd_t = s_m.state_dict(), s_t.state_dict()
    assert list(sd_m) == list(sd_t), f"{what}: state_dict keys {list(sd_m)} vs {list(sd_t)}"
    for key, value in sd_t.items():
        if key not in ("_last_lr",):
            assert sd_m[key] == value, f"{what}: state_dict[{key!r}] {sd_m[key]} vs {value}"


def _sequence(s, epochs=EPOCHS):
    lrs = [s.get_last_lr()]
    for _ in range(epochs):
        s.optimizer.step()
        s.step()
        lrs.append(s.get_last_lr())
    return np.array(lrs)


def _case_id(value):
    """A stable test id (a function's repr holds its address, which differs between the
    xdist workers): functions by name."""
    return re.sub(r"<function (\w+) at 0x[0-9a-f]+>", r"\1", str(value))


@pytest.mark.parametrize(("name", "options"), SCHEDULERS, ids=_case_id)
def test_lr_sequence_over_30_epochs_matches_torch(name, options):
    opt_m, opt_t, _, _ = _optimizers()
    s_t = getattr(torch.optim.lr_scheduler, name)(opt_t, **options)
    s_m = getattr(minigrad.optim.lr_scheduler, name)(opt_m, **options)
    _same_bookkeeping(s_m, s_t, "after construction")
    for epoch in range(EPOCHS):
        for opt, s in ((opt_t, s_t), (opt_m, s_m)):
            opt.step()
            s.step()
        _same_bookkeeping(s_m, s_t, f"{name}({options}), epoch {epoch}")


@pytest.mark.parametrize(("name", "options"), SCHEDULERS[::2], ids=_case_id)
def test_state_dict_resumes_the_sequence_and_last_epoch_restarts_like_torch(name, options):
    """A scheduler that loads another's state_dict goes on as it would have; one made
    with ``last_epoch`` (the groups holding ``initial_lr``) continues as torch's does."""
    opt_a = _optimizers()[0]
    first = getattr(minigrad.optim.lr_scheduler, name)(opt_a, **options)
    _sequence(first, 8)
    opt_b = _optimizers()[0]
    again = getattr(minigrad.optim.lr_scheduler, name)(opt_b, **options)
    opt_b.load_state_dict(opt_a.state_dict())  # torch's order: the scheduler first
    again.load_state_dict(first.state_dict())
    assert again.last_epoch == 8 and again.optimizer is opt_b
    np.testing.assert_allclose(_sequence(again, 10), _sequence(first, 10), rtol=0)
    opt_m, opt_t, _, _ = _optimizers()
    s = [getattr(lib.optim.lr_scheduler, name)(opt, **options)
         for lib, opt in ((minigrad, opt_m), (torch, opt_t))]
    _sequence(s[0], 4), _sequence(s[1], 4)
    s = [getattr(lib.optim.lr_scheduler, name)(opt, last_epoch=9, **options)
         for lib, opt in ((minigrad, opt_m), (torch, opt_t))]
    _same_bookkeeping(*s, "made with last_epoch=9")
    np.testing.assert_allclose(_sequence(s[0], 12), _sequence(s[1], 12), rtol=1e-14)


def test_two_schedulers_on_one_optimizer_chain_like_torch():
    """torch's chainable form: each scheduler scales the lr the other left."""
    opt_m, opt_t, _, _ = _optimizers()
    made = [[lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)]
            for lib, opt in ((minigrad, opt_m), (torch, opt_t))]
    for epoch in range(EPOCHS):
        if epoch == 3:  # the second one keeps the groups' initial_lr as its base_lrs
            for lib, opt, chain in ((minigrad, opt_m, made[0]), (torch, opt_t, made[1])):
                chain.append(lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[5, 12],
                                                                gamma=0.5))
        for opt, chain in ((opt_m, made[0]), (opt_t, made[1])):
            opt.step()
            for s in chain:
                s.step()
        for s_m, s_t in zip(*made, strict=True):
            _same_bookkeeping(s_m, s_t, f"chained, epoch {epoch}")


@pytest.mark.parametrize(("name", "sched", "options"), [
    ("SGD", "StepLR", {"step_size": 4, "gamma": 0.5}),
    ("Adam", "CosineAnnealingLR", {"T_max": 6, "eta_min": 0.001}),
    ("AdamW", "MultiStepLR", {"milestones": [3, 8]}),
    ("RMSprop", "ExponentialLR", {"gamma": 0.8}),
    ("SGD", "LambdaLR", {"lr_lambda": _lambda_inverse}),
], ids=_case_id)
def test_training_with_a_scheduler_matches_torch(name, sched, options):
    opt_m, opt_t, ours, theirs = _optimizers(name, {"SGD": {"momentum": 0.9}}.get(name))
    s_t = getattr(torch.optim.lr_scheduler, sched)(opt_t, **options)
    s_m = getattr(minigrad.optim.lr_scheduler, sched)(opt_m, **options)
    rng = np.random.default_rng(7)
    for k in range(15):
        x, y = _data(rng)
        for lib, params, opt, s in ((torch, theirs, opt_t, s_t), (minigrad, ours, opt_m, s_m)):
            opt.zero_grad()
            _loss(lib, params, lib.tensor(x), lib.tensor(y), k).backward()
            opt.step()
            s.step()
        _compare_state(opt_m, opt_t, ours, theirs, f"{name} with {sched}, step {k}")
        _same_bookkeeping(s_m, s_t, f"{sched}, step {k}")


def test_step_with_an_epoch_warns_and_uses_the_closed_form_like_torch():
    opt_m, opt_t, _, _ = _optimizers()
    made = [lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
            for lib, opt in ((minigrad, opt_m), (torch, opt_t))]
    for epoch in (4, 9, 2):
        for s in made:
            s.optimizer.step()
            with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
                s.step(epoch)
        _same_bookkeeping(*made, f"step({epoch})")


def test_get_lr_outside_step_warns_like_torch():
    opt_m, opt_t, _, _ = _optimizers()
    for lib, opt in ((minigrad, opt_m), (torch, opt_t)):
        s = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            s.get_lr()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            opt.step()
            s.step()
            compare(s.get_last_lr(), [0.05, 0.01], "get_last_lr")


SCHEDULER_ERRORS = {
    "not_an_optimizer": "torch.optim.lr_scheduler.StepLR([w], step_size=2)",
    "lambdas_count": "o = torch.optim.SGD([{'params': [w]}, {'params': [v]}], lr=0.1)\n"
                     "torch.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0])",
    "resume_without_initial_lr": "o = torch.optim.SGD([w], lr=0.1)\n"
                                 "torch.optim.lr_scheduler.ExponentialLR(o, 0.9, last_epoch=3)",
}


@pytest.mark.parametrize("case", sorted(SCHEDULER_ERRORS))
def test_scheduler_errors_keep_torchs_type_and_phrase(case):
    snippet = ("w = torch.ones(2, requires_grad=True)\nv = torch.ones(3, requires_grad=True)\n"
               + SCHEDULER_ERRORS[case])
    t_exc, m_exc = check_snippet(snippet)
    assert t_exc is not None
    phrase = str(t_exc.args[0]).split("\n")[0]
    assert phrase in str(m_exc) and " Fix: " in str(m_exc), f"{t_exc}\n{m_exc}"
