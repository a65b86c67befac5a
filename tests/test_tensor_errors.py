"""What minigrad refuses, it refuses as torch does (chapters 06, 12).

Each row is a snippet run twice, with ``torch`` bound to torch and then to minigrad:
both must raise the same exception type, and minigrad's message must contain torch's
key phrase (and go on to teach the fix).
"""

import re

import pytest
import torch

import minigrad

# (id, snippet, torch's key phrase)
ERRORS = [
    ("backward_non_scalar",
     "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x ** 2\ny.backward()",
     "grad can be implicitly created only for scalar outputs"),
    ("backward_no_grad",
     "x = torch.tensor(2.0)\ny = x ** 2\ny.backward()",
     "element 0 of tensors does not require grad and does not have a grad_fn"),
    ("backward_under_no_grad",
     "x = torch.tensor(2.0, requires_grad=True)\nwith torch.no_grad():\n    y = x * 2\n"
     "y.backward()",
     "element 0 of tensors does not require grad and does not have a grad_fn"),
    ("backward_twice",
     "x = torch.tensor(2.0, requires_grad=True)\ny = x ** 2\ny.backward()\ny.backward()",
     "Trying to backward through the graph a second time"),
    ("backward_twice_shared_subgraph",
     "x = torch.tensor([1.0, 2.0], requires_grad=True)\nh = x.exp()\n"
     "h.sum().backward()\n(h * 2).sum().backward()",
     "Trying to backward through the graph a second time"),
    ("saved_tensor_modified_inplace",
     "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\nw = x * 1\ny = w ** 2\n"
     "w.add_(1.0)\ny.sum().backward()",
     "one of the variables needed for gradient computation has been modified by an "
     "inplace operation"),
    ("saved_output_modified_inplace",
     "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x.exp()\ny.mul_(2)\n"
     "y.sum().backward()",
     "one of the variables needed for gradient computation has been modified by an "
     "inplace operation"),
    ("saved_input_modified_under_no_grad",
     "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\n"
     "with torch.no_grad():\n    x.add_(1.0)\ny.backward()",
     "one of the variables needed for gradient computation has been modified by an "
     "inplace operation"),
    ("inplace_on_leaf",
     "x = torch.randn(3, requires_grad=True)\ny = x ** 2\nx.add_(1.0)",
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("inplace_mul_on_leaf",
     "w = torch.ones(2, requires_grad=True)\nw.mul_(2)",
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("augmented_assignment_on_leaf",
     "w = torch.ones(2, requires_grad=True)\nw -= 0.1 * w",
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("requires_grad_on_int",
     "torch.tensor([1, 2, 3], requires_grad=True)",
     "Only Tensors of floating point and complex dtype can require gradients"),
    ("gradient_wrong_shape",
     "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x ** 2\n"
     "y.backward(torch.ones(4))",
     "Mismatch in shape"),
    ("mm_mismatch",
     "torch.mm(torch.ones(2, 3), torch.ones(2, 3))",
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("matmul_operator_mismatch",
     "torch.ones(2, 3) @ torch.ones(4, 5)",
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ("linear_mismatch",
     "torch.nn.Linear(3, 4)(torch.ones(2, 5))",
     "mat1 and mat2 shapes cannot be multiplied (2x5 and 3x4)"),
    ("broadcast_add",
     "torch.ones(3) + torch.ones(4)",
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
     "dimension 0"),
    ("broadcast_mul_2d",
     "torch.ones(2, 3) * torch.ones(2, 4)",
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
     "dimension 1"),
    ("broadcast_mse_loss",
     "torch.nn.functional.mse_loss(torch.ones(3), torch.ones(4))",
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
     "dimension 0"),
    ("broadcast_inplace",
     "torch.ones(3).add_(torch.ones(4))",
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
     "dimension 0"),
    ("inplace_cannot_grow",
     "torch.ones(3).add_(torch.ones(2, 3))",
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("sum_dim_out_of_range", "torch.ones(2, 3).sum(5)",
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    ("max_dim_out_of_range", "torch.ones(2, 3).max(dim=-3)",
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ("transpose_dim_out_of_range", "torch.ones(2, 3).transpose(0, 2)",
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("unsqueeze_dim_out_of_range", "torch.ones(2, 3).unsqueeze(3)",
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    ("squeeze_dim_out_of_range", "torch.ones(2, 1).squeeze(2)",
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("mean_of_integers", "torch.tensor([1, 2]).mean()",
     "mean(): could not infer output dtype. Input dtype must be either a floating point"),
    ("numpy_of_requires_grad",
     "torch.ones(3, requires_grad=True).numpy()",
     "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    ("item_of_many",
     "torch.ones(3).item()",
     "a Tensor with 3 elements cannot be converted to Scalar"),
    ("requires_grad_false_on_non_leaf",
     "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.requires_grad = False",
     "you can only change requires_grad flags of leaf variables."),
    ("reshape_wrong_size",
     "torch.ones(2, 3).reshape(4, 2)",
     "shape '[4, 2]' is invalid for input of size 6"),
    ("cross_entropy_target_out_of_range",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 3]))",
     "Target 3 is out of bounds."),
]


def _raise(module, snippet):
    try:
        exec(snippet, {"torch": module})
    except Exception as exc:  # noqa: BLE001 - we want whatever it raises
        return exc
    return None


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("snippet, phrase", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_matches_torch(snippet, phrase):
    theirs = _raise(torch, snippet)
    assert theirs is not None, "torch did not raise: the table is wrong"
    assert phrase in str(theirs), f"torch's message changed: {theirs}"
    ours = _raise(minigrad, snippet)
    assert ours is not None, "minigrad did not raise"
    assert type(ours) is type(theirs), f"minigrad raised {type(ours).__name__}: {ours}"
    assert phrase in str(ours)
    assert "Fix" in str(ours), "minigrad's message should teach the fix"


def test_retain_graph_allows_a_second_backward():
    x = minigrad.tensor(2.0, requires_grad=True)
    y = x ** 2
    y.backward(retain_graph=True)
    y.backward()
    assert abs(x.grad.item() - 8.0) < 1e-6


def test_inplace_on_leaf_is_fine_under_no_grad():
    x = minigrad.ones(3, requires_grad=True)
    with minigrad.no_grad():
        x.add_(1.0).mul_(2.0).sub_(1.0)
    assert x.tolist() == [3.0, 3.0, 3.0]
    assert x.is_leaf and x.requires_grad


def test_manual_sgd_update_keeps_the_same_leaf_like_torch():
    for lib in (torch, minigrad):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        before = w
        with lib.no_grad():
            w -= 0.5 * w.grad
            w *= 2
        assert w is before and w.is_leaf and w.requires_grad
        assert w.tolist() == [0.0, 0.0]


def test_inplace_on_non_leaf_records_the_op_like_torch():
    for lib in (torch, minigrad):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.add_(1.0)
        y.mul_(2.0)
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 6.0]
        assert y.grad_fn.name() == "MulBackward0"


def test_version_counter_counts_inplace_ops():
    x = minigrad.zeros(2)
    assert x._version == 0
    x.add_(1)
    x.mul_(2)
    assert x._version == 2
    assert x.detach()._version == 2


def test_matmul_by_a_number_is_a_type_error_like_torch():
    for lib in (torch, minigrad):
        with pytest.raises(TypeError):
            lib.ones(2, 3) @ 3


def test_engine_never_fails_inside_numpy_on_bad_shapes():
    for snippet in ["torch.ones(2, 3) @ torch.ones(2)", "torch.ones(3) @ torch.ones(4)",
                    "torch.ones(2, 2, 3) @ torch.ones(4, 5)"]:
        theirs, ours = _raise(torch, snippet), _raise(minigrad, snippet)
        assert type(ours) is type(theirs) is RuntimeError
        assert re.search("numpy", str(ours)) is None


@pytest.mark.parametrize("name", ["sin", "cos", "abs", "absolute", "sqrt", "sign", "clamp",
                                  "clip", "where", "permute", "exp", "floor", "square"])
@pytest.mark.parametrize("value", [True, 1.5, None])
def test_a_top_level_op_given_a_number_is_torchs_type_error(name, value):
    """``torch.sin(x != None)``: a bool, a float or None where a tensor is expected is
    torch's TypeError (minigrad raised AttributeError for sin, cos, where... before)."""
    errors = {}
    for lib in (torch, minigrad):
        with pytest.raises(Exception) as caught:  # noqa: PT011 - compared below
            getattr(lib, name)(value)
        errors[lib.__name__] = caught.value
    assert type(errors["minigrad"]) is type(errors["torch"]) is TypeError
