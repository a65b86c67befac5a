"""``minigrad.func.vmap`` against ``torch.func.vmap`` (chapter 15).

Every batching rule (``ops/batching.py``) on the same float64 inputs as torch, with the
batch at several in_dims and out_dims; nested vmap; pytrees of inputs and outputs;
chunk_size; the for-loop fallback for an op without a rule and a custom Function's own
``vmap``; torch's errors; per-sample gradients of a small MLP (the per_sample_grads
tutorial) and ``vmap(jacrev(f))``. A last test lists which op classes have a rule.
"""

import numpy as np
import pytest
import torch
import torch.func as tfunc

import minigrad as mg
import minigrad.nn.functional as MF
from minigrad._functorch import batched
from minigrad.autograd.function import Function
from minigrad.func import functional_call, grad, stack_module_state, vmap
from tests.tensor_parity import assert_close

LIBS = {"torch": (torch, tfunc), "minigrad": (mg, mg.func)}


def _arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2.0, 2.0, size=s) for s in shapes]


def _both(fn, shapes, in_dims=0, out_dims=0, seed=0, **kw):
    """fn(lib, *args) vmapped in both libraries; the results compared."""
    arrays = _arrays(shapes, seed)
    results = {}
    for name, (lib, func) in LIBS.items():
        args = [lib.tensor(a, dtype=lib.float64) for a in arrays]
        results[name] = func.vmap(lambda *a, lib=lib: fn(lib, *a), in_dims, out_dims,
                                  **kw)(*args)
    _compare(results["minigrad"], results["torch"])
    return results


def _compare(ours, theirs):
    if isinstance(theirs, tuple | list):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs, strict=True):
            _compare(o, t)
    elif isinstance(theirs, dict):
        assert set(ours) == set(theirs)
        for k in theirs:
            _compare(ours[k], theirs[k])
    else:
        assert type(ours) is mg.Tensor, type(ours)  # no BatchedTensor leaks out
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert_close(ours, theirs)


# (name, fn(lib, *samples), shapes of the batched inputs, in_dims)
RULES = [
    ("add", lambda lib, a, b: a + b, [(4, 3), (4, 3)], 0),
    ("add broadcast", lambda lib, a, b: a + b, [(4, 2, 3), (4, 3)], 0),
    ("sub unbatched", lambda lib, a, b: a - b, [(4, 3), (2, 3)], (0, None)),
    ("rsub", lambda lib, a: 2.0 - a, [(4, 3)], 0),
    ("mul", lambda lib, a, b: a * b, [(3, 4), (4, 1)], (1, 0)),
    ("div", lambda lib, a, b: a / (b * b + 1), [(4, 3), (4, 3)], 0),
    ("reciprocal neg", lambda lib, a: -(a * a + 1).reciprocal(), [(4, 3)], 0),
    ("pow", lambda lib, a: a ** 3 + 2.0 ** a, [(4, 3)], 0),
    ("pow tensor", lambda lib, a, b: (a * a + 1) ** b, [(4, 3), (4, 3)], 0),
    ("exp log", lambda lib, a: (a.exp() + 1).log(), [(4, 3)], 0),
    ("tanh sigmoid relu", lambda lib, a: a.tanh() + a.sigmoid() + a.relu(), [(4, 3)], 0),
    ("abs sqrt sign", lambda lib, a: a.abs().sqrt() * a.sign(), [(4, 3)], 0),
    ("sin cos", lambda lib, a: lib.sin(a) * lib.cos(a), [(4, 3)], 0),
    ("clamp", lambda lib, a: a.clamp(-0.5, 0.7), [(4, 3)], 0),
    ("clamp tensor", lambda lib, a, b: lib.clamp(a, min=b), [(4, 3), (4, 3)], 0),
    ("where", lambda lib, a, b: lib.where(a > 0, a, b), [(4, 3), (4, 3)], 0),
    ("compare", lambda lib, a, b: (a < b).double() + (a >= 0.5).double(), [(4, 3), (4, 3)], 0),
    ("sum all", lambda lib, a: a.sum(), [(4, 2, 3)], 0),
    ("sum dim", lambda lib, a: a.sum(-1) + a.sum(0, keepdim=True).sum(1), [(4, 2, 3)], 0),
    ("mean", lambda lib, a: a.mean() + a.mean(1), [(4, 2, 3)], 2),
    ("max all", lambda lib, a: a.max(), [(4, 3)], 0),
    ("max dim", lambda lib, a: a.max(1).values, [(4, 2, 3)], 0),
    ("argmax", lambda lib, a: a.argmax(), [(4, 5)], 0),
    ("reshape view", lambda lib, a: a.reshape(3, 2).view(-1), [(4, 2, 3)], 0),
    ("transpose t", lambda lib, a: a.transpose(0, 1).t(), [(4, 2, 3)], 0),
    ("permute movedim", lambda lib, a: a.permute(2, 0, 1).movedim(0, -1), [(4, 2, 3, 5)], 0),
    ("unsqueeze squeeze", lambda lib, a: a.unsqueeze(0).unsqueeze(-1).squeeze(), [(4, 3)],
     0),
    ("squeeze dim", lambda lib, a: a.squeeze(0), [(4, 1, 3)], 0),
    ("double", lambda lib, a: a.float().double(), [(4, 3)], 0),
    ("clone", lambda lib, a: a.clone() * 2, [(4, 3)], 0),
    ("index basic", lambda lib, a: a[0] + a[1:, 2].sum() + a[..., None][1, :, 0],
     [(4, 2, 3)], 0),
    ("index list", lambda lib, a: a[[0, 2, 2]], [(4, 3, 2)], 0),
    ("mm", lambda lib, a, b: a.mm(b), [(4, 2, 3), (3, 5)], (0, None)),
    ("matmul vec", lambda lib, a, b: a @ b, [(4, 3), (3, 5)], (0, None)),
    ("matmul mat vec", lambda lib, a, b: a @ b, [(2, 3), (4, 3)], (None, 0)),
    ("matmul both", lambda lib, a, b: a @ b, [(4, 2, 3), (4, 3, 5)], 0),
    ("matmul vec vec", lambda lib, a, b: a @ b, [(4, 3), (4, 3)], 0),
    ("matmul batch", lambda lib, a, b: a @ b, [(4, 6, 2, 3), (3, 5)], (0, None)),
    ("matmul batched rhs", lambda lib, a, b: a @ b, [(6, 2, 3), (4, 3, 5)], (None, 0)),
    ("dot", lambda lib, a, b: lib.dot(a, b), [(4, 3), (3,)], (0, None)),
    ("linear", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
     [(4, 3), (2, 3), (2,)], (0, None, None)),
    ("linear batched weight", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
     [(4, 5, 3), (4, 2, 3), (4, 2)], 0),
    ("linear vector weight", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
     [(3,), (4, 2, 3), (2,)], (None, 0, None)),
    ("stack cat", lambda lib, a, b: lib.cat([lib.stack([a, b]), lib.stack([b, a], 0)], 1),
     [(4, 3), (3,)], (0, None)),
    ("mse_loss", lambda lib, a, b: lib.nn.functional.mse_loss(a, b), [(4, 3), (4, 3)], 0),
    ("mse_loss sum", lambda lib, a, b: lib.nn.functional.mse_loss(a, b, reduction="sum"),
     [(4, 2, 3), (2, 3)], (0, None)),
    ("mse_loss none", lambda lib, a, b: lib.nn.functional.mse_loss(a, b, reduction="none"),
     [(4, 3), (4, 3)], 0),
    ("norm", lambda lib, a: a.norm() + lib.linalg.vector_norm(a, 1, dim=0).sum(),
     [(4, 2, 3)], 0),
]


@pytest.mark.parametrize(("name", "fn", "shapes", "in_dims"), RULES, ids=[r[0] for r in RULES])
def test_every_rule_matches_torch_vmap(name, fn, shapes, in_dims):
    batched.FALLBACK_OPS.clear()
    _both(fn, shapes, in_dims)
    assert name == "index list" or not batched.FALLBACK_OPS, batched.FALLBACK_OPS


def test_cross_entropy_per_sample():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(4, 2, 5))
    target = np.array([[1, 4], [0, 0], [3, 2], [4, 1]])
    out = {}
    for name, (lib, func) in LIBS.items():
        f = func.vmap(lambda x, y, lib=lib: lib.nn.functional.cross_entropy(x, y))
        out[name] = f(lib.tensor(logits), lib.tensor(target))
    assert_close(out["minigrad"], out["torch"])


@pytest.mark.parametrize("out_dims", [0, 1, -1, 2])
@pytest.mark.parametrize("in_dims", [0, 1, -1])
def test_in_dims_and_out_dims(in_dims, out_dims):
    _both(lambda lib, a: (a * 2).tanh(), [(3, 4, 5)], in_dims, out_dims)


def test_nested_vmap_outer_product_and_matrix():
    _both(lambda lib, a, b: tfunc_like(lib).vmap(lambda p: p * b)(a), [(3, 4), (3,)],
          (0, None))
    arrays = _arrays([(2, 3), (4, 3)])
    out = {}
    for name, (lib, func) in LIBS.items():
        x, y = (lib.tensor(a) for a in arrays)
        out[name] = func.vmap(func.vmap(lambda p, q: (p * q).sum(), (None, 0)), (0, None))(x, y)
    _compare(out["minigrad"], out["torch"])


def tfunc_like(lib):
    return LIBS["torch" if lib is torch else "minigrad"][1]


def test_triple_nesting():
    arrays = _arrays([(2, 3, 4)])
    out = {}
    for name, (lib, func) in LIBS.items():
        x = lib.tensor(arrays[0])
        out[name] = func.vmap(func.vmap(func.vmap(lambda v: v.exp() * 2)), 2, 0)(x)
    _compare(out["minigrad"], out["torch"])


def test_pytrees_in_and_out():
    arrays = _arrays([(4, 3), (3, 4), (2,)])
    out = {}
    for name, (lib, func) in LIBS.items():
        a, b, c = (lib.tensor(v) for v in arrays)

        def f(d, pair, lib=lib):
            return {"s": d["a"] * pair[0]}, (d["a"].sum() + pair[1].sum(),)

        out[name] = func.vmap(f, in_dims=({"a": 0}, (1, None)), out_dims=({"s": 1}, 0))(
            {"a": a}, (b, c))
    _compare(out["minigrad"], out["torch"])


def test_several_outputs_and_an_unbatched_output():
    arrays = _arrays([(4, 3), (3,)])
    out = {}
    for name, (lib, func) in LIBS.items():
        a, w = (lib.tensor(v) for v in arrays)
        out[name] = func.vmap(lambda x, w=w: (x * w, w * 2), out_dims=(1, 0))(a)
    _compare(out["minigrad"], out["torch"])


@pytest.mark.parametrize("chunk_size", [1, 2, 3])
def test_chunk_size(chunk_size):
    _both(lambda lib, a, b: a @ b, [(5, 3), (3, 2)], (0, None), 1, chunk_size=chunk_size)


class Cube(Function):
    """No batching rule: vmap runs it per sample."""

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):  # torch refuses forward(ctx, x) under vmap
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad_output


class CubeWithRule(Cube):
    calls = []

    @staticmethod
    def vmap(info, in_dims, x):
        CubeWithRule.calls.append((info.batch_size, in_dims))
        return CubeWithRule.apply(x), in_dims[0]


def test_fallback_runs_per_sample_and_a_custom_rule_is_used():
    x = mg.tensor(_arrays([(4, 3)])[0])
    batched.FALLBACK_OPS.clear()
    out = vmap(lambda v: Cube.apply(v).sum())(x)
    assert "Cube" in batched.FALLBACK_OPS
    assert_close(out, torch.tensor(x.numpy() ** 3).sum(1))
    CubeWithRule.calls.clear()
    batched.FALLBACK_OPS.clear()
    out = vmap(lambda v: CubeWithRule.apply(v))(x)
    assert CubeWithRule.calls == [(4, (0,))] and not batched.FALLBACK_OPS
    assert_close(out, torch.tensor(x.numpy() ** 3))
    # a gradient flows through the fallback's per-sample calls
    g = vmap(grad(lambda v: Cube.apply(v).sum()))(x)
    assert_close(g, torch.tensor(3 * x.numpy() ** 2))


def _errors(call):
    """call(lib, func) must raise the same type in both libraries; the messages."""
    messages = []
    for lib, func in LIBS.values():
        with pytest.raises(Exception) as info:
            call(lib, func)
        messages.append((type(info.value), str(info.value)))
    assert messages[0][0] is messages[1][0], messages
    return messages


@pytest.mark.parametrize(("call", "phrase"), [
    (lambda lib, f: f.vmap(lambda a, b: a + b)(lib.ones(3), lib.ones(4)),
     "Expected all tensors to have the same size in the mapped dimension, got sizes [3, 4]"),
    (lambda lib, f: f.vmap(lambda a: a, in_dims=[0])(lib.ones(3)),
     "expected `in_dims` to be int or a (potentially nested) tuple"),
    (lambda lib, f: f.vmap(lambda a, b: a, in_dims=(0, 0, 0))(lib.ones(3), lib.ones(3)),
     "in_dims is not compatible with the structure of `inputs`"),
    (lambda lib, f: f.vmap(lambda a: a, in_dims=2)(lib.ones(3, 2)),
     "expected in_dim to satisfy -2 <= in_dim < 2"),
    (lambda lib, f: f.vmap(lambda a, n: a, in_dims=(0, 0))(lib.ones(3), 2),
     "We cannot vmap over non-Tensor arguments"),
    (lambda lib, f: f.vmap(lambda a: a, in_dims=(None,))(lib.ones(3)),
     "at least one Tensor to vmap over"),
    (lambda lib, f: f.vmap(lambda a: a, in_dims=None)(lib.ones(3)),
     "expected `in_dims` to be int or a (potentially nested) tuple"),
    (lambda lib, f: f.vmap(lambda: 1)(), "got no inputs"),
    (lambda lib, f: f.vmap(lambda a: 1)(lib.ones(3)), "must only return Tensors"),
    (lambda lib, f: f.vmap(lambda a: a, out_dims=None)(lib.ones(3)),
     "can not return a BatchedTensor when out_dim is None"),
    (lambda lib, f: f.vmap(lambda a: a, randomness="maybe")(lib.ones(3)),
     "Only allowed values for randomness are 'error', 'different', or 'same'"),
    (lambda lib, f: f.vmap(lambda a: a.item())(lib.ones(3)), "calling .item() on a Tensor"),
    (lambda lib, f: f.vmap(lambda a: a if a > 0 else -a)(lib.ones(3)),
     "data-dependent control flow"),
])
def test_errors_match_torch(call, phrase):
    messages = _errors(call)
    for _, message in messages:
        assert phrase in message, message
    assert " Fix: " in messages[1][1]


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))


def _copy_weights(theirs, ours):
    for (_, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters(), strict=True):
        q.data = mg.tensor(p.detach().numpy().copy())


def test_per_sample_gradients_of_an_mlp_match_torch():
    """torch's per_sample_grads tutorial: vmap(grad(loss), in_dims=(None, None, 0, 0))."""
    rng = np.random.default_rng(2)
    data = rng.normal(size=(6, 3)).astype(np.float32)
    targets = rng.normal(size=(6, 2)).astype(np.float32)
    models = {"torch": _mlp(torch), "minigrad": _mlp(mg)}
    _copy_weights(models["torch"], models["minigrad"])
    out = {}
    for name, (lib, func) in LIBS.items():
        model = models[name]
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def loss(params, buffers, x, y, lib=lib, func=func, model=model):
            pred = func.functional_call(model, (params, buffers), (x.unsqueeze(0),))
            return lib.nn.functional.mse_loss(pred, y.unsqueeze(0))

        out[name] = func.vmap(func.grad(loss), in_dims=(None, None, 0, 0))(
            params, buffers, lib.tensor(data), lib.tensor(targets))
    for k in out["torch"]:
        assert_close(out["minigrad"][k], out["torch"][k], rtol=1e-5, atol=1e-6, what=k)
    # and the module keeps its own parameters afterwards
    assert all(type(p) is mg.nn.Parameter for p in models["minigrad"].parameters())


def test_functional_call_swaps_and_restores():
    model = mg.nn.Linear(2, 1)
    w = mg.tensor([[1.0, 2.0]])
    b = mg.tensor([0.5])
    out = functional_call(model, {"weight": w, "bias": b}, (mg.tensor([[1.0, 1.0]]),))
    assert out.tolist() == [[3.5]]
    assert model.weight is model._parameters["weight"] and model.weight is not w
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(model, ({"weight": w}, {"weight": w}), (mg.ones(1, 2),))


def test_stack_module_state_and_an_ensemble():
    models = [mg.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert params["weight"].shape == (4, 2, 3) and params["weight"].requires_grad
    x = mg.tensor(_arrays([(5, 3)])[0].astype(np.float32))
    base = models[0]
    out = vmap(lambda p, b: functional_call(base, (p, b), (x,)), in_dims=(0, 0))(params,
                                                                                 buffers)
    expected = np.stack([m(x).detach().numpy() for m in models])
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-6)


def test_vmap_of_jacrev_matches_torch():
    arrays = _arrays([(4, 3), (3, 3)])
    out = {}
    for name, (lib, func) in LIBS.items():
        x, w = (lib.tensor(a) for a in arrays)
        out[name] = func.vmap(func.jacrev(lambda v, w=w: (w @ v).tanh() * v))(x)
    _compare(out["minigrad"], out["torch"])


def test_vmap_of_grad_with_argnums_and_shared_argument():
    arrays = _arrays([(4, 3), (3,)])
    out = {}
    for name, (lib, func) in LIBS.items():
        x, w = (lib.tensor(a) for a in arrays)
        out[name] = func.vmap(func.grad(lambda v, w: ((v * w).sin()).sum(), argnums=(0, 1)),
                              in_dims=(0, None))(x, w)
    _compare(out["minigrad"], out["torch"])


def test_which_ops_have_a_batching_rule():
    """Every op class, with or without a rule (those without run per sample)."""
    import minigrad.inplace
    import minigrad.nn.module_hooks
    import minigrad.ops.extrema
    import minigrad.ops.index_put
    import minigrad.ops.random_fill
    import minigrad.views  # noqa: F401

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    ops = {c for c in subclasses(Function) if c.__module__.startswith("minigrad.")}
    ruled = sorted(c.__name__ for c in ops if getattr(c, "vmap", None) is not None)
    fallback = sorted(c.__name__ for c in ops if getattr(c, "vmap", None) is None)
    print("\nbatching rule:", ", ".join(ruled), "\nper-sample fallback:", ", ".join(fallback))
    for name in ["Add", "Mul", "Sum", "MeanDim", "Matmul", "Mm", "Linear", "View", "Transpose",
                 "Permute", "Unsqueeze", "Squeeze", "Slice", "Select", "MseLoss", "Exp"]:
        assert name in ruled, name
    assert set(fallback) <= {"AccumulateGrad", "ScatterAdd", "Zero", "CopySlices",
                             "BackwardHookFunction", "CheckpointFunction", "IndexPut",
                             "SlicePut", "NormalBackward0", "UniformBackward0",
                             "RandomBackward0", "RandomBackward1", "RandomBackward2"}, fallback
    assert "MinDim" in ruled and "Softmax" in ruled and "Var" in ruled
    assert MF is not None


def test_vmap_over_autograd_grad_cotangents():
    """torch's vmap docstring: the Jacobian as vmap of a vector-Jacobian product."""
    x0 = _arrays([(4,)])[0]
    out = {}
    for name, (lib, func) in LIBS.items():
        x = lib.tensor(x0, requires_grad=True)
        y = x ** 2 * x.sin()
        eye = lib.eye(4, dtype=lib.float64)
        rows = [lib.autograd.grad(y, x, v, retain_graph=True)[0] for v in eye.unbind()]
        out[name] = (func.vmap(lambda v, y=y, x=x, lib=lib: lib.autograd.grad(
            y, x, v, retain_graph=True))(eye), lib.stack(rows))
    _compare(out["minigrad"], out["torch"])


def test_jacrev_and_jacfwd_with_aux_and_diag():
    x0 = _arrays([(5,)])[0]
    out = {}
    for name, (lib, func) in LIBS.items():
        x = lib.tensor(x0)
        jr, aux_r = func.jacrev(lambda v: (v.sin(), v.cos()), has_aux=True)(x)
        jf, aux_f = func.jacfwd(lambda v: (v.sin(), v.cos()), has_aux=True)(x)
        out[name] = (jr, aux_r, jf, aux_f, lib.diag(x.cos()), lib.diag(lib.diag(x), 1),
                     lib.diag(jr, -1))
    _compare(out["minigrad"], out["torch"])


def test_randomness_modes():
    """'error' refuses a random op as torch; 'same' draws once for every sample."""
    for lib, func in LIBS.values():
        with pytest.raises(RuntimeError, match="called random operation while in randomness "
                                               "error mode"):
            func.vmap(lambda x, lib=lib: lib.nn.functional.dropout(x, 0.5))(lib.ones(3, 8))
        with pytest.raises(RuntimeError, match="randomness error mode"):
            func.vmap(lambda x, lib=lib: x + lib.randn(8))(lib.ones(3, 8))
        out = func.vmap(lambda x, lib=lib: lib.nn.functional.dropout(x, 0.5),
                        randomness="same")(lib.ones(4, 8))
        rows = out.numpy() if lib is torch else out.detach().numpy()
        assert (rows == rows[0]).all() and (rows == 0).any() and (rows == 2).any()
    with pytest.raises(NotImplementedError, match="Fix: use one of those, randomness='same'"):
        vmap(lambda x: mg.multinomial(mg.ones(8), 2), randomness="different")(mg.ones(3, 8))
    mg.randn(2)  # the generator is back after vmap


def test_vmap_of_vjp():
    arrays = _arrays([(4, 3), (4, 2)])
    w0 = _arrays([(2, 3)], seed=3)[0]
    out = {}
    for name, (lib, func) in LIBS.items():
        x, u = (lib.tensor(a) for a in arrays)
        w = lib.tensor(w0)

        def per_sample(v, c, func=func, w=w):
            value, fn = func.vjp(lambda z: (w @ z).tanh(), v)
            return value, fn(c)[0]

        out[name] = func.vmap(per_sample)(x, u)
    _compare(out["minigrad"], out["torch"])


def test_vmap_of_jvp_and_jacfwd():
    arrays = _arrays([(4, 3), (4, 3)])
    out = {}
    for name, (lib, func) in LIBS.items():
        x, v = (lib.tensor(a) for a in arrays)
        f = lambda z: z.sin() * z.sum()  # noqa: E731
        out[name] = (func.vmap(lambda a, b, func=func, f=f: func.jvp(f, (a,), (b,)))(x, v),
                     func.vmap(func.jacfwd(f))(x))
    _compare(out["minigrad"], out["torch"])


@pytest.mark.parametrize("transform", ["hessian", "jacfwd_grad", "jacrev_grad"])
def test_a_second_order_transform_under_vmap_is_computed_not_zero(transform):
    """torch nests transforms under vmap; so does minigrad (sample by sample: see
    tests/test_vmap_second_order.py), never giving zeros."""
    def f(x):
        return (x ** 3).sum()
    inner = {"hessian": lambda lib: lib.func.hessian(f),
             "jacfwd_grad": lambda lib: lib.func.jacfwd(lib.func.grad(f)),
             "jacrev_grad": lambda lib: lib.func.jacrev(lib.func.grad(f))}[transform]
    xs = [[1.0, 2.0], [3.0, -1.0]]
    theirs = torch.func.vmap(inner(torch))(torch.tensor(xs, dtype=torch.float64))
    assert theirs[1, 0, 0].item() == 18.0
    ours = mg.func.vmap(inner(mg))(mg.tensor(xs, dtype=mg.float64))
    _compare(ours, theirs)
