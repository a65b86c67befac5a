"""Every torch snippet of the seeds, run with ``torch`` and with ``minigrad`` in its place.

Seed 000 (a tutorial on gradients in PyTorch), seed 001 (the ``.g``-style backward of
a linear layer) and seed 002 (the ``gradient`` argument of ``backward``). A snippet is
executed twice, with the name ``torch`` bound to each library, and the results
compared; random tensors differ between the libraries, so the comparisons for those are
of shapes and of relations (``W.grad`` is ``2 * W``), or the values are copied across.
"""

import numpy as np
import pytest
import torch

import minigrad


def run(snippet, lib, **extra):
    namespace = {"torch": lib, **extra}
    exec(snippet, namespace)
    return namespace


def value(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t, dtype=np.float64)


# (id, snippet, names whose values must agree)
SAME_NUMBERS = [
    ("derivative", "x = torch.tensor(3.0, requires_grad=True)\ny = x ** 2\ny.backward()\n"
     "g = x.grad", ["g"]),
    ("partials", "x = torch.tensor(2.0, requires_grad=True)\n"
     "y = torch.tensor(4.0, requires_grad=True)\nL = x ** 2 + 3 * y\nL.backward()\n"
     "gx, gy = x.grad, y.grad", ["gx", "gy"]),
    ("scalar_loss", "x = torch.tensor(2.0, requires_grad=True)\nloss = x ** 2\n"
     "loss.backward()\ng = x.grad", ["g"]),
    ("reduce_to_scalar", "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
     "y = x ** 2\nloss = y.sum()\nloss.backward()\ng = x.grad", ["g"]),
    ("upstream_gradient", "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
     "y = x ** 2\ny.backward(torch.tensor([1.0, 1.0, 1.0]))\ng = x.grad", ["g"]),
    ("chain_rule", "x = torch.tensor(3.0, requires_grad=True)\ny = x + 1\nz = y ** 2\n"
     "z.backward()\ng = x.grad", ["g"]),
    ("local_upstream", "x = torch.tensor(2.0, requires_grad=True)\n"
     "y = torch.tensor(3.0, requires_grad=True)\na = x + y\nz = a ** 2\nz.backward()\n"
     "gx, gy = x.grad, y.grad", ["gx", "gy"]),
    ("accumulation", "x = torch.tensor(2.0, requires_grad=True)\ny = x ** 2\ny.backward()\n"
     "first = x.grad.clone()\nz = 3 * x\nz.backward()\nsecond = x.grad",
     ["first", "second"]),
    ("gradient_checking", "def f(x):\n    return x ** 2\n"
     "x = torch.tensor(3.0, requires_grad=True)\ny = f(x)\ny.backward()\n"
     "autograd_grad = x.grad.item()\neps = 1e-4\n"
     "finite_diff_grad = (f(torch.tensor(3.0 + eps)) - f(torch.tensor(3.0 - eps))) / (2 * eps)\n"
     "fd = finite_diff_grad.item()", ["autograd_grad", "fd"]),
    ("missing_gradient_fix", "x = torch.tensor(2.0, requires_grad=True)\ny = x ** 2\n"
     "y.backward()\ng = x.grad", ["g"]),
    # seed 002 imports Variable from torch.autograd; the test passes each library's.
    ("seed_002_gradient_argument",
     "x = Variable(torch.ones(2, 3), requires_grad=True)\na = Variable(torch.ones(3, 4))\n"
     "out = torch.mm(x, a)\ngradient = torch.FloatTensor([[1, 2, 3, 4], [5, 6, 7, 8]])\n"
     "out.backward(gradient)\ng = x.grad", ["g"]),
    ("seed_002_tensor_one", "x = torch.tensor([3.0], requires_grad=True)\nout = x * 2\n"
     "out.backward(torch.Tensor([1]))\ng = x.grad", ["g"]),
]


def _variable(lib):
    return (torch.autograd.Variable if lib is torch else minigrad.autograd.Variable)


@pytest.mark.parametrize("snippet, names", [c[1:] for c in SAME_NUMBERS],
                         ids=[c[0] for c in SAME_NUMBERS])
def test_seed_snippet_gives_torchs_numbers(snippet, names):
    ours = run(snippet, minigrad, Variable=_variable(minigrad))
    theirs = run(snippet, torch, Variable=_variable(torch))
    for name in names:
        np.testing.assert_allclose(value(ours[name]), value(theirs[name]), rtol=1e-6,
                                   err_msg=name)


def test_seed_000_expected_values():
    ns = run(SAME_NUMBERS[0][1], minigrad)
    assert repr(ns["g"]) == "tensor(6.)"
    ns = run(SAME_NUMBERS[4][1], minigrad)
    assert repr(ns["g"]) == "tensor([2., 4., 6.])"
    ns = run(SAME_NUMBERS[7][1], minigrad)
    assert (repr(ns["first"]), repr(ns["second"])) == ("tensor(4.)", "tensor(7.)")
    ns = run(SAME_NUMBERS[10][1], minigrad, Variable=minigrad.autograd.Variable)
    assert repr(ns["g"]) == "tensor([[10., 10., 10.],\n        [26., 26., 26.]])"


@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_seed_000_tensor_gradient_is_2W(lib):
    ns = run("W = torch.randn(3, 4, requires_grad=True)\nL = (W ** 2).sum()\nL.backward()",
             lib)
    assert tuple(ns["W"].shape) == (3, 4) and tuple(ns["W"].grad.shape) == (3, 4)
    np.testing.assert_allclose(value(ns["W"].grad), 2 * value(ns["W"]), rtol=1e-6)
    assert repr(ns["W"].shape) == ("torch" if lib is torch else "minigrad") + ".Size([3, 4])"


def test_seed_000_linear_layer_gradient_shapes():
    snippet = ("B = 5\nd = 3\nh = 4\nlayer = torch.nn.Linear(d, h)\nX = torch.randn(B, d)\n"
               "Y = layer(X)\nL = Y.sum()\nL.backward()\n"
               "shapes = (tuple(layer.weight.grad.shape), tuple(layer.bias.grad.shape))\n"
               "bias_grad = layer.bias.grad")
    ours, theirs = run(snippet, minigrad), run(snippet, torch)
    assert ours["shapes"] == theirs["shapes"] == ((4, 3), (4,))
    np.testing.assert_allclose(value(ours["bias_grad"]), value(theirs["bias_grad"]))  # all B


EVAL_AND_TRAIN = """
model = torch.nn.Linear(3, 1)
X = torch.randn(8, 3)
model.eval()
with torch.no_grad():
    pred = model(X)
with torch.inference_mode():
    pred2 = model(X)
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
y = torch.randn(8, 1)
pred = model(X)
loss = ((pred - y) ** 2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
# a common training step
loss_fn = torch.nn.functional.mse_loss
pred = model(X)
loss2 = loss_fn(pred, y)
optimizer.zero_grad()
loss2.backward()
optimizer.step()
"""


def test_seed_000_eval_and_optimizer_steps_match_torch():
    theirs = run(EVAL_AND_TRAIN, torch)
    # Same numbers: replay both with the same initial weights and data.
    ref = run(EVAL_AND_TRAIN.replace("torch.randn(8, 3)", "X0").replace(
        "torch.randn(8, 1)", "y0").replace("torch.nn.Linear(3, 1)", "make()"), torch,
        X0=torch.ones(8, 3) / 3, y0=torch.arange(8.0).reshape(8, 1) / 8,
        make=lambda: _fixed_linear(torch))
    ours = run(EVAL_AND_TRAIN.replace("torch.randn(8, 3)", "X0").replace(
        "torch.randn(8, 1)", "y0").replace("torch.nn.Linear(3, 1)", "make()"), minigrad,
        X0=minigrad.ones(8, 3) / 3, y0=minigrad.arange(8.0).reshape(8, 1) / 8,
        make=lambda: _fixed_linear(minigrad))
    assert not theirs["pred2"].requires_grad and not ours["pred2"].requires_grad
    for name in ("loss", "loss2"):
        np.testing.assert_allclose(value(ours[name]), value(ref[name]), rtol=1e-6)
    for p, q in zip(ours["model"].parameters(), ref["model"].parameters(), strict=True):
        np.testing.assert_allclose(value(p), value(q), rtol=1e-6)


def _fixed_linear(lib):
    layer = lib.nn.Linear(3, 1)
    with lib.no_grad():
        layer.weight.mul_(0).add_(lib.tensor([[0.2, -0.4, 0.6]]))
        layer.bias.mul_(0).add_(lib.tensor([0.1]))
    return layer


def test_seed_000_common_problems_behave_like_torch():
    for lib in (torch, minigrad):
        with pytest.raises(RuntimeError, match="does not require grad"):
            run("x = torch.tensor(2.0)\ny = x ** 2\ny.backward()", lib)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            run("x = torch.randn(3, requires_grad=True)\ny = x ** 2\nx.add_(1.0)\n"
                "loss = y.sum()\nloss.backward()", lib)


LIN_GRAD = """
def lin(x, w, b):
    return x @ w + b

def mse_grad(inp, targ):
    inp.g = 2. * (inp.squeeze() - targ).unsqueeze(-1) / inp.shape[0]

def relu_grad(inp, out):
    inp.g = (inp > 0).float() * out.g

def lin_grad(inp, out, w, b):
    # grad of matmul with respect to input
    inp.g = out.g @ w.t()
    w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
    b.g = out.g.sum(0)

def forward_and_backward(inp, targ):
    l1 = lin(inp, w1, b1)
    l2 = l1.relu()
    out = lin(l2, w2, b2)
    loss = (out[:, 0] - targ).pow(2).mean()
    mse_grad(out, targ)
    lin_grad(l2, out, w2, b2)
    relu_grad(l1, l2)
    lin_grad(inp, l1, w1, b1)
    return loss

loss = forward_and_backward(x, y)
"""


def test_seed_001_lin_grad_runs_unchanged_and_matches_torch_and_autograd():
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((6, 4)), "y": rng.standard_normal(6),
              "w1": rng.standard_normal((4, 5)) / 2, "b1": rng.standard_normal(5) / 2,
              "w2": rng.standard_normal((5, 1)) / 2, "b2": rng.standard_normal(1) / 2}
    results = {}
    for lib in (torch, minigrad):
        tensors = {k: lib.tensor(v) for k, v in arrays.items()}
        results[lib.__name__] = run(LIN_GRAD, lib, **tensors)
    for name in ("x", "w1", "b1", "w2", "b2"):
        ours, theirs = results["minigrad"][name].g, results["torch"][name].g
        np.testing.assert_allclose(value(ours), value(theirs), rtol=1e-10, err_msg=name)
    # ... and the hand-written gradients are what minigrad's autograd computes.
    leaves = {k: minigrad.tensor(v, requires_grad=k != "y") for k, v in arrays.items()}
    out = ((leaves["x"] @ leaves["w1"] + leaves["b1"]).relu() @ leaves["w2"] + leaves["b2"])
    ((out[:, 0] - leaves["y"]) ** 2).mean().backward()
    for name in ("x", "w1", "b1", "w2", "b2"):
        np.testing.assert_allclose(leaves[name].grad.numpy(),
                                   value(results["minigrad"][name].g), rtol=1e-10)
