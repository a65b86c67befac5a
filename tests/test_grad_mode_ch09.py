"""Chapter 09's claims about grad mode, run in minigrad and in torch side by side."""

import threading

import pytest
import torch

import minigrad

LIBS = [minigrad, torch]


@pytest.mark.parametrize("lib", LIBS, ids=["minigrad", "torch"])
def test_inference_mode_wins_over_a_nested_enable_grad(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.inference_mode():
        with lib.enable_grad():
            assert lib.is_grad_enabled()
            doubled = w * 2
        with lib.set_grad_enabled(True):
            tripled = w * 3
    assert doubled.grad_fn is None and not doubled.requires_grad
    assert tripled.grad_fn is None
    with lib.no_grad(), lib.enable_grad():  # outside inference mode the innermost wins
        assert (w * 2).grad_fn is not None


@pytest.mark.parametrize("lib", LIBS, ids=["minigrad", "torch"])
def test_grad_mode_belongs_to_the_thread(lib):
    seen = {}

    def other():
        seen["before"] = lib.is_grad_enabled()
        with lib.no_grad():
            seen["inside"] = lib.is_grad_enabled()

    with lib.no_grad():
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        assert not lib.is_grad_enabled()
    assert seen == {"before": True, "inside": False}
    assert lib.is_grad_enabled()


@pytest.mark.parametrize("lib", LIBS, ids=["minigrad", "torch"])
def test_detach_shares_the_version_counter_and_data_does_not(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x ** 2).sum()
    d = x.detach()
    d.add_(10.0)  # d does not require grad: no no_grad() needed
    assert (x._version, d._version) == (1, 1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x ** 2).sum()
    x.data += 10
    y.backward()  # silently wrong: twice the changed x
    assert x._version == 0
    assert x.grad.tolist() == [22.0, 24.0]


@pytest.mark.parametrize("lib", LIBS, ids=["minigrad", "torch"])
def test_a_tensor_made_in_inference_mode_enters_a_sum(lib):
    with lib.inference_mode():
        p = lib.tensor([3.0, 4.0]) * 2
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    (p + w).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_both_refuse_to_save_or_change_an_inference_tensor():
    """minigrad marks inference tensors as torch does."""
    with torch.inference_mode():
        p_t = torch.tensor([3.0, 4.0]) * 2
    with minigrad.inference_mode():
        p = minigrad.tensor([3.0, 4.0]) * 2
    w_t = torch.tensor([1.0, 2.0], requires_grad=True)
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    for p_, w_ in ((p_t, w_t), (p, w)):
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            p_ * w_
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
            p_.add_(1.0)
