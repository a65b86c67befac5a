"""Tensor hooks and gradient checkpointing against torch (chapter 16)."""

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.course.graph_memory import saved_bytes

LIBS = {"minigrad": mg, "torch": torch}


def _each(run):
    return {name: run(lib) for name, lib in LIBS.items()}


def _same(results):
    assert results["minigrad"] == results["torch"], results


def test_a_hook_on_a_computed_tensor_changes_what_flows_on_and_what_retain_grad_keeps():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        y.retain_grad()
        (y * y).sum().backward()
        return x.grad.tolist(), y.grad.tolist()

    _same(_each(run))


def test_a_leaf_hook_sees_the_summed_gradient_once_and_runs_before_grad_is_updated():
    def run(lib):
        x = lib.tensor([1.0, -3.0], requires_grad=True)
        seen, after = [], []
        x.register_hook(lambda g: seen.append(g.tolist()))
        x.register_post_accumulate_grad_hook(lambda t: after.append(t.grad.tolist()))
        (x * x + 3 * x).sum().backward()
        return seen, after, x.grad.tolist()

    _same(_each(run))


def test_hooks_run_in_order_and_a_handle_removes_one():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        first = x.register_hook(lambda g: g * 2)
        x.register_hook(lambda g: g + 1)
        (x * 1).sum().backward()
        once = x.grad.tolist()
        first.remove()
        x.grad = None
        (x * 1).sum().backward()
        return once, x.grad.tolist()

    _same(_each(run))


def test_a_clipping_hook():
    def run(lib):
        x = lib.tensor([0.5, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        x.register_hook(lambda g: g * (1.0 / (g * g).sum() ** 0.5))  # unit norm
        (x ** 3).sum().backward()
        return np.round(x.grad.tolist(), 12).tolist()

    _same(_each(run))


def test_hook_errors_match_torch():
    for lib in LIBS.values():
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that "
                                               "doesn't require gradient"):
            lib.ones(2).register_hook(lambda g: g)
        x = lib.ones(2, requires_grad=True)
        x.register_hook(lambda g: "bad")
        with pytest.raises(TypeError, match="expected Variable, but hook returned 'str'"):
            (x * 3).sum().backward()
        x = lib.ones(2, requires_grad=True)
        x.register_hook(lambda g, lib=lib: lib.ones(3))
        with pytest.raises(RuntimeError, match="has changed the size of value"):
            (x * 3).sum().backward()
        with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be "
                                               "registered on non-leaf tensors"):
            (x * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_hooks_work_in_a_recorded_backward_too():
    def run(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x ** 3
        y.register_hook(lambda g: g * 2)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        h, = lib.autograd.grad(g.sum(), x)
        return g.tolist(), h.tolist()

    _same(_each(run))


R = np.random.default_rng(0)
X, W1, W2, W3 = (R.normal(size=(16, 8)), R.normal(size=(8, 8)) / 3, R.normal(size=(8, 8)) / 3,
                 R.normal(size=(3, 8)))


def _checkpointed(lib, use_reentrant, x_requires_grad):
    ck = mg.utils.checkpoint.checkpoint if lib is mg else torch.utils.checkpoint.checkpoint
    f = mg.nn.functional if lib is mg else torch.nn.functional
    x = lib.tensor(X, requires_grad=x_requires_grad)
    w1, w2, w3 = (lib.tensor(a, requires_grad=True) for a in (W1, W2, W3))

    def block(h):
        return f.linear(f.linear(h, w1).tanh(), w2).tanh()

    y = f.linear(ck(block, x, use_reentrant=use_reentrant), w3).sum()
    y.backward()
    grads = [w.grad.numpy() if lib is torch else w.grad.numpy() for w in (w1, w2, w3)]
    if x_requires_grad:
        grads.append(x.grad.numpy() if lib is torch else x.grad.numpy())
    return grads


@pytest.mark.parametrize("use_reentrant,x_requires_grad",
                         [(True, True), (False, True), (False, False)])
def test_checkpoint_gives_torchs_gradients(use_reentrant, x_requires_grad):
    got = {name: _checkpointed(lib, use_reentrant, x_requires_grad)
           for name, lib in LIBS.items()}
    for a, b in zip(got["minigrad"], got["torch"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_checkpoint_warnings_match_torch():
    for name, lib in LIBS.items():
        ck = mg.utils.checkpoint.checkpoint if lib is mg else torch.utils.checkpoint.checkpoint
        w = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            y = ck(lambda h, w=w: (h * w).exp(), lib.ones(3), use_reentrant=True)
        assert any("None of the inputs have requires_grad=True" in str(r.message)
                   for r in record), name
        assert not y.requires_grad
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            ck(lambda h: h.exp(), lib.ones(3, requires_grad=True))
        assert any("use_reentrant parameter should be passed explicitly" in str(r.message)
                   for r in record), name


def test_checkpoint_keeps_only_the_inputs():
    x = mg.tensor(X)
    w1, w2, w3 = (mg.tensor(a, requires_grad=True) for a in (W1, W2, W3))
    f = mg.nn.functional

    def block(h):
        return f.linear(f.linear(h, w1).tanh(), w2).tanh()

    plain = saved_bytes(f.linear(block(x), w3).sum())
    kept = saved_bytes(f.linear(mg.utils.checkpoint.checkpoint(block, x, use_reentrant=False),
                                w3).sum())
    # Without (each array once): x (saved by the first layer, for w1), h1 = tanh's output
    # (saved by tanh and, as its input, by the second layer), w2 (for h1's gradient),
    # h2 (tanh, and the third layer), w3. With: x (the checkpoint's input), h2, w3.
    # The block's inside, h1 and w2, is what checkpointing saves: 16 x 8 + 8 x 8 float64.
    assert plain - kept == (X.shape[0] * W1.shape[0] + W2.size) * 8


def _linear(lib):
    m = lib.nn.Linear(3, 2)
    weight = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, -6.0]])
    m.weight = lib.nn.Parameter(lib.tensor(weight, dtype=lib.float32))
    m.bias = lib.nn.Parameter(lib.tensor([0.5, -1.0], dtype=lib.float32))
    return m


def test_module_hooks_see_and_change_what_torchs_see_and_change():
    def run(lib):
        m = _linear(lib)
        log = []
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", tuple(args[0].shape))))
        m.register_forward_hook(lambda mod, args, out: out * 2)
        m.register_full_backward_hook(lambda mod, gin, gout: log.append(
            ("backward", tuple(gin[0].shape), gout[0].tolist())))
        x = lib.ones(2, 3, requires_grad=True)
        y = m(x)
        node = y.grad_fn.name()
        (y * y).sum().backward()
        return log, x.grad.tolist(), node

    got = _each(run)
    assert got["minigrad"][:2] == got["torch"][:2]
    assert got["minigrad"][2] == "BackwardHookFunctionBackward" == got["torch"][2]


def test_a_full_backward_hook_can_replace_the_input_gradient():
    def run(lib):
        m = _linear(lib)
        m.register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 0,))
        x = lib.ones(4, 3, requires_grad=True)
        m(x).sum().backward()
        return x.grad.tolist(), m.weight.grad.tolist()

    _same(_each(run))


def test_a_full_backward_hook_without_input_gradients_fires_with_none_and_warns():
    for lib in LIBS.values():
        m, seen = _linear(lib), []
        m.register_full_backward_hook(lambda mod, gin, gout, seen=seen: seen.append(gin))
        with pytest.warns(UserWarning, match="no inputs require gradients"):
            m(lib.ones(1, 3)).sum().backward()
        assert seen == [(None,)]


def test_a_removed_module_hook_is_gone():
    for lib in LIBS.values():
        m, seen = _linear(lib), []
        handle = m.register_forward_hook(lambda mod, args, out, seen=seen: seen.append(1))
        m(lib.ones(1, 3))
        handle.remove()
        m(lib.ones(1, 3))
        assert seen == [1]


def test_inference_tensors_are_marked_and_refused_where_torch_refuses_them():
    """Not a hook: chapter 09's inference tensors, kept with the other engine extensions."""
    for lib in LIBS.values():
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.inference_mode():
            p = lib.tensor([3.0, 4.0]) * 2
        assert p.is_inference() and p.detach().is_inference()
        assert not lib.ones(2).is_inference()
        assert (p + w).requires_grad  # the gradient of a sum saves neither operand
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for "
                                               "backward"):
            p * w
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside "
                                               "InferenceMode is not allowed"):
            p.add_(1)
        q = p.clone()
        assert not q.is_inference()
        (q * w).sum().backward()
        assert w.grad.tolist() == p.tolist()  # (torch changes p before refusing add_)
