"""``nn.BatchNorm1d``, ``nn.LayerNorm``, ``nn.Embedding``, the BCE losses and their
functional forms against torch (float64): values, input and parameter gradients after a
non-uniform upstream gradient, running statistics, ``state_dict`` keys, second
derivatives, forward-mode tangents and torch's errors."""

import numpy as np
import pytest
import torch

import minigrad
from minigrad import nn
from minigrad.autograd import forward_ad
from minigrad.nn import functional as F
from tests.tensor_parity import assert_close, make_inputs

TF = torch.nn.functional


def _upstream(shape, seed=1):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    array = rng.standard_normal(shape) + np.linspace(0.5, 1.5, n).reshape(shape)
    return torch.tensor(array), minigrad.tensor(array, dtype=minigrad.float64)


def _randomize(module, seed=3):
    """Non-trivial affine parameters in the torch module (1 and 0 hide mistakes)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.tensor(rng.uniform(0.5, 1.5, tuple(p.shape))))


def _twin(ours, theirs):
    """``ours`` with ``theirs``' parameters and buffers, by torch's state_dict."""
    ours.load_state_dict(theirs.state_dict())
    return ours


def _backward_both(out_m, out_t, seed=1):
    up_t, up_m = _upstream(tuple(out_t.shape), seed)
    out_t.backward(up_t)
    out_m.backward(up_m)


def _check_params(ours, theirs):
    names = [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_parameters()] == names
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters(), strict=True):
        assert_close(p.grad, q.grad, what=f"gradient of {name}")


def _check_buffers(ours, theirs):
    mine = dict(ours.named_buffers())
    assert list(mine) == [n for n, _ in theirs.named_buffers()]
    for name, b in theirs.named_buffers():
        assert mine[name].dtype == getattr(minigrad, str(b.dtype).split(".")[1]), name
        assert_close(mine[name], b, what=name)


# --- BatchNorm1d ----------------------------------------------------------------------

BN_SHAPES = [(4, 3), (5, 3, 2), (2, 3, 1), (6, 1, 4), (3, 2, 5)]


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training_matches_torch(shape, affine):
    theirs = torch.nn.BatchNorm1d(shape[1], affine=affine, dtype=torch.float64)
    _randomize(theirs)
    ours = _twin(nn.BatchNorm1d(shape[1], affine=affine, dtype=minigrad.float64), theirs)
    (x_t,), (x_m,) = make_inputs([shape], seed=len(shape))
    out_t, out_m = theirs(x_t), ours(x_m)
    assert out_m.dtype == minigrad.float64
    assert_close(out_m, out_t, what="forward")
    _backward_both(out_m, out_t)
    assert_close(x_m.grad, x_t.grad, what="input gradient")
    _check_params(ours, theirs)
    _check_buffers(ours, theirs)


@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
def test_batch_norm_running_stats_over_steps_then_eval(momentum):
    theirs = torch.nn.BatchNorm1d(3, momentum=momentum, dtype=torch.float64)
    _randomize(theirs)
    ours = _twin(nn.BatchNorm1d(3, momentum=momentum, dtype=minigrad.float64), theirs)
    for step, shape in enumerate([(4, 3), (7, 3, 2), (2, 3), (5, 3, 3)]):
        (x_t,), (x_m,) = make_inputs([shape], low=-1 + step, high=3 + 2 * step, seed=step)
        assert_close(ours(x_m), theirs(x_t), what=f"step {step}")
        _check_buffers(ours, theirs)
    assert ours.num_batches_tracked.item() == 4
    ours.eval()
    theirs.eval()
    (x_t,), (x_m,) = make_inputs([(5, 3, 2)], seed=9)
    out_t, out_m = theirs(x_t), ours(x_m)
    assert_close(out_m, out_t, what="eval forward")
    _backward_both(out_m, out_t)
    assert_close(x_m.grad, x_t.grad, what="eval input gradient")
    _check_params(ours, theirs)
    _check_buffers(ours, theirs)  # eval leaves the running statistics as they are
    assert ours.num_batches_tracked.item() == 4


def test_batch_norm_without_running_stats_uses_batch_stats_in_eval():
    theirs = torch.nn.BatchNorm1d(2, track_running_stats=False, dtype=torch.float64).eval()
    ours = nn.BatchNorm1d(2, track_running_stats=False, dtype=minigrad.float64).eval()
    _randomize(theirs)
    _twin(ours, theirs)
    assert ours.running_mean is None and ours.num_batches_tracked is None
    (x_t,), (x_m,) = make_inputs([(4, 2, 3)], seed=4)
    out_t, out_m = theirs(x_t), ours(x_m)
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    assert_close(x_m.grad, x_t.grad)
    _check_params(ours, theirs)


def test_batch_norm_functional_matches_torch():
    (x_t, w_t, b_t), (x_m, w_m, b_m) = make_inputs([(5, 3, 2), (3,), (3,)], seed=5)
    stats = np.random.default_rng(6).uniform(0.5, 2, (2, 3))
    rm_t, rv_t = torch.tensor(stats[0]), torch.tensor(stats[1])
    rm_m, rv_m = (minigrad.tensor(s, dtype=minigrad.float64) for s in stats)
    out_t = TF.batch_norm(x_t, rm_t, rv_t, w_t, b_t, training=True, momentum=0.3, eps=1e-3)
    out_m = F.batch_norm(x_m, rm_m, rv_m, w_m, b_m, training=True, momentum=0.3, eps=1e-3)
    assert_close(out_m, out_t)
    assert_close(rm_m, rm_t, what="running_mean")
    assert_close(rv_m, rv_t, what="running_var")
    _backward_both(out_m, out_t)
    for m, t in zip((x_m, w_m, b_m), (x_t, w_t, b_t), strict=True):
        assert_close(m.grad, t.grad)
    out_t = TF.batch_norm(x_t, rm_t, rv_t, w_t, b_t)  # eval: the running statistics
    out_m = F.batch_norm(x_m, rm_m, rv_m, w_m, b_m)
    assert_close(out_m, out_t, what="eval")
    no_stats_t = TF.batch_norm(x_t, None, None, training=True)
    assert_close(F.batch_norm(x_m, None, None, training=True), no_stats_t)


def test_batch_norm_state_dict_buffers_and_repr_as_torch():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3), lib.nn.ReLU(),
                                 lib.nn.Linear(3, 2), lib.nn.LayerNorm(2))

    theirs, ours = build(torch), build(minigrad)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert len(list(ours.buffers())) == 3
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert ours[1].num_batches_tracked.dtype == minigrad.int64
    assert not ours[1].running_mean.requires_grad
    assert repr(ours) == repr(theirs)
    assert list(nn.BatchNorm1d(3, affine=False, track_running_stats=False).state_dict()) == []
    for kwargs in [{}, {"momentum": None, "affine": False}, {"eps": 1e-3}, {"bias": False}]:
        assert repr(nn.BatchNorm1d(5, **kwargs)) == repr(torch.nn.BatchNorm1d(5, **kwargs))
    theirs[1].train()(torch.randn(4, 3))
    ours.load_state_dict(theirs.state_dict())
    assert ours[1].num_batches_tracked.item() == 1
    assert_close(ours[1].running_var, theirs[1].running_var, rtol=1e-6)
    ours[1].reset_parameters()
    fresh = nn.BatchNorm1d(3).state_dict()
    for name, value in ours[1].state_dict().items():
        assert np.array_equal(value.data, fresh[name].data), name


def test_register_buffer_as_torch():
    module = nn.Module()
    module.register_buffer("count", minigrad.tensor(0))
    module.register_buffer("scratch", minigrad.zeros(2), persistent=False)
    module.register_buffer("empty", None)
    assert [n for n, _ in module.named_buffers()] == ["count", "scratch"]
    assert list(module.state_dict()) == ["count"]
    module.count = minigrad.tensor(5)
    assert module.state_dict()["count"].item() == 5
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'count'"):
        module.count = 3
    module.register_buffer("count", minigrad.tensor(1))  # a buffer again: replaced
    assert module.count.item() == 1
    module.p = nn.Parameter(minigrad.ones(1))
    with pytest.raises(KeyError, match="attribute 'p' already exists"):
        module.register_buffer("p", minigrad.tensor(1))
    with pytest.raises(KeyError, match=r'buffer name can.+t contain "\."'):
        module.register_buffer("a.b", minigrad.tensor(1))
    with pytest.raises(TypeError, match="cannot assign 'list' object to buffer 'x'"):
        module.register_buffer("x", [1])


def test_batch_norm_errors_as_torch():
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when "
                                         r"training, got input size minigrad.Size\(\[1, 3\]\)"):
        bn(minigrad.randn(1, 3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        bn(minigrad.randn(1, 3, 1))
    bn.eval()(minigrad.randn(1, 3))  # eval mode: one sample is fine, as torch
    for shape, n in [((3,), 1), ((2, 3, 4, 5), 4)]:
        with pytest.raises(ValueError, match=rf"expected 2D or 3D input \(got {n}D input\)"):
            bn(minigrad.randn(*shape))
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        bn(minigrad.randn(2, 4))
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(minigrad.randn(2, 3), None, None)
    with pytest.raises(RuntimeError, match="running_mean should contain 0 elements not 3"):
        F.batch_norm(minigrad.ones(3), minigrad.zeros(3), minigrad.ones(3))
    with pytest.raises(RuntimeError, match="weight should contain 3 elements not 4"):
        F.batch_norm(minigrad.ones(2, 3), minigrad.zeros(3), minigrad.ones(3), minigrad.ones(4))
    with pytest.raises(ValueError, match="batch_norm eps must be positive during training, but "
                                         "got 0"):
        F.batch_norm(minigrad.ones(2, 3), None, None, training=True, eps=0)


# --- LayerNorm ------------------------------------------------------------------------

LN_CASES = [((4, 5), 5, {}), ((2, 3, 4), (3, 4), {}), ((3, 4), [4], {"eps": 1e-2}),
            ((2, 3), 3, {"elementwise_affine": False}), ((2, 2, 3), 3, {"bias": False}),
            ((5,), 5, {})]


@pytest.mark.parametrize(("shape", "normalized", "kwargs"), LN_CASES)
def test_layer_norm_matches_torch(shape, normalized, kwargs):
    theirs = torch.nn.LayerNorm(normalized, dtype=torch.float64, **kwargs)
    _randomize(theirs)
    ours = _twin(nn.LayerNorm(normalized, dtype=minigrad.float64, **kwargs), theirs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    (x_t,), (x_m,) = make_inputs([shape], seed=len(shape))
    out_t, out_m = theirs(x_t), ours(x_m)
    assert_close(out_m, out_t, what="forward")
    _backward_both(out_m, out_t)
    assert_close(x_m.grad, x_t.grad, what="input gradient")
    _check_params(ours, theirs)


def test_layer_norm_functional_and_errors():
    (x_t, w_t, b_t), (x_m, w_m, b_m) = make_inputs([(3, 2, 4), (2, 4), (2, 4)], seed=7)
    out_t = TF.layer_norm(x_t, (2, 4), w_t, b_t, eps=1e-4)
    out_m = F.layer_norm(x_m, (2, 4), w_m, b_m, eps=1e-4)
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    for m, t in zip((x_m, w_m, b_m), (x_t, w_t, b_t), strict=True):
        assert_close(m.grad, t.grad)
    cases = [((2, 3), 4, r"\[4\], expected input with shape \[\*, 4\], but got input of "
                         r"size\[2, 3\]"),
             ((), 4, r"\[4\], expected input with shape \[\*, 4\], but got input of size\[\]"),
             ((2, 4, 3), (3, 4), r"\[3, 4\], expected input with shape \[\*, 3, 4\]")]
    for shape, normalized, want in cases:
        with pytest.raises(RuntimeError, match="Given normalized_shape=" + want):
            nn.LayerNorm(normalized)(minigrad.randn(*shape))
    for name, args in [("weight", (minigrad.ones(3),)),
                       ("bias", (minigrad.ones(4), minigrad.ones(3)))]:
        with pytest.raises(RuntimeError, match=rf"Expected {name} to be of same shape as "
                           rf"normalized_shape, but got {name} of shape \[3\] and "
                           r"normalized_shape = \[4\]"):
            F.layer_norm(minigrad.ones(2, 4), (4,), *args)


# --- second derivatives and tangents --------------------------------------------------

def _norm_pair(kind):
    if kind == "batch":
        theirs = torch.nn.BatchNorm1d(3, dtype=torch.float64)
        ours = nn.BatchNorm1d(3, dtype=minigrad.float64)
        shape = (4, 3, 2)
    else:
        theirs = torch.nn.LayerNorm(3, dtype=torch.float64)
        ours = nn.LayerNorm(3, dtype=minigrad.float64)
        shape = (4, 2, 3)
    _randomize(theirs)
    return _twin(ours, theirs), theirs, shape


@pytest.mark.parametrize("kind", ["batch", "layer"])
def test_second_derivatives_through_norm_layers(kind):
    ours, theirs, shape = _norm_pair(kind)
    (x_t, c_t), (x_m, c_m) = make_inputs([shape, shape], seed=11)
    results = []
    for lib, module, x, c in [(torch, theirs, x_t, c_t), (minigrad, ours, x_m, c_m)]:
        loss = ((module(x) * c) ** 3).sum()  # cubed: the Hessian is not constant
        inputs = [x, module.weight, module.bias]
        grads = lib.autograd.grad(loss, inputs, create_graph=True)
        mix = sum(((g * (k + 1.5)) ** 2).sum() for k, g in enumerate(grads))
        results.append(list(grads) + list(lib.autograd.grad(mix, inputs)))
    for i, (t, m) in enumerate(zip(*results, strict=True)):
        assert_close(m, t, rtol=1e-9, atol=1e-10, what=f"gradient {i}")


@pytest.mark.parametrize("kind", ["batch", "layer"])
def test_forward_mode_tangents_through_norm_layers(kind):
    ours, theirs, shape = _norm_pair(kind)
    (x_t, v_t), (x_m, v_m) = make_inputs([shape, shape], seed=12, requires_grad=False)
    with torch.autograd.forward_ad.dual_level():
        tangent_t = torch.autograd.forward_ad.unpack_dual(
            theirs(torch.autograd.forward_ad.make_dual(x_t, v_t))).tangent
    with forward_ad.dual_level():
        tangent_m = forward_ad.unpack_dual(ours(forward_ad.make_dual(x_m, v_m))).tangent
    assert_close(tangent_m, tangent_t)


# --- Embedding ------------------------------------------------------------------------

@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("index_shape", [(5,), (2, 4), ()])
def test_embedding_matches_torch(padding_idx, index_shape):
    theirs = torch.nn.Embedding(6, 3, padding_idx=padding_idx, dtype=torch.float64)
    ours = _twin(nn.Embedding(6, 3, padding_idx=padding_idx, dtype=minigrad.float64), theirs)
    assert ours.padding_idx == theirs.padding_idx
    assert repr(ours) == repr(theirs)
    idx = np.random.default_rng(1).integers(0, 6, index_shape)
    if idx.ndim:
        idx.flat[:3] = [2, 5, 2]  # repeated rows and the padding rows
    out_t, out_m = theirs(torch.tensor(idx)), ours(minigrad.tensor(idx))
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    _check_params(ours, theirs)


def test_embedding_init_and_padding_row():
    minigrad.manual_seed(0)
    first = nn.Embedding(400, 50).weight.data.copy()
    minigrad.manual_seed(0)
    assert np.array_equal(nn.Embedding(400, 50).weight.data, first)
    assert first.dtype == np.float32
    assert abs(first.mean()) < 0.02 and abs(first.std() - 1) < 0.02  # N(0, 1)
    padded = nn.Embedding(4, 3, padding_idx=1)
    assert np.array_equal(padded.weight.data[1], np.zeros(3))
    assert np.abs(padded.weight.data[[0, 2, 3]]).min() > 0
    assert padded.weight.requires_grad
    padded.weight.data[...] = 7
    padded.reset_parameters()
    assert np.array_equal(padded.weight.data[1], np.zeros(3))
    assert np.abs(padded.weight.data).max() < 7


def test_embedding_functional_and_from_pretrained():
    (w_t,), (w_m,) = make_inputs([(5, 2)], seed=3)
    idx = [[0, 3, 3], [4, 0, 1]]
    out_t = TF.embedding(torch.tensor(idx), w_t, padding_idx=3)
    out_m = F.embedding(minigrad.tensor(idx), w_m, padding_idx=3)
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    assert_close(w_m.grad, w_t.grad)
    values = np.arange(6.0).reshape(3, 2)
    for freeze in (True, False):
        theirs = torch.nn.Embedding.from_pretrained(torch.tensor(values), freeze=freeze,
                                                    padding_idx=0)
        ours = nn.Embedding.from_pretrained(minigrad.tensor(values), freeze=freeze,
                                            padding_idx=0)
        assert ours.weight.requires_grad == theirs.weight.requires_grad == (not freeze)
        assert repr(ours) == repr(theirs)
        assert_close(ours(minigrad.tensor([0, 2])), theirs(torch.tensor([0, 2])))


def test_embedding_errors_as_torch():
    emb = nn.Embedding(5, 3)
    for bad in ([5], [-1], [[0, 7]]):
        with pytest.raises(IndexError, match="index out of range in self"):
            emb(minigrad.tensor(bad))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have "
                       "one of the following scalar types: Long, Int; but got "
                       "minigrad.FloatTensor instead"):
        emb(minigrad.tensor([1.0]))
    for padding_idx in (5, -6):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            nn.Embedding(5, 3, padding_idx=padding_idx)
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be "
                       "2-dimensional"):
        nn.Embedding.from_pretrained(minigrad.ones(3))


# --- BCE ------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_torch(reduction, weighted):
    (x_t, y_t, w_t), (x_m, y_m, w_m) = make_inputs([(4, 3), (4, 3), (3,)], low=0.05,
                                                   high=0.95, seed=2)
    w = (w_t.detach(), w_m.detach()) if weighted else (None, None)
    out_t = TF.binary_cross_entropy(x_t, y_t, w[0], reduction=reduction)
    out_m = F.binary_cross_entropy(x_m, y_m, w[1], reduction=reduction)
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    for m, t in zip((x_m, y_m), (x_t, y_t), strict=True):
        assert_close(m.grad, t.grad)
    module_t = torch.nn.BCELoss(weight=w[0], reduction=reduction)
    module_m = nn.BCELoss(weight=w[1], reduction=reduction)
    assert_close(module_m(x_m, y_m), module_t(x_t, y_t))
    assert list(module_m.state_dict()) == list(module_t.state_dict())


def test_binary_cross_entropy_at_zero_and_one_as_torch():
    """log is clamped to >= -100; the gradient is (x - y) / max(x (1 - x), 1e-12)."""
    x = np.array([0.0, 1.0, 0.0, 1.0, 1e-13, 0.5])
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.3, 0.2])
    x_t = torch.tensor(x, requires_grad=True)
    x_m = minigrad.tensor(x, dtype=minigrad.float64, requires_grad=True)
    out_t = TF.binary_cross_entropy(x_t, torch.tensor(y), reduction="none")
    out_m = F.binary_cross_entropy(x_m, minigrad.tensor(y), reduction="none")
    assert_close(out_m, out_t)
    assert out_m.data[0] == 100.0
    _backward_both(out_m, out_t)
    assert_close(x_m.grad, x_t.grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("weighted", "pos_weighted"), [(False, False), (True, False),
                                                       (False, True), (True, True)])
def test_binary_cross_entropy_with_logits_matches_torch(reduction, weighted, pos_weighted):
    (x_t, y_t, w_t, p_t), (x_m, y_m, w_m, p_m) = make_inputs(
        [(5, 3), (5, 3), (5, 1), (3,)], low=-4, high=4, seed=8)
    with torch.no_grad():
        y_t.copy_((y_t + 4) / 8)
        w_t.abs_()
        p_t.abs_()
    y_m.data, w_m.data, p_m.data = (t.detach().numpy().copy() for t in (y_t, w_t, p_t))
    x_t.data[0, 0] = x_m.data[0, 0] = 0.0  # log-sigmoid's gradient at 0 is 1/2
    w = (w_t.detach(), w_m.detach()) if weighted else (None, None)
    p = (p_t.detach(), p_m.detach()) if pos_weighted else (None, None)
    out_t = TF.binary_cross_entropy_with_logits(x_t, y_t, w[0], reduction=reduction,
                                                pos_weight=p[0])
    out_m = F.binary_cross_entropy_with_logits(x_m, y_m, w[1], reduction=reduction,
                                               pos_weight=p[1])
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    for m, t in zip((x_m, y_m), (x_t, y_t), strict=True):
        assert_close(m.grad, t.grad)
    module_t = torch.nn.BCEWithLogitsLoss(weight=w[0], reduction=reduction, pos_weight=p[0])
    module_m = nn.BCEWithLogitsLoss(weight=w[1], reduction=reduction, pos_weight=p[1])
    assert_close(module_m(x_m, y_m), module_t(x_t, y_t))
    assert list(module_m.state_dict()) == list(module_t.state_dict())
    assert repr(module_m) == repr(module_t)


def test_bce_with_logits_second_derivative():
    (x_t, y_t), (x_m, y_m) = make_inputs([(6,), (6,)], low=-3, high=3, seed=4)
    results = []
    for lib, x, y, f in [(torch, x_t, y_t, TF), (minigrad, x_m, y_m, F)]:
        loss = f.binary_cross_entropy_with_logits(x, y.detach().sigmoid(),
                                                  pos_weight=y.detach().exp())
        (g,) = lib.autograd.grad(loss, [x], create_graph=True)
        results.append((g, lib.autograd.grad((g ** 2).sum(), [x])[0]))
    for m, t in zip(results[1], results[0], strict=True):
        assert_close(m, t)


def test_bce_errors_as_torch():
    half = minigrad.tensor([0.5])
    for bad in (1.5, -0.5, float("nan")):
        with pytest.raises(RuntimeError, match="all elements of input should be between 0 "
                                               "and 1"):
            F.binary_cross_entropy(minigrad.tensor([bad]), minigrad.tensor([1.0]))
    with pytest.raises(ValueError, match=r"Using a target size \(minigrad.Size\(\[2\]\)\) "
                       r"that is different to the input size \(minigrad.Size\(\[1\]\)\) is "
                       "deprecated"):
        F.binary_cross_entropy(half, minigrad.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"Target size \(minigrad.Size\(\[2\]\)\) must be the "
                       r"same as input size \(minigrad.Size\(\[1\]\)\)"):
        F.binary_cross_entropy_with_logits(half, minigrad.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match="x is not a valid value for reduction"):
        nn.BCELoss(reduction="x")(half, half)
    needs_grad = minigrad.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="The function 'binary_cross_entropy' is not "
                       "differentiable with respect to argument 'weight'. This input cannot "
                       "have requires_grad True."):
        F.binary_cross_entropy(half, half, needs_grad)
    with pytest.raises(RuntimeError, match="'binary_cross_entropy_with_logits' is not "
                       "differentiable with respect to argument 'pos_weight'"):
        F.binary_cross_entropy_with_logits(half, half, pos_weight=needs_grad)


# --- wrong-rank inputs to Linear and the losses ---------------------------------------

def test_linear_rejects_0d_input_as_torch():
    layer = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D, "
                                           "but they are 0D and 2D"):
        layer(minigrad.tensor(1.0))
    with pytest.raises(RuntimeError, match="but they are 0D and 1D"):
        F.linear(minigrad.tensor(1.0), minigrad.ones(3))
    assert layer(minigrad.ones(3)).shape == (2,)  # 1-D: one sample, as torch


def test_losses_on_0d_and_wrong_rank_inputs_as_torch():
    assert_close(F.mse_loss(minigrad.tensor(1.0), minigrad.tensor(3.0)),
                 TF.mse_loss(torch.tensor(1.0), torch.tensor(3.0)))
    assert_close(nn.MSELoss(reduction="sum")(minigrad.tensor(1.0), minigrad.tensor(3.0)),
                 torch.tensor(4.0))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target "
                                         r"batch_size \(1\)"):
        nn.CrossEntropyLoss()(minigrad.ones(2, 3), minigrad.tensor([[0, 1]]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target "
                                         r"batch_size \(0\)"):
        F.cross_entropy(minigrad.ones(2, 3), minigrad.tensor(0))
    with pytest.raises(RuntimeError, match="Expected floating point type for target with "
                                           "class probabilities, got Long"):
        nn.CrossEntropyLoss()(minigrad.tensor(1.0), minigrad.tensor(0))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not "
                                           "supported"):
        F.cross_entropy(minigrad.ones(2, 3), minigrad.zeros(2, 5, dtype=minigrad.int64))
    with pytest.raises(ValueError, match="For 1D input, 1D target must have size 1, but got "
                                         "target size: 2"):
        F.cross_entropy(minigrad.ones(3), minigrad.zeros(2, dtype=minigrad.int64))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 5\]"):
        F.cross_entropy(minigrad.ones(2, 3, 4), minigrad.zeros(2, 5, dtype=minigrad.int64))


@pytest.mark.parametrize(("shape", "target_shape"), [((3,), ()), ((2, 3, 4), (2, 4)),
                                                     ((2, 3, 2, 2), (2, 2, 2))])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_on_one_sample_and_extra_dims_as_torch(shape, target_shape, reduction):
    (x_t,), (x_m,) = make_inputs([shape], seed=5)
    target = np.random.default_rng(0).integers(0, shape[1 if len(shape) > 1 else 0],
                                               target_shape)
    out_t = TF.cross_entropy(x_t, torch.tensor(target), reduction=reduction)
    out_m = F.cross_entropy(x_m, minigrad.tensor(target), reduction=reduction)
    assert_close(out_m, out_t)
    _backward_both(out_m, out_t)
    assert_close(x_m.grad, x_t.grad)


def test_bce_on_0d_inputs():
    assert_close(F.binary_cross_entropy(minigrad.tensor(0.25, dtype=minigrad.float64),
                                        minigrad.tensor(1.0, dtype=minigrad.float64)),
                 TF.binary_cross_entropy(torch.tensor(0.25, dtype=torch.float64),
                                         torch.tensor(1.0, dtype=torch.float64)))


def test_second_derivatives_through_embedding_and_bce():
    (w_t, x_t), (w_m, x_m) = make_inputs([(5, 3), (4, 3)], low=0.1, high=0.9, seed=13)
    idx = [[1, 4, 1, 0], [2, 2, 3, 1], [0, 1, 2, 3], [4, 4, 4, 4]]
    results = []
    for lib, f, w, x in [(torch, TF, w_t, x_t), (minigrad, F, w_m, x_m)]:
        rows = f.embedding(lib.tensor(idx)[0], w, padding_idx=4)  # (4, 3): one padding row
        loss = f.binary_cross_entropy(rows * x, x.detach() ** 2)
        grads = lib.autograd.grad(loss, [w, x], create_graph=True)
        mix = sum(((g * (k + 0.5)) ** 2).sum() for k, g in enumerate(grads))
        results.append(list(grads) + list(lib.autograd.grad(mix, [w, x])))
    for i, (t, m) in enumerate(zip(*results, strict=True)):
        assert_close(m, t, rtol=1e-9, atol=1e-10, what=f"gradient {i}")


def test_forward_mode_through_embedding_and_bce_with_logits():
    """torch's tangent of embedding keeps the padding rows' (only backward skips them)."""
    (w_t, v_t, y_t), (w_m, v_m, y_m) = make_inputs([(4, 3), (4, 3), (3, 3)], seed=14,
                                                   requires_grad=False)
    idx = [0, 3, 3]
    tangents = []
    for lib, f, w, v, y, fwd in [(torch, TF, w_t, v_t, y_t, torch.autograd.forward_ad),
                                 (minigrad, F, w_m, v_m, y_m, forward_ad)]:
        with fwd.dual_level():
            rows = f.embedding(lib.tensor(idx), fwd.make_dual(w, v), padding_idx=3)
            loss = f.binary_cross_entropy_with_logits(rows, y.sigmoid(), reduction="none",
                                                      pos_weight=y[0].exp())
            tangents.append(fwd.unpack_dual(loss).tangent)
    assert_close(tangents[1], tangents[0])
