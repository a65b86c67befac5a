"""``nn``, ``optim.SGD`` and ``gradcheck`` against torch (chapters 07, 10, 11)."""

import numpy as np
import pytest
import torch

import minigrad
from minigrad import nn
from tests.tensor_parity import assert_close


def _copy_into(ours, theirs):
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        p.data = minigrad.tensor(q.detach().numpy())


def test_linear_shapes_init_and_registration():
    minigrad.manual_seed(0)
    layer = nn.Linear(400, 30)
    assert layer.weight.shape == (30, 400) and layer.bias.shape == (30,)
    assert layer.weight.requires_grad and layer.weight.is_leaf
    bound = 1 / np.sqrt(400)
    w = layer.weight.detach().numpy()
    assert w.min() >= -bound and w.max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound  # std of U(-b, b)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert nn.Linear(3, 2, bias=False).bias is None
    assert nn.Linear(3, 2, dtype=minigrad.float64).weight.dtype == minigrad.float64
    assert nn.Parameter(minigrad.tensor([1.0], dtype=minigrad.float64)).dtype == minigrad.float64
    assert repr(layer) == "Linear(in_features=400, out_features=30, bias=True)"


def test_sequential_registers_children_and_names_like_torch():
    ours = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(),
                                 torch.nn.Linear(5, 2))
    assert ([n for n, _ in ours.named_parameters()]
            == [n for n, _ in theirs.named_parameters()])
    assert repr(ours) == repr(theirs)
    assert len(list(ours.parameters())) == 4
    assert ours.eval() is ours and not ours[0].training
    assert ours.train().training and ours[2].training


def test_custom_module_forward_and_zero_grad():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(3, 4)
            self.out = nn.Linear(4, 1)
            self.scale = nn.Parameter(minigrad.tensor([2.0]))

        def forward(self, x):
            return self.out(self.hidden(x).relu()) * self.scale

    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    net(minigrad.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert repr(nn.Parameter(minigrad.tensor([1.0]))).startswith("Parameter containing:\n")


def test_state_dict_deepcopy_and_pickle():
    import copy
    import pickle

    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    ours = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    ours.load_state_dict(theirs.state_dict())
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert_close(p, q)
    twin = copy.deepcopy(ours)
    again = pickle.loads(pickle.dumps(ours))
    x = minigrad.randn(5, 3)
    for other in (twin, again):
        assert isinstance(other[0].weight, nn.Parameter) and other[0].weight.requires_grad
        other(x).sum().backward()
        assert all(p.grad is None for p in ours.parameters())
        assert all(p.grad is not None for p in other.parameters())
        assert_close(other(x), ours(x))
    with pytest.raises(RuntimeError, match="missing keys"):
        ours.load_state_dict({})
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(ours(x))


def test_mlp_forward_and_gradients_match_torch():
    theirs = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(),
                                 torch.nn.Linear(8, 3)).double()
    ours = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    _copy_into(ours, theirs)
    x = np.random.default_rng(0).standard_normal((10, 6))
    y = [0, 1, 2, 1, 0, 2, 2, 1, 0, 0]
    lt = torch.nn.functional.cross_entropy(theirs(torch.tensor(x)), torch.tensor(y))
    lm = nn.functional.cross_entropy(ours(minigrad.tensor(x)), minigrad.tensor(y))
    lt.backward()
    lm.backward()
    assert_close(lm, lt, what="loss")
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert_close(p.grad, q.grad, what="parameter gradient")


@pytest.mark.parametrize("options", [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01},
    {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.1},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True},
])
def test_sgd_training_matches_torch(options):
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(),
                                 torch.nn.Linear(6, 1)).double()
    ours = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 1))
    _copy_into(ours, theirs)
    opt_t = torch.optim.SGD(theirs.parameters(), **options)
    opt_m = minigrad.optim.SGD(ours.parameters(), **options)
    rng = np.random.default_rng(1)
    for _ in range(5):
        x, y = rng.standard_normal((8, 4)), rng.standard_normal((8, 1))
        for model, opt, lib in ((theirs, opt_t, torch), (ours, opt_m, minigrad)):
            loss = lib.nn.functional.mse_loss(model(lib.tensor(x)), lib.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
    for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert_close(p, q, rtol=1e-10, what="parameter after 5 steps")


def test_mse_loss_warns_on_broadcasting_like_torch():
    for lib in (torch, minigrad):
        with pytest.warns(UserWarning, match="Using a target size"):
            lib.nn.functional.mse_loss(lib.ones(3, 1), lib.ones(3))


def test_sgd_zero_grad_sets_none_by_default_and_zeros_otherwise():
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    opt = minigrad.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None
    opt.step()  # no gradient: nothing changes
    assert w.tolist() == [1.0, 2.0]


def test_step_without_zero_grad_uses_stale_gradients_like_torch():
    results = []
    for lib in (torch, minigrad):
        w = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        for _ in range(2):
            (w * 3).sum().backward()
            opt.step()
        results.append((w.tolist(), w.grad.tolist()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1] == [6.0]


def test_microbatches_accumulate_to_the_full_batch_gradient():
    x = minigrad.tensor((np.arange(12.0).reshape(6, 2) / 10).astype(np.float32))
    w = minigrad.tensor([[0.5], [-0.25]], requires_grad=True)
    (x @ w).pow(2).sum().backward()
    full = w.grad.numpy().copy()
    w.grad = None
    for i in range(0, 6, 2):
        (x[i:i + 2] @ w).pow(2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), full, rtol=1e-6)


def test_gradcheck_passes_like_torch():
    def f(lib):
        return lambda a, b: ((a * b).exp() / (1 + b ** 2)).sum(0).tanh()

    rng = np.random.default_rng(0)
    arrays = [rng.uniform(0.2, 1.0, (3, 2)) for _ in range(2)]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    m_in = [minigrad.tensor(a, requires_grad=True) for a in arrays]
    assert torch.autograd.gradcheck(f(torch), t_in)
    assert minigrad.gradcheck(f(minigrad), m_in)
    assert minigrad.autograd.gradcheck(f(minigrad), m_in)


def test_gradcheck_catches_a_wrong_backward():
    class BadSquare(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x  # should be 2 * x

    x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to"):
        minigrad.gradcheck(BadSquare.apply, (x,))
    assert not minigrad.gradcheck(BadSquare.apply, (x,), raise_exception=False)
    assert x.grad is None  # gradcheck leaves .grad alone


def test_gradcheck_warns_on_float32_like_torch():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision floating point"):
        minigrad.gradcheck(lambda t: t * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


def test_autograd_grad_returns_without_touching_dot_grad():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (gx,) = minigrad.autograd.grad((x ** 2).sum(), x)
    assert gx.tolist() == [2.0, 4.0, 6.0] and x.grad is None


def test_autograd_grad_leaves_other_leaves_alone_like_torch():
    for lib in (minigrad, torch):
        a = lib.tensor(2.0, requires_grad=True)
        b = lib.tensor(3.0, requires_grad=True)
        (ga,) = lib.autograd.grad(a * b, a)
        assert ga.item() == 3.0 and a.grad is None and b.grad is None, lib.__name__
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    c = minigrad.tensor([3.0, 4.0], requires_grad=True)
    minigrad.autograd.backward((w * c).sum(), inputs=[c])
    assert w.grad is None and c.grad.tolist() == [1.0, 2.0]


def _assign_error(module, name, value):
    """The (type, message) that ``setattr(module, name, value)`` raises, or None."""
    try:
        setattr(module, name, value)
    except Exception as error:  # noqa: BLE001 - the error is the result
        return type(error), str(error)
    return None


@pytest.mark.parametrize("make", [
    lambda lib, lin: lin.weight + 1,                              # a non-leaf of the weight
    lambda lib, lin: lib.zeros(1, 3, dtype=lib.float64),          # a plain leaf, float64
    lambda lib, lin: lin.weight.detach(),                         # a plain leaf, float32
    lambda lib, lin: 3,                                           # not a tensor at all
], ids=["non-leaf", "float64 leaf", "detached", "int"])
def test_assigning_a_plain_value_to_a_parameter_raises_like_torch(make):
    ours, theirs = nn.Linear(3, 1), torch.nn.Linear(3, 1)
    got, want = _assign_error(ours, "weight", make(minigrad, ours)), \
        _assign_error(theirs, "weight", make(torch, theirs))
    assert want is not None and want[0] is TypeError
    assert got is not None and got[0] is TypeError
    # torch's words with minigrad's names: 'torch.FloatTensor' -> 'minigrad.FloatTensor'
    assert got[1].startswith(want[1].replace("torch.", "minigrad."))
    assert "Fix:" in got[1]
    assert [n for n, _ in ours.named_parameters()] == ["weight", "bias"]
    assert isinstance(ours.weight, nn.Parameter)


def test_parameter_replaced_by_parameter_or_none_and_changed_under_no_grad_like_torch():
    for lib in (minigrad, torch):
        lin = lib.nn.Linear(3, 1)
        new = lib.nn.Parameter(lib.zeros(1, 3))
        lin.weight = new                           # a Parameter: registered in its place
        assert lin.weight is new
        assert [p is new for p in lin.parameters()] == [True, False]
        with lib.no_grad():                        # the fix the error names
            lin.weight -= 1
        assert lin.weight is new and lin.weight.is_leaf
        assert_close(lin.weight, -np.ones((1, 3)))
        lin.bias = None                            # None: registered as absent
        assert [n for n, _ in lin.named_parameters()] == ["weight"]
        assert _assign_error(lin, "bias", lib.zeros(1)) is not None
        lin.other = lib.zeros(2)                   # an unregistered name takes anything
        assert [n for n, _ in lin.named_parameters()] == ["weight"]


def test_linear_without_bias_registers_none_and_child_modules_are_guarded_like_torch():
    ours, theirs = nn.Linear(2, 2, bias=False), torch.nn.Linear(2, 2, bias=False)
    got, want = (_assign_error(ours, "bias", minigrad.zeros(2)),
                 _assign_error(theirs, "bias", torch.zeros(2)))
    assert got[0] is want[0] is TypeError
    assert got[1].startswith(want[1].replace("torch.", "minigrad."))
    seq_ours = nn.Sequential(nn.Linear(2, 2))
    seq_theirs = torch.nn.Sequential(torch.nn.Linear(2, 2))
    got, want = _assign_error(seq_ours, "0", 3), _assign_error(seq_theirs, "0", 3)
    assert got[0] is want[0] is TypeError
    assert got[1].startswith(want[1].replace("torch.", "minigrad."))


def test_in_place_update_of_a_module_weight_outside_no_grad_raises_like_torch():
    for lib in (minigrad, torch):
        lin = lib.nn.Linear(3, 1)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lin.weight += 1
        with pytest.raises(TypeError, match="as parameter 'weight'"):
            lin.weight = lin.weight + 1
