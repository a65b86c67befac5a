"""``//`` (floor_divide), ``round`` and the in-place ``relu_`` against torch: values,
dtypes, what happens to gradients (floor_divide has no derivative in torch: its result
requires grad and backward refuses; round's gradient is zero), and relu_'s version-counter
behaviour (refused on a leaf that requires grad, recorded on a non-leaf, its output saved)."""

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close

LIBS = {"minigrad": minigrad, "torch": torch}


def both(f):
    """f(lib) in both libraries: the value, or (exception type name, message)."""
    out = {}
    for name, lib in LIBS.items():
        try:
            out[name] = f(lib)
        except Exception as error:  # noqa: BLE001 - compared by the caller
            out[name] = (type(error).__name__, str(error))
    return out


def same_error(f, phrase):
    out = both(f)
    assert isinstance(out["torch"], tuple) and phrase in out["torch"][1]
    assert isinstance(out["minigrad"], tuple), out["minigrad"]
    assert out["minigrad"][0] == out["torch"][0] and phrase in out["minigrad"][1]
    assert " Fix: " in out["minigrad"][1]


def same_values(f):
    out = both(f)
    ours, theirs = out["minigrad"], out["torch"]
    assert not isinstance(theirs, tuple), theirs
    assert not isinstance(ours, tuple), ours
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(np.asarray(ours.tolist()), np.asarray(theirs.tolist()))


RNG = np.random.default_rng(3)
A = RNG.uniform(-10, 10, (3, 4))
B = RNG.choice([-3.0, -2.5, -0.7, 0.3, 2.0, 4.0], (3, 4))
INTS_A = RNG.integers(-20, 20, (3, 4))
INTS_B = RNG.choice([-7, -3, -1, 1, 2, 5], (3, 4))


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor(A) // lib.tensor(B),
    lambda lib: lib.tensor(A) // 2.5,
    lambda lib: lib.tensor(A) // -3,
    lambda lib: 7.5 // lib.tensor(B),
    lambda lib: -7 // lib.tensor(INTS_B),
    lambda lib: lib.tensor(INTS_A) // lib.tensor(INTS_B),
    lambda lib: lib.tensor(INTS_A) // 3,
    lambda lib: lib.tensor(INTS_A) // 2.5,
    lambda lib: lib.tensor(INTS_A) // lib.tensor(B),
    lambda lib: lib.tensor(INTS_A, dtype=lib.int32) // lib.tensor(INTS_B),
    lambda lib: lib.tensor(A, dtype=lib.float32) // lib.tensor(2.0, dtype=lib.float64),
    lambda lib: lib.tensor(A, dtype=lib.float32) // lib.tensor(B),
    lambda lib: lib.tensor([True, False]) // 2,
    lambda lib: lib.tensor([7.0, -7.0, 0.0]) // 0,
    lambda lib: lib.tensor([[1.0], [-5.0]]) // lib.tensor([2.0, -3.0, 4.0]),
    lambda lib: lib.floor_divide(lib.tensor(A), lib.tensor(B)),
    lambda lib: lib.floor_divide(lib.tensor(A), 2),
    lambda lib: lib.tensor(A).floor_divide(lib.tensor(B)),
])
def test_floor_divide_values_and_dtypes(make):
    with np.errstate(all="ignore"):
        same_values(make)


def test_floor_divide_int_by_zero_is_torchs_error():
    same_error(lambda lib: lib.tensor([7, -7]) // 0, "ZeroDivisionError")


def test_floor_divide_of_bools_is_refused_like_torch():
    same_error(lambda lib: lib.tensor([True, False]) // lib.tensor([True, True]),
               "\"div_floor_cpu\" not implemented for 'Bool'")


@pytest.mark.parametrize("which", ["numerator", "denominator"])
def test_floor_divide_result_requires_grad_and_backward_refuses(which):
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x // 2 if which == "numerator" else 7.0 // x
        assert y.requires_grad and y.grad_fn is not None
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        assert repr(y.grad_fn).startswith("<NotImplemented object")
        y.sum().backward()

    same_error(run, "derivative for aten::floor_divide is not implemented")


def test_floor_divide_without_grad_is_a_constant():
    for lib in (minigrad, torch):
        with lib.no_grad():
            y = lib.tensor(A, requires_grad=True) // 2
        assert not y.requires_grad and y.grad_fn is None


def test_ifloordiv_in_place():
    def run(lib):
        a = lib.tensor(INTS_A)
        alias = a
        a //= 3
        assert a is alias
        return a

    same_values(run)

    def run_float(lib):
        a = lib.tensor(A)
        view = a[0]
        a //= lib.tensor(B)
        return view * 1  # the view sees the change

    same_values(run_float)


def test_ifloordiv_keeps_the_dtype_like_torch():
    def run(lib):
        a = lib.tensor([7, -7])
        a //= 2.5

    same_error(run, "result type Float can't be cast to the desired output type Long")


def test_ifloordiv_on_a_leaf_that_requires_grad_is_refused():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        x //= 2

    same_error(run, "a leaf Variable that requires grad is being used in an in-place operation")


def test_ifloordiv_on_a_non_leaf_records_and_backward_refuses():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        z = x * 1
        z //= 2
        assert z.requires_grad
        z.sum().backward()

    same_error(run, "derivative for aten::floor_divide")


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([2.5, 3.5, -2.5, -0.5, 0.5, 1.2345, -7.77]).round(),
    lambda lib: lib.round(lib.tensor(A)),
    lambda lib: lib.round(lib.tensor(A), decimals=2),
    lambda lib: lib.tensor(A * 1000).round(decimals=-2),
    lambda lib: lib.tensor(A, dtype=lib.float32).round(decimals=1),
    lambda lib: lib.tensor(A).round(decimals=0),
    lambda lib: lib.tensor(INTS_A).round(),
    lambda lib: lib.tensor(INTS_A, dtype=lib.int32).round(),
])
def test_round_values_and_dtypes(make):
    same_values(make)


def test_round_of_ints_with_decimals_is_refused_like_torch():
    same_error(lambda lib: lib.tensor([35, 44]).round(decimals=-1),
               "\"round_cpu\" not implemented for 'Long'")


@pytest.mark.parametrize("decimals, node", [(None, "RoundBackward0"), (1, "RoundBackward1")])
def test_round_gradient_is_zero_as_torchs(decimals, node):
    for lib in (minigrad, torch):
        x = lib.tensor(A, requires_grad=True)
        y = x.round() if decimals is None else x.round(decimals=decimals)
        assert y.grad_fn.name() == node
        (y * 3).sum().backward()
        assert_close(x.grad, torch.zeros(3, 4, dtype=torch.float64))


def test_relu_inplace_on_a_leaf_that_requires_grad_is_refused_everywhere():
    phrase = "a leaf Variable that requires grad is being used in an in-place operation"
    same_error(lambda lib: lib.tensor(A, requires_grad=True).relu_(), phrase)
    same_error(lambda lib: lib.relu_(lib.tensor(A, requires_grad=True)), phrase)
    same_error(lambda lib: lib.nn.functional.relu(lib.tensor(A, requires_grad=True),
                                                  inplace=True), phrase)
    same_error(lambda lib: lib.nn.ReLU(inplace=True)(lib.tensor(A, requires_grad=True)),
               phrase)
    same_error(lambda lib: lib.tensor(A, requires_grad=True)[1:].relu_(),
               "a view of a leaf Variable that requires grad is being used in an in-place")


@pytest.mark.parametrize("how", ["method", "toplevel", "functional", "module"])
def test_relu_inplace_on_a_non_leaf_is_recorded_as_relu(how):
    grads = []
    for lib in (minigrad, torch):
        x = lib.tensor(A, requires_grad=True)
        y = x * 2
        version = y._version
        out = {"method": lambda lib, y: y.relu_(), "toplevel": lambda lib, y: lib.relu_(y),
               "functional": lambda lib, y: lib.nn.functional.relu(y, inplace=True),
               "module": lambda lib, y: lib.nn.ReLU(inplace=True)(y)}[how](lib, y)
        assert out is y and y._version == version + 1
        assert y.grad_fn.name() == "ReluBackward0"
        (y * y).sum().backward()
        grads.append(x.grad)
    assert_close(grads[0], grads[1])


def test_relu_inplace_without_grad_changes_the_numbers():
    def run(lib):
        t = lib.tensor(A)
        alias = t.view(-1) if hasattr(t, "view") else t.reshape(-1)
        lib.relu_(t)
        assert t._version == 1
        return alias * 1

    same_values(run)
    same_values(lambda lib: lib.tensor([-1, 2]).relu_())
    same_values(lambda lib: lib.nn.functional.relu(lib.tensor([-1.0, 2.0]), True))


def test_relu_inplace_of_bools_is_refused():
    same_error(lambda lib: lib.tensor([True]).relu_(), "Boolean inputs not supported for relu")


def test_relu_saves_its_output_so_changing_it_after_relu_inplace_is_caught():
    """relu_ saves its output, y itself: a later y.mul_(2) fails backward (version 2,
    expected 1), as torch."""

    def run(lib):
        y = lib.tensor(A, requires_grad=True) * 1
        y.relu_()
        y.mul_(2)
        y.sum().backward()

    same_error(run, "is at version 2; expected version 1 instead")


def test_relu_inplace_of_a_saved_output_is_caught():
    """exp saves its output: relu_ on it changes what exp's backward needs."""

    def run(lib):
        y = lib.tensor(A, requires_grad=True).exp()
        y.relu_()
        y.sum().backward()

    same_error(run, "is at version 1; expected version 0 instead")


def test_relu_module_repr_and_inplace_attribute():
    for lib in (minigrad, torch):
        assert repr(lib.nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
        assert repr(lib.nn.ReLU()) == "ReLU()"
        assert lib.nn.ReLU(True).inplace is True


def test_forward_mode_refuses_floor_divide_and_gives_round_a_zero_tangent():
    def run(lib, op):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(A), lib.ones(3, 4, dtype=lib.float64))
            return fw.unpack_dual(op(x)).tangent

    same_error(lambda lib: run(lib, lambda x: x // 2),
               "Trying to use forward AD with aten::floor_divide that does not support it")
    same_values(lambda lib: run(lib, lambda x: x.round()))
