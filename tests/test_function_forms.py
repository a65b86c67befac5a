"""The function forms of tensor methods a PyTorch user's code calls as ``torch.<name>``
(``torch.add(a, b, alpha=2)``, ``torch.flatten(x, 1)``, ``torch.argmax(logits, dim=1)``...)
and ``Tensor.flatten(start_dim, end_dim)``, against torch: values, dtypes, node names and
gradients after a non-uniform upstream gradient (float64), scalars first where torch takes
them, and torch's TypeError (its key phrase, then a Fix) where it refuses."""

import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close, helper_test_op

# name: (shapes, call as lib.<name>(...), low)
CASES = {
    "add": ([(3, 4), (4,)], lambda L, a, b: L.add(a, b), -2.0),
    "add_alpha": ([(3, 4), (3, 4)], lambda L, a, b: L.add(a, b, alpha=2.5), -2.0),
    "sub": ([(3, 4), (4,)], lambda L, a, b: L.sub(a, b), -2.0),
    "sub_alpha": ([(2, 3), (2, 3)], lambda L, a, b: L.sub(a, b, alpha=-0.5), -2.0),
    "mul": ([(3, 4), (3, 1)], lambda L, a, b: L.mul(a, b), -2.0),
    "mul_scalar": ([(3, 4)], lambda L, a: L.mul(a, 1.5), -2.0),
    "div": ([(3, 4), (4,)], lambda L, a, b: L.div(a, b), 0.5),
    "pow": ([(3, 4)], lambda L, a: L.pow(a, 3), -2.0),
    "pow_tensor": ([(3, 4), (3, 4)], lambda L, a, b: L.pow(a, b), 0.5),
    "neg": ([(3, 4)], lambda L, a: L.neg(a), -2.0),
    "reciprocal": ([(3, 4)], lambda L, a: L.reciprocal(a), 0.5),
    "flatten": ([(2, 3, 4)], lambda L, a: L.flatten(a), -2.0),
    "flatten_start": ([(2, 3, 4)], lambda L, a: L.flatten(a, 1), -2.0),
    "flatten_range": ([(2, 3, 4, 5)], lambda L, a: L.flatten(a, 1, 2), -2.0),
    "flatten_negative": ([(2, 3, 4, 5)], lambda L, a: L.flatten(a, -3, -2), -2.0),
    "flatten_method": ([(2, 3, 4)], lambda L, a: a.flatten(1) * a.flatten(start_dim=-2,
                                                                           end_dim=-1), -2.0),
    "std": ([(3, 4)], lambda L, a: L.std(a, dim=1), -2.0),
    "var": ([(3, 4)], lambda L, a: L.var(a, 0, keepdim=True), -2.0),
    "t": ([(3, 4)], lambda L, a: L.t(a), -2.0),
    "clone": ([(3, 4)], lambda L, a: L.clone(a) * 2, -2.0),
    "unbind": ([(3, 4)], lambda L, a: L.unbind(a, 1)[2] * 3, -2.0),
}


# minigrad's std is var ** 0.5: its node is PowBackward0, torch's StdBackward0 (a known
# difference of the method itself; values and gradients agree)
OWN_NODE_NAME = {"std"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_function_form_as_torch(case):
    shapes, call, low = CASES[case]
    helper_test_op(shapes, lambda *a: call(torch, *a), lambda *a: call(minigrad, *a), low=low,
                   check_name=case not in OWN_NODE_NAME)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_numel(name):
    for lib in (torch, minigrad):
        x = lib.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
        got = [getattr(lib, name)(x), getattr(lib, name)(x, dim=1),
               getattr(lib, name)(x, 0, keepdim=True)]
        if lib is torch:
            expected = got
        else:
            for ours, theirs in zip(got, expected, strict=True):
                assert str(ours.dtype) == "minigrad.int64"
                assert_close(ours, theirs, what=name)
            assert minigrad.numel(x) == torch.numel(torch.ones(2, 3)) == 6


@pytest.mark.parametrize("name, scalar", [("add", 2.0), ("sub", 2.0), ("mul", -1.5),
                                          ("div", 3.0), ("pow", 2.0), ("sub", 1)])
def test_a_number_first(name, scalar):
    """torch.pow(2, x), torch.sub(1, x): a Python number as the input, the tensor second
    (torch's node names: SubBackward0, DivBackward0, PowBackward2)."""
    helper_test_op([(3, 4)], lambda a: getattr(torch, name)(scalar, a),
                   lambda a: getattr(minigrad, name)(scalar, a), low=0.5)
    helper_test_op([(2, 3)], lambda a: torch.sub(scalar, a, alpha=3),
                   lambda a: minigrad.sub(scalar, a, alpha=3), low=0.5)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_a_number_first_keeps_the_tensors_dtype(dtype):
    for name in ("add", "sub", "mul"):
        ours = getattr(minigrad, name)(2, minigrad.ones(2, dtype=getattr(minigrad, dtype)))
        theirs = getattr(torch, name)(2, torch.ones(2, dtype=getattr(torch, dtype)))
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name


@pytest.mark.parametrize("call, phrase", [
    (lambda L: L.neg(3.0), "must be Tensor"), (lambda L: L.flatten([1, 2]), "must be Tensor"),
    (lambda L: L.argmax(1), "must be Tensor"), (lambda L: L.t(3), "must be Tensor"),
    (lambda L: L.pow(2, 3), "invalid combination of arguments")])
def test_no_tensor_is_torchs_type_error(call, phrase):
    with pytest.raises(TypeError, match=phrase):
        call(torch)
    with pytest.raises(TypeError, match=phrase) as ours:
        call(minigrad)
    assert "Fix: " in str(ours.value)


def test_two_numbers_add_to_a_tensor_as_torch():
    for name in ("add", "sub", "mul", "div"):
        ours, theirs = getattr(minigrad, name)(7, 2), getattr(torch, name)(7, 2)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert ours.item() == theirs.item() and tuple(ours.shape) == ()


def test_flatten_of_a_scalar_and_a_bad_range():
    for lib in (torch, minigrad):
        assert tuple(lib.tensor(3.0).flatten().shape) == (1,)
        assert tuple(lib.ones(2, 3).flatten(1, 1).shape) == (2, 3)
    with pytest.raises(RuntimeError, match="flatten\\(\\) has invalid args") as theirs:
        torch.ones(2, 3, 4).flatten(2, 1)
    with pytest.raises(RuntimeError, match="flatten\\(\\) has invalid args"):
        minigrad.ones(2, 3, 4).flatten(2, 1)
    assert "start_dim" in str(theirs.value)
    with pytest.raises(IndexError, match="Dimension out of range"):
        minigrad.ones(2, 3).flatten(0, 5)
