"""``minigrad.nn.utils.clip_grad_norm_`` and ``clip_grad_value_`` against torch's
(chapter 10): float64 gradients on several parameters, one with no gradient; the
returned total norm, the clipped gradients, and the errors."""

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close, make_inputs

SHAPES = [(3, 4), (4,), (2, 2, 3), (5,)]


def _params(scale):
    """Four parameters of both libraries with the same gradients times ``scale``;
    the last one has ``grad is None`` (it took no part in the loss)."""
    theirs, ours = make_inputs(SHAPES, seed=7)
    grads = [np.random.default_rng(i).normal(size=s) * scale for i, s in enumerate(SHAPES)]
    for t, m, g in list(zip(theirs, ours, grads, strict=True))[:-1]:
        t.grad = torch.tensor(g, dtype=torch.float64)
        m.grad = minigrad.tensor(g, dtype=minigrad.float64)
    return theirs, ours


def _same_grads(ours, theirs):
    for i, (m, t) in enumerate(zip(ours, theirs, strict=True)):
        assert_close(m.grad, t.grad, what=f"grad of parameter {i}")


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.0, "inf"])
@pytest.mark.parametrize(("scale", "max_norm"), [(100.0, 1.0), (0.01, 5.0), (1.0, 2)])
def test_clip_grad_norm_matches_torch(norm_type, scale, max_norm):
    theirs, ours = _params(scale)
    t_norm = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    m_norm = minigrad.nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    assert isinstance(m_norm, minigrad.Tensor) and m_norm.shape == ()
    assert str(m_norm.dtype) == str(t_norm.dtype).replace("torch", "minigrad")
    assert_close(m_norm, t_norm, what="total norm")
    _same_grads(ours, theirs)
    assert ours[-1].grad is None


def test_a_norm_below_max_norm_leaves_the_gradients_alone():
    theirs, ours = _params(0.01)
    before = [m.grad.numpy().copy() for m in ours[:-1]]
    t_norm = torch.nn.utils.clip_grad_norm_(theirs, 10.0)
    m_norm = minigrad.nn.utils.clip_grad_norm_(ours, 10.0)
    assert t_norm.item() < 10.0
    assert_close(m_norm, t_norm, what="total norm")
    _same_grads(ours, theirs)
    for b, m in zip(before, ours[:-1], strict=True):
        np.testing.assert_array_equal(m.grad.numpy(), b)


def test_clipping_scales_every_gradient_by_one_factor():
    """The whole gradient keeps its direction: each grad is multiplied by
    max_norm / (total_norm + 1e-6), as torch's source states."""
    theirs, ours = _params(100.0)
    before = [m.grad.numpy().copy() for m in ours[:-1]]
    total = minigrad.nn.utils.clip_grad_norm_(ours, 1.0).item()
    for b, m in zip(before, ours[:-1], strict=True):
        np.testing.assert_allclose(m.grad.numpy(), b * (1.0 / (total + 1e-6)), rtol=1e-12)
    torch.nn.utils.clip_grad_norm_(theirs, 1.0)
    _same_grads(ours, theirs)


def test_one_tensor_a_generator_and_float32():
    t = torch.tensor([3.0, 4.0], requires_grad=True)
    m = minigrad.tensor([3.0, 4.0], requires_grad=True)
    t.grad, m.grad = torch.tensor([30.0, 40.0]), minigrad.tensor([30.0, 40.0])
    t_norm = torch.nn.utils.clip_grad_norm_(t, 5.0)
    m_norm = minigrad.nn.utils.clip_grad_norm_(m, 5.0)
    assert m_norm.dtype == minigrad.float32 and t_norm.dtype == torch.float32
    assert_close(m_norm, t_norm, rtol=1e-6)
    assert_close(m.grad, t.grad, rtol=1e-6)
    theirs, ours = _params(100.0)
    t_norm = torch.nn.utils.clip_grad_norm_(iter(theirs), 1.0)
    m_norm = minigrad.nn.utils.clip_grad_norm_(iter(ours), 1.0)
    assert_close(m_norm, t_norm)
    _same_grads(ours, theirs)


def test_no_gradients_at_all_give_a_float32_zero():
    t = torch.nn.utils.clip_grad_norm_([torch.ones(2, requires_grad=True)], 1.0)
    m = minigrad.nn.utils.clip_grad_norm_([minigrad.ones(2, requires_grad=True)], 1.0)
    assert t.item() == m.item() == 0.0
    assert t.dtype == torch.float32 and m.dtype == minigrad.float32


def test_an_empty_generator_warns_like_torch():
    for lib in (torch, minigrad):
        with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient "
                          "clipping will occur."):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
def test_a_non_finite_norm(bad):
    """Without error_if_nonfinite both scale by the non-finite norm; with it, both raise."""
    values = [1.0, bad]
    t = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    m = minigrad.zeros(2, dtype=minigrad.float64, requires_grad=True)
    t.grad = torch.tensor(values, dtype=torch.float64)
    m.grad = minigrad.tensor(values, dtype=minigrad.float64)
    t_norm = torch.nn.utils.clip_grad_norm_([t], 1.0)
    m_norm = minigrad.nn.utils.clip_grad_norm_([m], 1.0)
    np.testing.assert_array_equal(m_norm.numpy(), t_norm.numpy())
    np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())
    with pytest.raises(RuntimeError) as t_exc:
        torch.nn.utils.clip_grad_norm_([t], 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as m_exc:
        minigrad.nn.utils.clip_grad_norm_([m], 1.0, error_if_nonfinite=True)
    phrase = str(t_exc.value).split(". To disable")[0]
    assert phrase in str(m_exc.value) and " Fix: " in str(m_exc.value), str(m_exc.value)


@pytest.mark.parametrize("foreach", [None, False, True])
def test_foreach_gives_the_same_values(foreach):
    theirs, ours = _params(100.0)
    t_norm = torch.nn.utils.clip_grad_norm_(theirs, 1.0, foreach=foreach)
    m_norm = minigrad.nn.utils.clip_grad_norm_(ours, 1.0, foreach=foreach)
    assert_close(m_norm, t_norm)
    _same_grads(ours, theirs)


def test_get_total_norm_and_clip_grads_with_norm_():
    theirs, ours = _params(100.0)
    t_norm = torch.nn.utils.get_total_norm([p.grad for p in theirs if p.grad is not None], 1.0)
    m_norm = minigrad.nn.utils.get_total_norm([p.grad for p in ours if p.grad is not None], 1.0)
    assert_close(m_norm, t_norm)
    torch.nn.utils.clip_grads_with_norm_(theirs, 2.0, t_norm)
    minigrad.nn.utils.clip_grads_with_norm_(ours, 2.0, m_norm)
    _same_grads(ours, theirs)


@pytest.mark.parametrize("clip_value", [0.5, 2, 100.0])
def test_clip_grad_value_matches_torch(clip_value):
    theirs, ours = _params(3.0)
    assert torch.nn.utils.clip_grad_value_(theirs, clip_value) is None
    assert minigrad.nn.utils.clip_grad_value_(ours, clip_value) is None
    _same_grads(ours, theirs)
    assert ours[-1].grad is None
    t, m = theirs[0], ours[0]
    torch.nn.utils.clip_grad_value_(t, 0.1)
    minigrad.nn.utils.clip_grad_value_(m, 0.1)
    assert_close(m.grad, t.grad)


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
def test_clipping_records_no_graph():
    """Both run under no_grad: a gradient that requires grad is clipped, no graph."""
    for lib in (torch, minigrad):
        w = lib.ones(2, dtype=lib.float64, requires_grad=True)
        (w * w * 10).sum().backward(create_graph=True)
        assert w.grad.requires_grad
        lib.nn.utils.clip_grad_norm_([w], 1.0)
        lib.nn.utils.clip_grad_value_([w], 0.5)
        np.testing.assert_allclose(w.grad.detach().numpy(), [0.5, 0.5])


def test_public_import_paths():
    from minigrad.nn.utils import clip_grad_norm_, clip_grad_value_
    from minigrad.nn.utils.clip_grad import clip_grad_norm_ as deep
    assert deep is clip_grad_norm_ and callable(clip_grad_value_)
