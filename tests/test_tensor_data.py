"""``Tensor.data``, ``.numpy()`` and ``np.asarray(t)`` against torch (chapters 05, 09, 10).

``t.data`` is a tensor sharing ``t``'s numbers, cut from the graph, with a version
counter of its own; ``t.data = other`` swaps the numbers. Each test runs the same code
on both libraries (``lib`` is ``torch`` or ``minigrad``) and compares.
"""

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close

LIBS = (torch, minigrad)


def leaf(lib, values=(1.0, -2.0, 3.0), requires_grad=True):
    return lib.tensor(list(values), dtype=lib.float64, requires_grad=requires_grad)


def both(fn):
    """``fn(lib)`` for torch then minigrad."""
    return fn(torch), fn(minigrad)


# --- the getter ---------------------------------------------------------------------
@pytest.mark.parametrize("nonleaf", [False, True])
def test_data_is_a_detached_tensor(nonleaf):
    def run(lib):
        x = leaf(lib)
        t = x * 2 if nonleaf else x
        d = t.data
        return (type(d).__name__, d.requires_grad, d.grad_fn, d.is_leaf, d is t.data,
                d._version, d.dtype == lib.float64, tuple(d.shape), d.tolist())

    theirs, ours = both(run)
    assert ours == theirs


def test_parameter_data_is_a_plain_tensor():
    theirs, ours = both(lambda lib: type(lib.nn.Parameter(lib.ones(2)).data).__name__)
    assert ours == theirs == "Tensor"


def test_data_shares_memory_not_the_version_counter():
    def run(lib):
        x = leaf(lib)
        d = x.data
        d.add_(1)
        d.mul_(2)
        return x.tolist(), x._version, d._version, x.data._version

    theirs, ours = both(run)
    assert ours == theirs == ([4.0, -2.0, 8.0], 0, 2, 0)


def test_detach_shares_the_version_counter_data_does_not():
    def run(lib):
        x = leaf(lib)
        x.detach().add_(1)
        after_detach = x._version
        x.data.add_(1)
        return after_detach, x._version

    theirs, ours = both(run)
    assert ours == theirs == (1, 1)


def test_change_through_data_escapes_the_saved_tensor_check():
    """exp saves its result; changed through .data, backward runs on the new values."""
    def run(lib):
        x = leaf(lib)
        y = x.exp()
        y.data.mul_(2)
        y.sum().backward()
        return x.grad

    theirs, ours = both(run)
    assert_close(ours, theirs, what="grad through a saved tensor changed via .data")
    assert_close(ours, 2 * np.exp([1.0, -2.0, 3.0]))


def test_change_through_detach_is_caught():
    def run(lib):
        x = leaf(lib)
        y = x.exp()
        y.detach().mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            y.sum().backward()
        return info.type

    theirs, ours = both(run)
    assert ours is theirs is RuntimeError


def test_data_of_an_inference_tensor_is_an_inference_tensor():
    def run(lib):
        with lib.inference_mode():
            q = lib.ones(2)
        return q.data.is_inference(), leaf(lib).data.is_inference()

    theirs, ours = both(run)
    assert ours == theirs == (True, False)


def test_everyday_uses():
    def run(lib):
        p = leaf(lib)
        g = lib.tensor([0.5, 0.25, -1.0], dtype=lib.float64)
        norm = p.data.norm()
        p.data -= 0.1 * g
        after_sub = p.detach().clone()
        p.data.mul_(3)
        arr = p.data.numpy().copy()
        p.data.zero_()
        return norm, after_sub, arr, p.detach(), p._version, p.requires_grad, p.is_leaf

    theirs, ours = both(run)
    for i, what in enumerate(["norm", "after -=", "numpy", "after zero_"]):
        assert_close(ours[i], theirs[i], what=what)
    assert ours[4:] == theirs[4:] == (0, True, True)
    assert isinstance(ours[2], np.ndarray)


# --- the setter ---------------------------------------------------------------------
@pytest.mark.parametrize("new", [
    lambda lib: lib.zeros(2, 2, dtype=lib.float32),
    lambda lib: lib.tensor([5.0, 6.0], dtype=lib.float64),
    lambda lib: lib.arange(4.0, dtype=lib.float64).reshape(2, 2),
])
def test_setter_replaces_shape_dtype_and_values(new):
    def run(lib):
        w = leaf(lib)
        w.data = new(lib)
        return w.tolist(), str(w.dtype).split(".")[-1], w.requires_grad, w.is_leaf, w._version

    theirs, ours = both(run)
    assert ours == theirs


def test_setter_shares_the_new_storage_and_backward_uses_it():
    def run(lib):
        w = leaf(lib)
        new = lib.tensor([2.0, 3.0], dtype=lib.float64)
        w.data = new
        new.add_(1)  # w holds new's storage
        (w * w).sum().backward()
        return w.detach().clone(), w.grad

    theirs, ours = both(run)
    assert_close(ours[0], theirs[0], what="w after new.add_")
    assert_close(ours[1], theirs[1], what="grad after w.data = new")
    assert_close(ours[1], [6.0, 8.0])


def test_setter_on_a_nonleaf_keeps_its_grad_fn():
    def run(lib):
        y = leaf(lib) * 2
        y.data = lib.zeros(5, dtype=lib.float64)
        return y.tolist(), y.grad_fn.name(), y.requires_grad

    theirs, ours = both(run)
    assert ours == theirs


def test_setter_on_an_integer_tensor_without_grad():
    def run(lib):
        i = lib.arange(3)
        i.data = lib.ones(3)
        return i.tolist(), str(i.dtype).split(".")[-1]

    theirs, ours = both(run)
    assert ours == theirs


@pytest.mark.parametrize("value, kind, phrase", [
    (5, TypeError, "Variable data has to be a tensor, but got int"),
    (np.zeros(3), TypeError, "Variable data has to be a tensor, but got numpy.ndarray"),
    ([1.0, 2.0], TypeError, "Variable data has to be a tensor, but got list"),
    ("int64", RuntimeError,
     "data set to a tensor that requires gradients must be floating point or complex dtype"),
])
def test_setter_errors(value, kind, phrase):
    for lib in LIBS:
        w = leaf(lib)
        new = lib.zeros(3, dtype=lib.int64) if isinstance(value, str) else value
        with pytest.raises(kind, match=phrase) as info:
            w.data = new
        assert info.type is kind
        if lib is minigrad:
            assert " Fix: " in str(info.value)
        assert w.tolist() == [1.0, -2.0, 3.0]


# --- numpy() and np.asarray ---------------------------------------------------------
NUMPY_GRAD = (r"Can't call numpy\(\) on Tensor that requires grad\. "
              r"Use tensor\.detach\(\)\.numpy\(\) instead\.")


TORCH_ARRAY_COPY = "ignore:__array__ implementation doesn't accept a copy:DeprecationWarning"


@pytest.mark.filterwarnings(TORCH_ARRAY_COPY)  # torch's own __array__, under numpy 2
@pytest.mark.parametrize("call", [
    lambda t: t.numpy(),
    lambda t: np.asarray(t),
    lambda t: np.asarray(t, dtype=np.float32),
    lambda t: np.array(t),
])
def test_numpy_refuses_a_tensor_that_requires_grad(call):
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=NUMPY_GRAD):
            call(leaf(lib))
        with pytest.raises(RuntimeError, match=NUMPY_GRAD):
            call(leaf(lib) * 2)


def test_numpy_error_has_a_fix():
    with pytest.raises(RuntimeError, match="Fix: "):
        leaf(minigrad).numpy()


@pytest.mark.parametrize("get", [
    lambda t: t.detach().numpy(),
    lambda t: t.data.numpy(),
    lambda t: t.numpy(force=True),
    lambda t: np.asarray(t.detach()),
    lambda t: np.asarray(t.data),
])
def test_numpy_shares_memory(get):
    def run(lib):
        x = leaf(lib)
        a = get(x)
        a[0] = 100.0
        return type(a).__name__, a.dtype.name, x.tolist()

    theirs, ours = both(run)
    assert ours == theirs == ("ndarray", "float64", [100.0, -2.0, 3.0])


@pytest.mark.filterwarnings(TORCH_ARRAY_COPY)
def test_asarray_with_a_dtype_and_copy():
    def run(lib):
        x = leaf(lib, requires_grad=False)
        a = np.asarray(x, dtype=np.float32)
        c = np.array(x, copy=True)
        c[0] = 7.0
        return a.dtype.name, a.tolist(), x.tolist()

    theirs, ours = both(run)
    assert ours == theirs


def test_numpy_of_a_plain_tensor():
    def run(lib):
        x = lib.arange(6).reshape(2, 3)
        return x.numpy().tolist(), x.numpy().dtype.name

    theirs, ours = both(run)
    assert ours == theirs


# --- training loops through .data ---------------------------------------------------
def _regression(lib):
    rng = np.random.default_rng(3)
    X = lib.tensor(rng.normal(size=(16, 3)), dtype=lib.float64)
    y = lib.tensor(rng.normal(size=(16, 1)), dtype=lib.float64)
    w = lib.tensor(rng.normal(size=(3, 1)), dtype=lib.float64, requires_grad=True)
    b = lib.zeros(1, dtype=lib.float64, requires_grad=True)
    return X, y, w, b


def test_sgd_by_hand_through_data():
    """The tutorials' loop: ``p.data -= lr * p.grad``; ``p.grad.data.zero_()``."""
    def run(lib):
        X, y, w, b = _regression(lib)
        losses = []
        for _ in range(5):
            loss = ((X @ w + b - y) ** 2).mean()
            loss.backward()
            losses.append(loss.item())
            for p in (w, b):
                p.data -= 0.1 * p.grad
                p.grad.data.zero_()
        return losses, w, b, w._version, w.grad

    theirs, ours = both(run)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    assert_close(ours[1], theirs[1], what="w")
    assert_close(ours[2], theirs[2], what="b")
    assert ours[3] == theirs[3] == 0
    assert_close(ours[4], theirs[4], what="zeroed grad")


def test_sgd_by_hand_with_add_alpha():
    def run(lib):
        X, y, w, b = _regression(lib)
        for _ in range(4):
            ((X @ w + b - y) ** 2).mean().backward()
            with lib.no_grad():
                for p in (w, b):
                    p.data.add_(p.grad, alpha=-0.05)
                    p.grad = None
        return w, b

    theirs, ours = both(run)
    assert_close(ours[0], theirs[0], what="w")
    assert_close(ours[1], theirs[1], what="b")


@pytest.mark.parametrize("make_opt", [
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda lib, ps: lib.optim.Adam(ps, lr=0.05),
])
def test_optimizer_after_data_is_reassigned(make_opt):
    """An optimizer keeps working on a parameter whose storage ``p.data = ...`` swapped."""
    def run(lib):
        X, y, w, b = _regression(lib)
        opt = make_opt(lib, [w, b])
        versions = []
        for step in range(6):
            opt.zero_grad()
            ((X @ w + b - y) ** 2).mean().backward()
            opt.step()
            versions.append(w._version)
            if step == 2:
                w.data = w.data * 0.5
        return w, b, versions

    theirs, ours = both(run)
    assert_close(ours[0], theirs[0], what="w")
    assert_close(ours[1], theirs[1], what="b")
    assert ours[2] == theirs[2]


def test_optimizer_step_is_seen_through_data():
    def run(lib):
        X, y, w, b = _regression(lib)
        view = w.data
        opt = lib.optim.SGD([w, b], lr=0.1)
        ((X @ w + b - y) ** 2).mean().backward()
        opt.step()
        return view, view._version

    theirs, ours = both(run)
    assert_close(ours[0], theirs[0], what="w.data taken before step")
    assert ours[1] == theirs[1] == 0
