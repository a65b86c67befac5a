"""minigrad matches torch off the common path: views and in-place ops, NaN, inf and
zero in backward, dtype promotion, bad input, 0-d and empty tensors, graph semantics.

Each case is a snippet run twice, with ``torch`` bound to torch and then to minigrad
(``tests/edge_parity.py``): the values, dtypes and shapes it leaves in ``out`` must
agree, or both must raise the same exception type. The expected values are torch's,
computed in the same run; the ids name the class of the issue each case came from.
"""

import math
import threading

import numpy as np
import pytest
import torch

import minigrad
from tests.edge_parity import check_snippet

LEAF4 = "x = torch.tensor([1., 2., 3., 4.], dtype=torch.float64, requires_grad=True)\n"

CASES = [
    # --- in-place ops through views and detach() aliases ---
    ("view_slice_mul_writes_through",
     LEAF4 + "y = x * 2\ny[1:3].mul_(0)\ny.sum().backward()\nout = [y, x.grad]"),
    ("view_reshape_writes_through",
     LEAF4 + "y = x * 2\nv = y.view(2, 2)\nv.mul_(0)\ny.sum().backward()\nout = [y, x.grad]"),
    ("view_of_view_t_writes_through",
     LEAF4 + "y = (x * 2).view(2, 2)\nv = y.t()\nv[0].mul_(3)\n(y * y).sum().backward()\n"
     "out = [y, x.grad]"),
    ("view_add_other_requires_grad",
     LEAF4 + "w = torch.tensor([5., 6.], dtype=torch.float64, requires_grad=True)\n"
     "y = x * 1\ny[0:2].add_(w * w)\n(y * y).sum().backward()\nout = [y, x.grad, w.grad]"),
    ("view_of_constant_base_becomes_recorded",
     "b = torch.zeros(4, dtype=torch.float64)\n"
     "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "b[1:3].add_(x)\n(b * b).sum().backward()\nout = [b, b.requires_grad, b.is_leaf, x.grad]"),
    ("other_view_sees_inplace_change",
     LEAF4 + "y = x * 2\nw = y[0:2]\ny[1:3].mul_(0)\nw.sum().backward()\nout = [w, x.grad]"),
    ("base_inplace_regenerates_view",
     LEAF4 + "y = x * 2\nv = y[0:1]\ny.mul_(3)\nv.sum().backward()\nout = [v, x.grad]"),
    ("detach_alias_sees_inplace",
     "y = torch.tensor([1., 2.])\nd = y.detach()\ny.add_(1)\nout = [d]"),
    ("detach_alias_of_recorded_sees_inplace",
     LEAF4 + "y = x * 1\nd = y.detach()\ny.add_(1)\nout = [d, y]"),
    ("inplace_on_detached_changes_base",
     LEAF4 + "y = x * 1\ny.detach().mul_(2)\nout = [y]"),
    ("view_of_leaf_inplace_refused",
     LEAF4 + "x[0:2].mul_(2)"),
    ("view_of_leaf_inplace_fine_under_no_grad",
     LEAF4 + "with torch.no_grad():\n    x[0:2].mul_(2)\nout = [x, x.requires_grad, x.is_leaf]"),
    ("retain_grad_follows_inplace",
     LEAF4 + "y = x * 2\ny.retain_grad()\ny.mul_(3)\ny.sum().backward()\nout = [y.grad, x.grad]"),
    ("index_tensor_changed_in_place",
     LEAF4 + "idx = torch.tensor([0, 0])\nb = x[idx]\nidx.add_(1)\nb.sum().backward()"),
    ("saved_output_changed_through_view",
     LEAF4 + "y = x.exp()\ny[0:1].mul_(2)\ny.sum().backward()"),
    ("inplace_self_times_self",
     LEAF4 + "y = x * 1\ny.mul_(y)\ny.sum().backward()\nout = [y, x.grad]"),
    ("inplace_exp_output_saved_then_changed",
     LEAF4 + "y = x * 1\nz = y.exp()\ny.add_(1)\nz.sum().backward()\nout = [z, x.grad]"),
    ("mul_saves_only_what_backward_needs",
     LEAF4 + "c = torch.tensor([1., 2., 3., 4.], dtype=torch.float64)\ny = x * c\n"
     "c.add_(1)\ny.sum().backward()\nout = [x.grad]"),
    ("mul_saved_operand_changed_is_refused",
     LEAF4 + "c = torch.tensor([1., 2., 3., 4.], dtype=torch.float64)\ny = x * c\n"
     "x.data.add_(1) if False else None\nz = x * 1\nw = c * z\nz.add_(1)\nw.sum().backward()"),
    ("int_inplace_float_refused", "t = torch.tensor([1, 2])\nt.add_(1.5)"),
    ("int_inplace_div_refused", "t = torch.tensor([1, 2])\nt.div_(2)"),
    ("bool_inplace_int_refused", "t = torch.tensor([True])\nt.add_(2)"),
    ("float32_inplace_float64_stays_float32",
     "t = torch.ones(2)\nt.add_(torch.tensor([1.5, 2.5], dtype=torch.float64))\nout = [t]"),
    ("zero_int_tensor", "t = torch.tensor([1, 2])\nt.zero_()\nout = [t]"),
    ("fill_int_with_float", "t = torch.tensor([1, 2])\nt.fill_(1.5)\nout = [t]"),
    # --- NaN, inf and zero in backward ---
    ("relu_inactive_blocks_inf",
     "x = torch.tensor([-1., 4.], dtype=torch.float64, requires_grad=True)\n"
     "(x.relu() ** 0.5).sum().backward()\nout = [x.grad]"),
    ("relu_of_nan",
     "x = torch.tensor([float('nan'), 1.], dtype=torch.float64, requires_grad=True)\n"
     "y = x.relu()\ny.sum().backward()\nout = [y, x.grad]"),
    ("relu_blocks_nan_upstream",
     "x = torch.tensor([-1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "y = x.relu()\ny.backward(torch.tensor([float('nan'), 1.], dtype=torch.float64))\n"
     "out = [x.grad]"),
    ("max_with_nan",
     "x = torch.tensor([1., float('nan'), 3.], dtype=torch.float64, requires_grad=True)\n"
     "m = x.max()\nm.backward()\nout = [m, x.grad]"),
    ("max_ties_blocks_inf",
     "x = torch.tensor([1., 3., 3.], dtype=torch.float64, requires_grad=True)\n"
     "(x.max() - 3).pow(0.5).backward()\nout = [x.grad]"),
    ("max_dim_with_nan",
     "x = torch.tensor([[1., float('nan')], [3., 2.]], dtype=torch.float64, "
     "requires_grad=True)\nv, i = x.max(1)\nv.sum().backward()\nout = [v, i, x.grad]"),
    ("zero_to_the_x",
     "x = torch.tensor([0., 1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "y = 0.0 ** x\ny.sum().backward()\nout = [y, x.grad]"),
    ("zero_to_negative_x",
     "x = torch.tensor([-1.], dtype=torch.float64, requires_grad=True)\n"
     "y = 0.0 ** x\ny.sum().backward()\nout = [y, x.grad]"),
    ("pow_tensor_at_zero_zero",
     "a = torch.tensor([0., 0., 2.], dtype=torch.float64, requires_grad=True)\n"
     "b = torch.tensor([0., 2., 0.], dtype=torch.float64, requires_grad=True)\n"
     "(a ** b).sum().backward()\nout = [a.grad, b.grad]"),
    ("pow_scalar_zero_exponent_at_zero",
     "a = torch.tensor([0.], dtype=torch.float64, requires_grad=True)\n"
     "(a ** 0).sum().backward()\nout = [a.grad]"),
    ("sqrt_at_zero_is_inf",
     "a = torch.tensor([0.], dtype=torch.float64, requires_grad=True)\n"
     "(a ** 0.5).sum().backward()\nout = [a.grad]"),
    ("sigmoid_tanh_exp_at_inf",
     "a = torch.tensor([float('inf'), -float('inf')], dtype=torch.float64, "
     "requires_grad=True)\n(a.sigmoid() + a.tanh()).sum().backward()\nout = [a.grad]"),
    # --- dtypes ---
    ("int_sigmoid_is_float32", "out = [torch.tensor([0, 1, 2]).sigmoid()]"),
    ("int_exp_log_tanh_float32",
     "t = torch.tensor([1, 2])\nout = [t.exp(), t.log(), t.tanh()]"),
    ("int_times_python_float", "out = [torch.tensor([1, 2]) * 2.5]"),
    ("python_float_minus_int", "out = [2.5 - torch.tensor([1, 2]), 2.5 ** torch.tensor([1, 2])]"),
    ("int_over_int", "out = [torch.tensor([1, 2]) / torch.tensor([2, 4]), 2 / torch.tensor([4])]"),
    ("int_power_int_stays_int", "out = [torch.tensor([1, 2]) ** 2, 2 ** torch.tensor([1, 2])]"),
    ("int_times_float32", "out = [torch.tensor([1, 2]) * torch.tensor([0.5, 0.25])]"),
    ("float32_with_0d_float64",
     "out = [torch.ones(2) + torch.tensor(1.5, dtype=torch.float64)]"),
    ("float32_with_numpy_float64", "out = [torch.ones(2) * np.float64(1.5), "
     "np.float64(2.0) * torch.ones(2)]"),
    ("int_with_0d_float64",
     "out = [torch.tensor([1, 2]) + torch.tensor(1.5, dtype=torch.float64)]"),
    ("float32_with_0d_int", "out = [torch.ones(2) + torch.tensor(3)]"),
    ("0d_float32_with_0d_float64",
     "out = [torch.tensor(1.) + torch.tensor(1., dtype=torch.float64)]"),
    ("bool_arithmetic",
     "b = torch.tensor([True, False])\nout = [b + b, b * 2.5, b / b, b.sum(), b * 3]"),
    ("float32_grad_from_float64_0d",
     "x = torch.ones(2, requires_grad=True)\n"
     "s = torch.tensor(2., dtype=torch.float64, requires_grad=True)\n"
     "y = x * s\ny.sum().backward()\nout = [y, x.grad, s.grad]"),
    ("mm_mixed_dtypes_refused",
     "torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))"),
    ("matmul_mixed_dtypes_refused", "torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)"),
    ("linear_mixed_dtypes_refused",
     "torch.nn.functional.linear(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))"),
    ("tensor_of_numpy_float64s", "out = [torch.tensor([np.float64(1), 2.0])]"),
    ("tensor_of_numpy_float32s", "out = [torch.tensor([np.float32(1), 2.0])]"),
    ("long_leaves_the_graph",
     "x = torch.tensor([1.5, 2.5], requires_grad=True)\ny = x.long()\n"
     "out = [y, y.requires_grad, y.grad_fn is None]"),
    ("int_negative_power_refused", "torch.tensor([1, 2]) ** -1"),
    ("bool_relu_refused", "torch.tensor([True]).relu()"),
    # --- validation ---
    ("cross_entropy_batch_mismatch",
     "torch.nn.functional.cross_entropy(torch.zeros(3, 4), torch.tensor([1]))"),
    ("grad_setter_wrong_shape",
     "w = torch.ones(2, requires_grad=True)\nw.grad = torch.ones(3)"),
    ("grad_setter_wrong_dtype",
     "w = torch.ones(2, requires_grad=True)\nw.grad = torch.ones(2, dtype=torch.float64)"),
    ("grad_setter_numpy", "w = torch.ones(2, requires_grad=True)\nw.grad = np.ones(2)"),
    ("grad_setter_none_ok",
     "w = torch.ones(2, requires_grad=True)\nw.grad = torch.ones(2)\nw.grad = None\n"
     "out = [w.grad]"),
    ("add_none", "torch.ones(2) + None"),
    ("add_list", "torch.ones(2) + [1, 2]"),
    ("add_string", "torch.ones(2) * 'a'"),
    ("add_numpy_array", "out = [torch.ones(2) + np.ones(2)]"),
    ("backward_with_list",
     "x = torch.ones(3, requires_grad=True)\n(x * 2).backward([1., 1., 1.])"),
    ("backward_with_numpy",
     "x = torch.ones(3, requires_grad=True)\n(x * 2).backward(np.ones(3))"),
    ("sgd_of_a_tensor",
     "w = torch.ones(2, requires_grad=True)\ntorch.optim.SGD(w, lr=0.1)"),
    ("sgd_of_a_non_leaf",
     "w = torch.ones(2, requires_grad=True)\ntorch.optim.SGD([w * 2], lr=0.1)"),
    ("tensor_of_sizes", "out = [torch.Tensor(2, 3).shape[0], torch.Tensor(2, 3).shape[1], "
     "torch.Tensor(2, 3).dtype]"),
    ("sum_of_empty_dims", "t = torch.ones(2, 3)\nout = [t.sum(()), t.sum([]), t.mean(())]"),
    ("requires_grad_false_after_graph",
     "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\nx.requires_grad_(False)\n"
     "y.sum().backward()\nout = [x.grad]"),
    ("backward_inputs_empty",
     "x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward(inputs=[])"),
    # --- 0-d and empty tensors ---
    ("max_dim_of_0d", "v, i = torch.tensor(3.).max(0)\nout = [v, i]"),
    ("max_dim_of_0d_keepdim", "v, i = torch.tensor(3.).max(-1, keepdim=True)\nout = [v, i]"),
    ("max_dim_of_0d_grad",
     "x = torch.tensor(3., dtype=torch.float64, requires_grad=True)\nv, i = x.max(0)\n"
     "(v * 2).backward()\nout = [x.grad]"),
    ("t_of_0d_and_1d", "out = [torch.tensor(3.).t(), torch.ones(3).t()]"),
    ("iterate_0d", "list(torch.tensor(3.))"),
    ("iterate_1d", "out = list(torch.tensor([1., 2.]))"),
    ("index_with_empty_list", "out = [torch.ones(3)[[]], torch.ones(3, 2)[[]]]"),
    ("empty_sum_and_mean",
     "e = torch.ones(0, 3, dtype=torch.float64, requires_grad=True)\ns = e.sum()\n"
     "s.backward()\nout = [s, e.sum(0), e.grad]"),
    ("max_of_empty_refused", "torch.ones(0).max()"),
    ("max_over_empty_dim_refused", "torch.ones(0, 3).max(0)"),
    # --- graph semantics ---
    ("autograd_backward_two_roots_shared_graph",
     "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\nh = x * 2\n"
     "torch.autograd.backward([h.sum(), (h * h).sum()])\nout = [x.grad]"),
    ("backward_inputs_non_leaf",
     "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\nh = x * 2\n"
     "(h * h).sum().backward(inputs=[h])\nout = [h.grad, x.grad]"),
    ("backward_inputs_excludes_leaf_root",
     "x = torch.tensor(1., requires_grad=True)\nw = torch.tensor(1., requires_grad=True)\n"
     "x.backward(inputs=[w])\nout = [x.grad, w.grad]"),
    ("backward_inputs_subset",
     "x = torch.tensor([1., 2.], requires_grad=True)\n"
     "w = torch.tensor([3., 4.], requires_grad=True)\n(x * w).sum().backward(inputs=[w])\n"
     "out = [x.grad, w.grad]"),
    ("enable_grad_inside_inference_mode",
     "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n"
     "    with torch.enable_grad():\n        y = x * 2\n        g = torch.is_grad_enabled()\n"
     "out = [y.requires_grad, g]"),
    ("no_grad_inside_enable_grad_inside_no_grad",
     "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n"
     "    with torch.enable_grad():\n        y = x * 2\nout = [y.requires_grad]"),
    ("no_grad_decorates_a_generator",
     "x = torch.ones(2, requires_grad=True)\n@torch.no_grad()\ndef gen():\n"
     "    for i in range(2):\n        yield x * i\nout = [y.requires_grad for y in gen()] + "
     "[torch.is_grad_enabled()]"),
    ("custom_function_too_few_gradients",
     "class MatMul(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a, b):\n"
     "        return a @ b\n    @staticmethod\n    def backward(ctx, g):\n        return g\n"
     "a = torch.ones(2, 4, requires_grad=True)\nb = torch.ones(4, 3, requires_grad=True)\n"
     "MatMul.apply(a, b).sum().backward()"),
    ("custom_function_extra_none_gradients_ok",
     "class Twice(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n"
     "        return a * 2\n    @staticmethod\n    def backward(ctx, g):\n"
     "        return g * 2, None\n"
     "a = torch.ones(2, requires_grad=True)\nTwice.apply(a).sum().backward()\nout = [a.grad]"),
    ("custom_function_extra_gradients_refused",
     "class Twice(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n"
     "        return a * 2\n    @staticmethod\n    def backward(ctx, g):\n"
     "        return g * 2, g\n"
     "a = torch.ones(2, requires_grad=True)\nTwice.apply(a).sum().backward()"),
    ("custom_function_wrong_shape",
     "class MatMul(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a, b):\n"
     "        return a @ b\n    @staticmethod\n    def backward(ctx, g):\n"
     "        return g.T @ a, g\n"
     "a = torch.ones(2, 4, requires_grad=True)\nb = torch.ones(4, 3, requires_grad=True)\n"
     "MatMul.apply(a, b).sum().backward()"),
    # --- found by the differential fuzzer (tests/test_fuzz.py) ---
    ("fuzz_view_made_under_no_grad_changed_with_grad_on",
     LEAF4 + "with torch.no_grad():\n    v = x.reshape(-1)\nv.add_(x)"),
    ("fuzz_select_of_a_vector_is_a_view",
     "x = torch.tensor([0.0, 5.0])\nwith torch.no_grad():\n    x[0].add_(1)\nout = [x]"),
    ("fuzz_bool_dtype_name", "out = [torch.tensor([True]).dtype == torch.bool]"),
    ("fuzz_bool_minus_bool", "b = torch.tensor(True)\nb - b"),
    ("fuzz_number_minus_bool", "1 - torch.tensor([True])"),
    ("fuzz_negate_bool", "-torch.tensor([True])"),
    ("fuzz_bool_pow_bool", "b = torch.tensor([True])\nb ** b"),
    ("fuzz_bool_matmul", "b = torch.tensor([True, False])\nb @ b"),
    ("fuzz_bool_matmul_bad_shapes_first",
     "b = torch.ones(2, 1, 3, dtype=torch.bool)\nb @ b"),
    ("fuzz_int_to_negative_int_tensor",
     "a = torch.tensor([0, 1, -1, 2, -1, 3])\ne = torch.tensor([-1, -1, -1, -1, -2, 2])\n"
     "out = [a ** e]"),
    ("fuzz_reciprocal_of_int", "out = [torch.tensor([1, 2]).reciprocal()]"),
    ("fuzz_pow_bool_exponent_backward",
     "x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)\n"
     "(x ** torch.tensor(True)).backward()"),
    ("fuzz_view_of_non_contiguous_refused", "torch.ones(2, 3).t().view(-1)"),
    ("fuzz_reshape_of_non_contiguous_copies",
     "x = torch.tensor([[1., 2.], [3., 4.]])\nout = [x.t().reshape(-1)]"),
    ("fuzz_transpose_of_0d", "out = [torch.tensor(3).transpose(0, -1)]"),
    ("fuzz_max_output_changed_in_place",
     "x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)\nm = torch.max(x * x)\n"
     "with torch.no_grad():\n    m.add_(x)\nm.backward()"),
    ("fuzz_empty_view_made_under_no_grad_changed_with_grad_on",
     "x = torch.zeros(0, dtype=torch.float64, requires_grad=True)\nwith torch.no_grad():\n"
     "    v = x.reshape(-1)\nv.add_(x)"),
    ("fuzz_no_grad_view_of_leaf_changed_by_a_number",
     LEAF4 + "with torch.no_grad():\n    v = x[0:2]\nv.sub_(1.5)"),
    ("fuzz_relu_of_nan_passes_the_gradient",
     "x = torch.tensor([float('nan'), -1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "(x.relu() * 3).sum().backward()\nout = [x.grad]"),
    ("fuzz_flatten_of_a_vector_is_itself",
     "x = torch.tensor([1., 2.], requires_grad=True)\nwith torch.no_grad():\n"
     "    v = x.flatten()\nout = [v.requires_grad, v is x]"),
    ("fuzz_converted_operand_changed_in_place",
     "c = torch.tensor(2.0)\nx = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)\n"
     "y = c * x\nwith torch.no_grad():\n    c.add_(1)\ny.backward()"),
    ("fuzz_view_of_a_no_grad_view_changed_with_grad_on",
     "b = torch.zeros(2, dtype=torch.float64)\n"
     "x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)\n"
     "with torch.no_grad():\n    v = b.reshape(-1)\nv.view(-1)[0:1].add_(x)"),
    ("fuzz_bool_batched_matmul_float",
     "torch.ones(3, 1, dtype=torch.bool) @ torch.ones(2, 1, 3, dtype=torch.float64)"),
    ("fuzz_bool_matmul_float", "torch.ones(3, 3, dtype=torch.bool) @ torch.ones(3, 3)"),
    ("fuzz_exponent_of_number_power_changed_in_place",
     LEAF4 + "y = x * 1\nz = 2.0 ** y\ny.add_(1)\nz.sum().backward()"),
    ("fuzz_zero_of_inf_recorded",
     LEAF4 + "y = (x - 1).log()\ny.zero_()\n(y + x).sum().backward()\n"
     "out = [y, x.grad, y.grad_fn.name()]"),
    ("fuzz_sqrt_at_negative_zero",
     "x = torch.tensor([-0.0, 0.0, 4.0], dtype=torch.float64, requires_grad=True)\n"
     "(x ** 0.5).sum().backward()\nout = [x.grad]"),
    ("fuzz_max_indices_of_a_vector_changed_in_place",
     "i = torch.tensor([0.0, 2.0]).max(-1)[1]\ni.add_(i)\nout = [i]"),
    ("fuzz_nan_upstream_through_zero_to_the_x",
     "x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)\n"
     "y = torch.tensor(-1.0, dtype=torch.float64) ** (0.0 ** x)\ny.backward()\n"
     "out = [y, x.grad]"),
    ("fuzz_nan_upstream_through_pow_exponent_at_zero",
     "a = torch.tensor(0.0, dtype=torch.float64)\n"
     "b = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)\n"
     "y = (a ** b).log()\ny.backward()\nout = [y, b.grad]"),
    ("fuzz_bool_pow_bad_shapes_first",
     "torch.ones(3, 1, dtype=torch.bool) ** torch.ones(2, 3, dtype=torch.bool)"),
    # --- elsewhere ---
    ("linear_1d_input_frozen_weight",
     "lin = torch.nn.Linear(3, 2)\nlin.weight.requires_grad_(False)\n"
     "lin(torch.tensor([1., 2., 3.])).sum().backward()\nout = [lin.bias.grad]"),
    ("linear_1d_input_all_grads",
     "lin = torch.nn.Linear(3, 2)\nwith torch.no_grad():\n    lin.weight.fill_(0.5)\n"
     "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
     "lin(x).sum().backward()\nout = [lin.bias.grad, x.grad, lin.weight.grad]"),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("snippet", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_edge_matches_torch(snippet):
    theirs, ours = check_snippet(snippet)
    if theirs is not None:
        assert "Fix" in str(ours) or type(ours) is TypeError and "unsupported operand" in str(
            ours), f"minigrad's message should teach the fix: {ours}"


# --- torch's key phrases for the errors the issue names ---------------------------
PHRASES = {
    "view_of_leaf_inplace_refused": "a view of a leaf Variable that requires grad is being "
                                    "used in an in-place operation",
    "index_tensor_changed_in_place": "modified by an inplace operation",
    "mm_mixed_dtypes_refused": "expected m1 and m2 to have the same dtype, but got: float != "
                               "double",
    "cross_entropy_batch_mismatch": "Expected input batch_size (3) to match target "
                                    "batch_size (1)",
    "grad_setter_wrong_shape": "attempting to assign a gradient of size '[3]' to a tensor of "
                               "size '[2]'",
    "grad_setter_numpy": "assigned grad expected to be a Tensor or None but got grad of type "
                         "numpy.ndarray",
    "add_none": "unsupported operand type(s) for +: 'Tensor' and 'NoneType'",
    "backward_with_list": "gradients can be either Tensors or None, but got float",
    "sgd_of_a_tensor": "params argument given to the optimizer should be an iterable of "
                       "Tensors or dicts",
    "sgd_of_a_non_leaf": "can't optimize a non-leaf Tensor",
    "custom_function_too_few_gradients": "returned an incorrect number of gradients "
                                         "(expected 2, got 1)",
    "custom_function_wrong_shape": "returned an invalid gradient at index 0 - got [3, 4] but "
                                   "expected shape compatible with [2, 4]",
    "int_inplace_float_refused": "result type Float can't be cast to the desired output type "
                                 "Long",
    "iterate_0d": "iteration over a 0-d tensor",
}


@pytest.mark.parametrize("case", sorted(PHRASES))
def test_error_keeps_torchs_phrase(case):
    snippet = dict(CASES)[case]
    theirs, ours = check_snippet(snippet)
    assert PHRASES[case] in str(theirs), f"torch's message changed: {theirs}"
    assert PHRASES[case] in str(ours), f"minigrad: {ours}"
    assert "Fix:" in str(ours)


def test_broadcast_error_names_the_real_shapes():
    with pytest.raises(RuntimeError) as error:
        minigrad.ones(3) + minigrad.ones(3, 4)
    assert "[3] and [3, 4]" in str(error.value)


def test_grad_mode_belongs_to_the_thread():
    seen = {}

    def other():
        seen["minigrad"] = minigrad.is_grad_enabled()

    with minigrad.no_grad():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    with torch.no_grad():
        t_seen = []
        thread = threading.Thread(target=lambda: t_seen.append(torch.is_grad_enabled()))
        thread.start()
        thread.join()
    assert seen["minigrad"] is t_seen[0] is True


def test_value_relu_at_nan_and_behind_inf():
    x = minigrad.Value(-1.0)
    (x.relu() ** 0.5).backward()
    xt = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
    (xt.relu() ** 0.5).backward()
    assert x.grad == pytest.approx(xt.grad.item(), abs=0)  # both exactly 0
    assert math.isnan(minigrad.Value(math.nan).relu().data)
    assert math.isnan(torch.relu(torch.tensor(math.nan)).item())


def test_gradcheck_on_a_non_contiguous_input():
    base = np.arange(1.0, 7.0).reshape(2, 3)
    x = minigrad.tensor(base, dtype=minigrad.float64).t().detach().requires_grad_()
    xt = torch.tensor(base, dtype=torch.float64).t().detach().requires_grad_()
    assert not x.detach().numpy().flags["C_CONTIGUOUS"]
    from minigrad.autograd.gradcheck import numerical_jacobian

    jac = numerical_jacobian(lambda a: a * a, (x,), 0, 1e-6)
    torch_jac = torch.autograd.functional.jacobian(lambda a: a * a, xt).reshape(6, 6)
    np.testing.assert_allclose(jac, torch_jac.numpy(), atol=1e-6)
    assert minigrad.gradcheck(lambda a: (a * a).sum(0), (x,))


def test_gradcheck_names_the_output_that_disagrees():
    class Bad(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
    with pytest.raises(minigrad.autograd.GradcheckError, match="for output 1 with respect"):
        minigrad.gradcheck(lambda a: (a * 1, Bad.apply(a)), (x,))
