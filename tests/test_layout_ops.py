"""torch's everyday ops of tiling.py, reorder.py, triangular.py, gathering.py,
products.py, cumulative.py, predicates.py and sorting.py, against torch: the function and
the method, values, dtypes and node names, gradients (``helper_test_op``), int and bool
inputs, special values, torch's refusals (type, key phrase, then a Fix), ``vmap``, and
small programs run with both libraries. Double backward and forward mode: op_cases.py."""

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close, helper_test_op

LIBS = {"minigrad": minigrad, "torch": torch}


def _outcome(f):
    try:
        return f()
    except Exception as error:  # noqa: BLE001 - compared by the caller
        return (type(error).__name__, str(error))


def _np(x):
    return x.detach().numpy()


def _same(ours, theirs):
    """Same value and dtype, or the same exception type with torch's key phrase and a Fix."""
    if isinstance(theirs, tuple) and isinstance(theirs[0], str):
        assert isinstance(ours, tuple) and isinstance(ours[0], str), f"minigrad gave {ours!r}"
        assert ours[0] == theirs[0], (ours, theirs)
        key = theirs[1].split(". ")[0].split(" (")[0].split(": [")[0]
        assert key in ours[1] and "Fix: " in ours[1], (ours[1], theirs[1])
        return
    if isinstance(theirs, tuple | list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            _same(a, b)
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert _np(ours).shape == _np(theirs).shape
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-12, atol=0, equal_nan=True)


def _ix(lib, values):
    return lib.tensor(values)


CALLS = {  # name: f(lib, x) on a float64 (3, 4) x that requires grad
    "expand": lambda lib, x: x[0].expand(2, 3, 4),
    "expand_tuple": lambda lib, x: x[:, :1].expand((3, 5)),
    "expand_minus_one": lambda lib, x: x[None].expand(2, -1, -1),
    "expand_as": lambda lib, x: x[1].expand_as(x),
    "repeat": lambda lib, x: x.repeat(2, 3),
    "repeat_new_dims": lambda lib, x: x.repeat((2, 1, 1)),
    "flip": lambda lib, x: lib.flip(x, (0, 1)),
    "flip_method": lambda lib, x: x.flip(-1),
    "roll": lambda lib, x: lib.roll(x, 2, 1),
    "roll_flat": lambda lib, x: x.roll(-3),
    "roll_dims": lambda lib, x: x.roll((1, 5), (0, 1)),
    "narrow": lambda lib, x: lib.narrow(x, 1, 1, 2),
    "narrow_negative": lambda lib, x: x.narrow(-1, -2, 2),
    "split": lambda lib, x: lib.split(x, 3, 1)[1],
    "split_sizes": lambda lib, x: x.split([1, 2], 0)[1],
    "chunk": lambda lib, x: lib.chunk(x, 3, 1)[0],
    "tril": lambda lib, x: lib.tril(x, 1),
    "triu": lambda lib, x: x.triu(-1),
    "trace": lambda lib, x: lib.trace(x),
    "gather": lambda lib, x: lib.gather(x, 0, _ix(lib, [[2, 0, 1, 2], [0, 0, 0, 1]])),
    "gather_method": lambda lib, x: x.gather(1, _ix(lib, [[3, 3, 0], [1, 2, 1], [0, 0, 0]])),
    "index_select": lambda lib, x: lib.index_select(x, 1, _ix(lib, [3, 0, 3])),
    "index_select_method": lambda lib, x: x.index_select(0, _ix(lib, [2])),
    "masked_fill": lambda lib, x: lib.masked_fill(x, x > 0.5, -1.5),
    "masked_fill_row": lambda lib, x: x.masked_fill(_ix(lib, [True, False, True, False]), 2.0),
    "masked_fill_tensor": lambda lib, x: x.masked_fill(x < 0, x[0, 0] * 3),
    "bmm": lambda lib, x: lib.bmm(x.reshape(3, 2, 2), x.reshape(3, 2, 2).exp()),
    "addmm": lambda lib, x: lib.addmm(x[0, :3], x, x.t().tanh()),
    "addmm_scaled": lambda lib, x: x[:, :1].addmm(x, x.t(), beta=0.25, alpha=-2.0),
    "outer": lambda lib, x: lib.outer(x[0], x[1]),
    "cumsum": lambda lib, x: lib.cumsum(x, 1),
    "cumsum_method": lambda lib, x: x.cumsum(-2),
    "cumprod": lambda lib, x: lib.cumprod(x, 0),
    "cumprod_zeros": lambda lib, x: (x * (x > 0)).cumprod(1),
    "prod": lambda lib, x: lib.prod(x),
    "prod_dim": lambda lib, x: x.prod(1, keepdim=True),
    "prod_zeros": lambda lib, x: (x * (x > -1.0)).masked_fill(x > 1.0, 0.0).prod(0),
    "diff": lambda lib, x: lib.diff(x),
    "diff_prepend": lambda lib, x: x.diff(2, 0, prepend=x[:1] * 2, append=x[1:] ** 2),
    "nan_to_num": lambda lib, x: lib.nan_to_num(x.log()),
    "nan_to_num_values": lambda lib, x: (x / (x > 0)).nan_to_num(1.0, 7.0, -7.0),
    "sort": lambda lib, x: lib.sort(x).values,
    "sort_descending": lambda lib, x: x.sort(0, descending=True)[0],
    "topk": lambda lib, x: lib.topk(x, 2).values,
    "topk_smallest": lambda lib, x: x.topk(2, 0, largest=False)[0],
}


@pytest.mark.parametrize("name", CALLS)
def test_values_gradients_and_node_names(name):
    call = CALLS[name]
    helper_test_op([(3, 4)], lambda a: call(torch, a), lambda a: call(minigrad, a))


@pytest.mark.parametrize("name", ["sort", "argsort", "topk", "isnan", "isinf",
                                  "logical_not", "count_nonzero"])
def test_indices_and_predicates(name):
    values = [[2.0, float("nan"), -1.0, 2.0], [float("inf"), 0.0, -float("inf"), 0.0],
              [1.0, 1.0, 1.0, -0.5]]
    calls = {"sort": lambda lib, x: (x.sort(1), lib.sort(x, 0, descending=True)),
             "argsort": lambda lib, x: (x.argsort(1), lib.argsort(x, 1, descending=True)),
             "topk": lambda lib, x: (x[:, 2:].topk(2), lib.topk(x[1:3, :2], 2, 0, largest=False)),
             "isnan": lambda lib, x: (x.isnan(), lib.isnan(x)),
             "isinf": lambda lib, x: (x.isinf(), lib.isinf(x)),
             "logical_not": lambda lib, x: (x.logical_not(), lib.logical_not(x > 0)),
             "count_nonzero": lambda lib, x: (x.count_nonzero(), lib.count_nonzero(x, 1),
                                              x.count_nonzero((0, 1)))}
    out = {n: calls[name](lib, lib.tensor(values, dtype=lib.float64)) for n, lib in LIBS.items()}
    for a, b in zip(out["minigrad"], out["torch"], strict=True):
        if isinstance(b, tuple):
            _same(a.values, b.values)
            _same(a.indices, b.indices)
        else:
            _same(a, b)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "prod", "trace", "isnan", "isinf",
                                "nan_to_num", "diff", "flip", "tril", "repeat", "sort",
                                "count_nonzero", "logical_not", "masked_fill"])
def test_int_and_bool_inputs_as_torch(op, dtype):
    calls = {"cumsum": lambda x: x.cumsum(0), "cumprod": lambda x: x.cumprod(1),
             "prod": lambda x: (x.prod(), x.prod(0)), "trace": lambda x: x.trace(),
             "isnan": lambda x: x.isnan(), "isinf": lambda x: x.isinf(),
             "nan_to_num": lambda x: x.nan_to_num(), "diff": lambda x: x.diff(),
             "flip": lambda x: x.flip(0), "tril": lambda x: x.tril(),
             "repeat": lambda x: x.repeat(2, 1), "sort": lambda x: x.sort().values,
             "count_nonzero": lambda x: x.count_nonzero(0),
             "logical_not": lambda x: x.logical_not(),
             "masked_fill": lambda x: x.masked_fill(x > 0, 1)}
    data = np.array([[3, 0, -2], [1, 4, 0]]).astype(dtype)
    out = {n: _outcome(lambda lib=lib: calls[op](lib.tensor(data))) for n, lib in LIBS.items()}
    _same(out["minigrad"], out["torch"])


@pytest.mark.parametrize("call", [
    lambda lib, x: x.expand(3), lambda lib, x: x.expand(2, 5), lambda lib, x: x.expand(-1, 2, 3),
    lambda lib, x: x.repeat(2), lambda lib, x: x.repeat(2, -1),
    lambda lib, x: x.flip((0, 0)), lambda lib, x: x.flip(2), lambda lib, x: x.roll((1, 2), 0),
    lambda lib, x: x.narrow(1, 4, 1), lambda lib, x: x.narrow(1, 1, 3),
    lambda lib, x: x.split([1, 2], 1), lambda lib, x: x.chunk(0),
    lambda lib, x: x[0].tril(), lambda lib, x: x[0].trace(),
    lambda lib, x: x.gather(1, _ix(lib, [0, 1])), lambda lib, x: x.gather(1, _ix(lib, [[5]])),
    lambda lib, x: x.gather(1, _ix(lib, [[0]] * 3)),
    lambda lib, x: x.gather(1, lib.tensor([[0.0]])), lambda lib, x: x.gather(1, [[0]]),
    lambda lib, x: x.index_select(0, _ix(lib, [[0]])),
    lambda lib, x: x.index_select(0, _ix(lib, [7])),
    lambda lib, x: x.index_select(0, lib.tensor([0.0])),
    lambda lib, x: x.masked_fill(x, 1.0), lambda lib, x: x.masked_fill(x > 0, x[0]),
    lambda lib, x: x.masked_fill(_ix(lib, [True] * 5), 1.0),
    lambda lib, x: lib.bmm(x, x), lambda lib, x: lib.bmm(x[None], x[None]),
    lambda lib, x: lib.addmm(x, x, x), lambda lib, x: lib.outer(x, x[0]),
    lambda lib, x: x.cumsum(2), lambda lib, x: x.diff(-1), lambda lib, x: x.topk(4),
    lambda lib, x: x.sort(dim=2), lambda lib, x: lib.trace(3),
])
def test_misuse_is_refused_as_torch(call):
    out = {name: _outcome(lambda lib=lib: call(lib, lib.ones(2, 3, dtype=lib.float64)))
           for name, lib in LIBS.items()}
    assert isinstance(out["torch"], tuple), out["torch"]
    _same(out["minigrad"], out["torch"])


def test_expand_is_a_view_and_repeat_a_copy():
    for lib in LIBS.values():
        base = lib.tensor([1.0, 2.0])
        view, copy = base.expand(3, 2), base.repeat(3, 1)
        base.mul_(10)
        assert view.tolist() == [[10.0, 20.0]] * 3
        assert copy.tolist() == [[1.0, 2.0]] * 3


def test_split_pieces_share_one_gradient_as_torch():
    grads = {}
    for name, lib in LIBS.items():
        x = lib.tensor(np.linspace(-1, 1, 10), dtype=lib.float64, requires_grad=True)
        pieces = x.chunk(3)
        loss = sum((p * (i + 1)) .exp().sum() for i, p in enumerate(pieces))
        loss.backward()
        grads[name] = (x.grad, [p.grad_fn.name() for p in pieces], len(pieces))
    assert_close(grads["minigrad"][0], grads["torch"][0])
    assert grads["minigrad"][1:] == grads["torch"][1:]


@pytest.mark.parametrize("name", ["expand", "repeat", "flip", "roll_dims", "tril", "triu",
                                  "cumsum", "cumprod", "prod_dim", "masked_fill", "nan_to_num",
                                  "gather_method", "sort", "topk", "diff", "narrow", "outer",
                                  "trace", "addmm", "addmm_scaled", "bmm", "split", "chunk"])
def test_under_vmap_as_torch(name):
    call = CALLS[name]
    out = {}
    for lib_name, lib in LIBS.items():
        xs = lib.tensor(np.linspace(0.1, 2.3, 24).reshape(2, 3, 4) * [[[1, -1, 1, -1]]],
                        dtype=lib.float64)
        out[lib_name] = lib.func.vmap(lambda v, lib=lib: call(lib, v))(xs)
    assert_close(out["minigrad"], out["torch"], rtol=1e-12, atol=0)


def _attention(lib, q, k, v):
    """Causal attention: triu mask, masked_fill with -inf, softmax by logsumexp."""
    scores = q @ k.t() / 2.0
    mask = lib.ones(5, 5, dtype=lib.bool).triu(1)
    scores = scores.masked_fill(mask, -float("inf"))
    weights = (scores - scores.logsumexp(-1, keepdim=True)).exp()
    return ((weights @ v).tanh() ** 2).sum()


def _cumulative_loss(lib, x, y):
    """A discounted running-sum loss with a top-k pick and a running product."""
    running = (x - y).cumsum(1)
    best = running.abs().topk(2, dim=1).values
    decay = (x.sigmoid() * 0.5 + 0.5).cumprod(1)
    return (best.square().sum() + (decay * running).sum() + x.diff().abs().sum()
            + running.amax(0).sum() - x.prod(1).sum())


def _tiled_features(lib, x, w):
    """Gathered, tiled and rolled features through bmm and addmm."""
    idx = lib.tensor([[0, 2, 1], [3, 3, 0], [1, 0, 2]])
    picked = x.gather(1, idx)
    tiled = picked.repeat(2, 1, 1).flip(0).roll(1, 2)
    out = tiled.bmm(w.expand(2, 3, 3))
    return (lib.addmm(out[0, 0], out[1], w.tril(), beta=0.5) ** 2).sum()


@pytest.mark.parametrize("program, shapes", [
    (_attention, [(5, 3), (5, 3), (5, 2)]),
    (_cumulative_loss, [(4, 6), (4, 6)]),
    (_tiled_features, [(3, 4), (3, 3)]),
])
def test_small_programs_give_torchs_numbers(program, shapes):
    helper_test_op(shapes, lambda *xs: program(torch, *xs), lambda *xs: program(minigrad, *xs),
                   check_name=False)


@pytest.mark.parametrize("op", ["isnan", "isinf", "logical_not", "count_nonzero", "argsort"])
def test_predicates_and_indices_under_vmap_as_torch(op):
    out = {}
    for name, lib in LIBS.items():
        xs = lib.tensor([[1.0, float("nan"), 0.0], [float("inf"), 2.0, -1.0]], dtype=lib.float64)
        out[name] = lib.func.vmap(lambda v, lib=lib: getattr(lib, op)(v))(xs)
    _same(out["minigrad"], out["torch"])


def test_vmap_over_gathers_index_is_refused_not_wrong():
    x = minigrad.tensor([[1.0, 2.0, 3.0]])
    indices = minigrad.tensor([[[0]], [[2]]])
    with pytest.raises(NotImplementedError, match="Fix: "):
        minigrad.func.vmap(lambda i: x.gather(1, i))(indices)


BRIEF = ("expand repeat square rsqrt log1p expm1 prod cumsum cumprod maximum minimum amax amin "
         "logsumexp gather masked_fill index_select outer tril triu trace flip chunk split "
         "narrow tan atan asin acos sinh cosh log2 log10 exp2 bmm addmm isnan isinf nan_to_num erf "
         "lerp atan2 sort topk argsort roll diff logaddexp count_nonzero logical_not").split()


@pytest.mark.parametrize("name", BRIEF)
def test_method_and_function_exist_where_torchs_do(name):
    for where, theirs in ((minigrad.Tensor, torch.Tensor), (minigrad, torch)):
        assert hasattr(where, name) == hasattr(theirs, name), (where, name)
    assert (name in minigrad.__all__) == hasattr(torch, name)


@pytest.mark.parametrize("name", ["flip", "expand", "repeat"])
def test_sizes_are_required_as_torch(name):
    out = {n: _outcome(lambda lib=lib: getattr(lib.ones(2, 3), name)()) for n, lib in LIBS.items()}
    assert out["minigrad"][0] == out["torch"][0] == "TypeError"
    assert out["torch"][1].split(": ")[0] in out["minigrad"][1]
