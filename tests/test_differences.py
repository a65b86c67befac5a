"""What minigrad deliberately does not do, and that it says so clearly (README, "Where
minigrad differs from torch"). One test per row of that table: where minigrad refuses,
it raises an exception a reader can act on (with a "Fix:" line); where it behaves
differently without refusing, the test pins the difference so it cannot drift."""

import math

import numpy as np
import pytest
import torch

import minigrad


def test_second_derivatives_name_the_leaf_gradient_node_differently():
    x = minigrad.tensor(2.0, dtype=minigrad.float64, requires_grad=True)
    xt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="reference cycle"):
        (x ** 3).backward(create_graph=True)
        (xt ** 3).backward(create_graph=True)
    assert x.grad.item() == xt.grad.item() == 12.0
    assert xt.grad.grad_fn.name().endswith("CopyBackwards")
    assert x.grad.grad_fn.name() == "MulBackward0"


def test_recorded_item_assignment_refuses_a_repeated_index():
    x = minigrad.ones(3, requires_grad=True)
    t = x * 2
    t[0] = 1.0
    assert t.grad_fn.name() == "CopySlices"
    xt = torch.ones(3, requires_grad=True)
    tt = xt * 2
    tt[0] = 1.0  # torch records it
    assert tt.grad_fn.name().endswith("CopySlices")
    with pytest.raises(TypeError, match="index repeats an element.*Fix:"):
        t[[1, 1]] = x[:2]
    tt[[1, 1]] = xt[:2]  # torch keeps one of the two


def test_cpu_only():
    with pytest.raises(RuntimeError, match="CPU only. Fix:"):
        minigrad.ones(2).cuda()
    with pytest.raises(RuntimeError, match="CPU only. Fix:"):
        minigrad.ones(2).to("cuda")
    assert minigrad.ones(2).to("cpu").device == minigrad.device("cpu")  # as torch: not "cpu"


def test_five_dtypes_only():
    for name in ("float32", "float64", "int64", "int32", "bool"):
        assert getattr(minigrad, name).name == name
    with pytest.raises(AttributeError):
        minigrad.float16  # noqa: B018
    with pytest.raises(TypeError, match="unknown dtype"):
        minigrad.ones(2).to("complex64")


def test_cross_entropy_takes_class_indices_only():
    with pytest.raises(RuntimeError, match="class probabilities are not supported"):
        minigrad.nn.functional.cross_entropy(minigrad.zeros(2, 3), minigrad.zeros(2, 3))


def test_cross_entropy_takes_a_numpy_array_of_class_indices():
    labels = np.array([0, 2])
    with pytest.raises(TypeError, match="must be Tensor, not numpy.ndarray"):
        torch.nn.functional.cross_entropy(torch.zeros(2, 3), labels)
    loss = minigrad.nn.functional.cross_entropy(minigrad.zeros(2, 3), labels)
    assert loss.item() == pytest.approx(math.log(3))
    with pytest.raises(TypeError, match="argument 'target' .* must be Tensor, not list.*Fix:"):
        minigrad.nn.functional.cross_entropy(minigrad.zeros(2, 3), [0, 2])


def test_value_refuses_where_torch_returns_inf_or_nan():
    with pytest.raises(ValueError, match="torch would return"):
        minigrad.Value(-1.0).log()
    with pytest.raises(ZeroDivisionError, match="torch would return"):
        minigrad.Value(1.0) / 0
    with pytest.raises(ZeroDivisionError, match="torch would return inf"):
        minigrad.Value(0.0) ** -1
    assert math.isinf(torch.tensor(0.0).pow(-1).item())


def test_tensor_of_sizes_is_zeros_and_takes_requires_grad():
    t = minigrad.Tensor(2, 3)
    assert tuple(t.shape) == (2, 3) and not t.numpy().any()  # torch: uninitialized
    assert minigrad.Tensor([1.0], requires_grad=True).requires_grad  # torch: TypeError


def test_custom_function_next_functions_keep_a_none_for_a_number_argument():
    def make(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * 2, None

        return Scale

    x = minigrad.ones(2, requires_grad=True)
    xt = torch.ones(2, requires_grad=True)
    y, yt = make(minigrad).apply(x, 2.0), make(torch).apply(xt, 2.0)
    assert y.grad_fn.name() == yt.grad_fn.name() == "ScaleBackward"
    assert len(yt.grad_fn.next_functions) == 1  # torch: tensor arguments only
    assert y.grad_fn.next_functions == (x._accumulator, None)
    assert y.grad_fn.needs_input_grad == (True, False) == tuple(
        yt.grad_fn.needs_input_grad)


def test_view_grad_fn_after_inplace_keeps_the_view_op_name():
    x = minigrad.ones(4, requires_grad=True)
    y = x * 2
    v = y[1:3]
    v.mul_(0)
    assert y.grad_fn.name() == "CopySlices"
    assert v.grad_fn.name() == "SliceBackward0"  # torch: AsStridedBackward0


def test_mixed_dtype_operand_that_requires_grad_goes_through_tocopy():
    x = minigrad.ones(2, requires_grad=True)
    s = minigrad.tensor(2.0, dtype=minigrad.float64, requires_grad=True)
    y = x * s
    assert y.grad_fn.name() == "MulBackward0"
    assert y.grad_fn.next_functions[1].name() == "ToCopyBackward0"  # torch: AccumulateGrad


def test_fused_loss_is_one_node():
    logits = minigrad.zeros(2, 3, requires_grad=True)
    loss = minigrad.nn.functional.cross_entropy(logits, minigrad.tensor([0, 1]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert type(loss.grad_fn.next_functions[0]).__name__ == "AccumulateGrad"


def test_no_grad_view_of_a_changed_base_is_not_refused_later():
    for lib in (torch, minigrad):
        x = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            v = x.reshape(-1)
        with lib.no_grad():
            x.add_(x)
        if lib is torch:
            with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
                v.sum().backward()  # torch: the view's grad_fn is <Invalid>
        else:
            assert not v.requires_grad and v.grad_fn is None
            assert v.tolist() == [2.0]


def test_dtype_names_and_numpy_dtypes_are_accepted():
    with pytest.raises(TypeError, match="argument 'dtype' must be torch.dtype, not str"):
        torch.zeros(2, dtype="float64")
    with pytest.raises(RuntimeError, match="Invalid device string: 'float64'"):
        torch.ones(2).to("float64")
    for spec in ("float64", np.float64, np.dtype("float64")):
        assert minigrad.zeros(2, dtype=spec).dtype is minigrad.float64
        assert minigrad.ones(2).to(spec).dtype is minigrad.float64
