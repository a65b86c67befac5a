"""``minigrad.optim``'s errors and warnings against torch's (chapter 10): the same
exception type, torch's phrase, then " Fix: ..."; and the public import paths."""

import pytest
import torch

import minigrad
from tests.edge_parity import check_snippet

W = "w = torch.ones(2, requires_grad=True)\n"
ERRORS = {
    "empty": "torch.optim.SGD([], lr=0.1)",
    "empty_adam": "torch.optim.Adam(iter([]))",
    "not_a_tensor": "torch.optim.Adam([1.0])",
    "a_string_among_tensors": W + "torch.optim.SGD([w, 'w'], lr=0.1)",
    "a_tensor_not_a_list": W + "torch.optim.RMSprop(w)",
    "non_leaf": W + "torch.optim.AdamW([w * 2])",
    "in_two_groups": W + "torch.optim.SGD([{'params': [w]}, {'params': [w], 'lr': 1.0}], "
                         "lr=0.1)",
    "group_not_a_dict": W + "torch.optim.SGD([w], lr=0.1).add_param_group([w])",
    "group_of_a_set": W + "torch.optim.SGD([w], lr=0.1).add_param_group({'params': {w}})",
    "added_twice": W + "o = torch.optim.Adam([w])\no.add_param_group({'params': [w]})",
    "sgd_lr": W + "torch.optim.SGD([w], lr=-0.1)",
    "sgd_momentum": W + "torch.optim.SGD([w], lr=0.1, momentum=-0.5)",
    "sgd_weight_decay": W + "torch.optim.SGD([w], lr=0.1, weight_decay=-0.01)",
    "nesterov_no_momentum": W + "torch.optim.SGD([w], lr=0.1, nesterov=True)",
    "nesterov_dampening": W + "torch.optim.SGD([w], lr=0.1, momentum=0.9, dampening=0.1, "
                              "nesterov=True)",
    "adam_lr": W + "torch.optim.Adam([w], lr=-1e-3)",
    "adam_eps": W + "torch.optim.Adam([w], eps=-1e-8)",
    "adam_beta0": W + "torch.optim.Adam([w], betas=(1.0, 0.999))",
    "adam_beta1": W + "torch.optim.AdamW([w], betas=(0.9, -0.5))",
    "adam_betas_not_floats": W + "torch.optim.Adam([w], betas=(0, 0.999))",
    "adam_weight_decay": W + "torch.optim.AdamW([w], weight_decay=-1.0)",
    "rmsprop_lr": W + "torch.optim.RMSprop([w], lr=-0.01)",
    "rmsprop_alpha": W + "torch.optim.RMSprop([w], alpha=-0.5)",
    "rmsprop_eps": W + "torch.optim.RMSprop([w], eps=-1.0)",
    "rmsprop_momentum": W + "torch.optim.RMSprop([w], momentum=-0.9)",
    "rmsprop_weight_decay": W + "torch.optim.RMSprop([w], weight_decay=-0.1)",
}
# Where torch names its own class, the phrase before it.
PHRASES = {"a_tensor_not_a_list": "params argument given to the optimizer should be an "
                                  "iterable of Tensors or dicts, but got"}


def _check_error(snippet, phrase=None):
    t_exc, m_exc = check_snippet(snippet)
    assert t_exc is not None, "torch raised nothing"
    assert (phrase or str(t_exc)) in str(m_exc), f"torch: {t_exc}\nminigrad: {m_exc}"
    assert " Fix: " in str(m_exc), str(m_exc)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_keep_torchs_type_and_phrase(case):
    _check_error(ERRORS[case], PHRASES.get(case))


def test_duplicate_parameters_in_a_group_warn_like_torch():
    for lib in (torch, minigrad):
        w = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="optimizer contains a parameter group with "
                          "duplicate parameters; in future, this will cause an error"):
            lib.optim.SGD([w, w], lr=0.1)


@pytest.mark.parametrize(("name", "option"), [
    ("SGD", {"foreach": True}), ("SGD", {"fused": True}), ("Adam", {"capturable": True}),
    ("AdamW", {"differentiable": True}), ("RMSprop", {"foreach": True})])
def test_other_implementations_than_the_for_loop_are_refused(name, option):
    """torch's foreach/fused/capturable/differentiable forms: minigrad has the
    single-tensor one only, and says so rather than ignore the option."""
    w = minigrad.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="only the single-tensor implementation.* "
                       "Fix: leave"):
        getattr(minigrad.optim, name)([w], **option)
    getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **option)


def test_public_import_paths():
    from minigrad.optim import SGD, Adam, AdamW, Optimizer, RMSprop, lr_scheduler
    from minigrad.optim.lr_scheduler import (
        CosineAnnealingLR,
        ExponentialLR,
        LambdaLR,
        LRScheduler,
        MultiStepLR,
        StepLR,
    )

    assert all(issubclass(c, Optimizer) for c in (SGD, Adam, AdamW, RMSprop))
    assert issubclass(AdamW, Adam) and AdamW.__mro__[1:] == (Adam, Optimizer, object)
    assert all(issubclass(c, LRScheduler) for c in (
        StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR))
    assert minigrad.optim.lr_scheduler is lr_scheduler


@pytest.mark.parametrize("snippet", [
    "torch.optim.SGD([w], lr=0.1).load_state_dict("
    "torch.optim.SGD([{'params': [w]}, {'params': [v]}], lr=0.1).state_dict())",
    "torch.optim.SGD([w], lr=0.1).load_state_dict("
    "torch.optim.SGD([w, v], lr=0.1).state_dict())",
])
def test_load_state_dict_of_another_shape_is_refused_like_torch(snippet):
    _check_error("w = torch.ones(2, requires_grad=True)\nv = torch.ones(3, requires_grad=True)\n"
                 + snippet)
