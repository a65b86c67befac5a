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
SPECIAL = ("x = torch.tensor([-0.0, 0.0, -float('inf'), float('inf'), 4.0], "
           "dtype=torch.float64, requires_grad=True)\n")

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
    ("relu_keeps_negative_zero",
     "x = torch.tensor([3.0, -0.0, -1.0, 0.0], requires_grad=True)\ny = x.relu()\nz = y ** -1\n"
     "z.sum().backward()\nout = [y, z, x.grad]"),
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
    # --- silent divergences: -0.0 and -inf in powers, grad modes, None ---
    ("pow_minus_half_at_signed_zero_and_inf",
     SPECIAL + "y = x ** -0.5\ny.sum().backward()\nout = [y, x.grad]"),
    ("pow_minus_half_method_float32",
     "x = torch.tensor([-0.0, 0.0, -float('inf'), float('inf'), 4.0], requires_grad=True)\n"
     "y = x.pow(-0.5)\ny.sum().backward()\nout = [y, x.grad]"),
    ("pow_minus_three_halves_at_signed_zero_and_inf",
     SPECIAL + "y = x ** -1.5\ny.sum().backward()\nout = [y, x.grad]"),
    ("pow_half_at_signed_zero_and_inf",
     SPECIAL + "y = x ** 0.5\ny.sum().backward()\nout = [y, x.grad]"),
    ("pow_minus_one_and_two_at_signed_zero_and_inf",
     SPECIAL + "y = x ** -1\nz = x ** -2\n(y + z).sum().backward()\nout = [y, z, x.grad]"),
    ("pow_minus_half_tensor_exponent",
     SPECIAL + "y = x ** torch.tensor(-0.5, dtype=torch.float64)\ny.sum().backward()\n"
     "out = [y, x.grad]"),
    ("inference_mode_false_inside_no_grad_records",
     "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n"
     "    with torch.inference_mode(False):\n        y = x * 2\n"
     "        g = torch.is_grad_enabled()\n    h = torch.is_grad_enabled()\n"
     "out = [y.requires_grad, g, h, torch.is_grad_enabled()]"),
    ("inference_mode_false_inside_inference_mode",
     "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n"
     "    with torch.inference_mode(False):\n        y = x * 2\n"
     "        g = torch.is_grad_enabled()\n        t = torch.ones(2)\n    z = x * 2\n"
     "out = [y.requires_grad, g, t.is_inference(), y.is_inference(), z.requires_grad]"),
    ("inference_mode_false_decorator_under_no_grad",
     "x = torch.ones(2, requires_grad=True)\n@torch.inference_mode(False)\ndef f():\n"
     "    return x * 2\nwith torch.no_grad():\n    y = f()\nout = [y.requires_grad]"),
    ("inference_mode_false_is_not_inference_mode",
     "with torch.inference_mode():\n    with torch.inference_mode(False):\n"
     "        a = torch.is_inference_mode_enabled()\n    b = torch.is_inference_mode_enabled()\n"
     "out = [a, b, torch.is_inference_mode_enabled()]"),
    ("inference_mode_nested_three_deep",
     "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n"
     "    with torch.inference_mode(False):\n        with torch.inference_mode():\n"
     "            y = x * 2\n        z = x * 2\n"
     "out = [y.requires_grad, z.requires_grad, y.is_inference(), z.is_inference()]"),
    ("contains_number_or_tensor",
     "t = torch.tensor([1., 2.])\nout = [1 in t, 3 in t, torch.tensor(2.) in t]"),
    ("contains_none_refused", "None in torch.tensor([1., 2.])"),
    ("contains_string_refused", "'a' in torch.tensor([1., 2.])"),
    ("equals_none", "t = torch.tensor([1., 2.])\nout = [t == None, t != None, None == t, "
     "None != t]"),
    ("equals_other_objects", "t = torch.tensor([1., 2.])\nout = [t == 'a', t != 'a', "
     "t == [1., 3.], t == (1., 3.), t != (1., 2.)]"),
    ("equals_numpy_is_elementwise", "out = [torch.tensor([1., 2.]) == np.array([1., 3.])]"),
    ("less_than_none_refused", "torch.tensor([1., 2.]) < None"),
    ("greater_than_string_refused", "torch.tensor([1., 2.]) > 'a'"),
    # --- values torch refuses ---
    ("view_two_inferred_sizes", "torch.ones(6).view(-1, -1)"),
    ("reshape_two_inferred_sizes", "torch.ones(7).reshape(-1, -1, 2)"),
    ("top_level_reshape_two_inferred_sizes", "torch.reshape(torch.ones(6), (-1, -1))"),
    ("view_size_not_matching", "torch.ones(6).view(4, 2)"),
    ("reshape_negative_size", "torch.ones(6).reshape(2, -3)"),
    ("view_negative_size_after_inferred", "torch.ones(6).view(-1, -2)"),
    ("view_inferred_size_of_empty_ambiguous", "torch.ones(0).view(-1, 0)"),
    ("view_inferred_size_of_empty_fine", "out = [torch.ones(0, 3).view(-1, 3)]"),
    ("view_float_size", "torch.ones(6).view(2.0, 3)"),
    ("reshape_float_size_in_tuple", "torch.ones(6).reshape((2.0, 3))"),
    ("reshape_string_size", "torch.ones(6).reshape('a')"),
    ("view_numpy_and_tensor_int_sizes",
     "out = [torch.ones(6).view(np.int64(2), 3), torch.ones(6).view(torch.tensor(2), 3)]"),
    ("reshape_without_sizes", "torch.ones(6).reshape()"),
    ("view_without_sizes", "torch.ones(6).view()"),
    ("view_and_reshape_of_sizes_given_otherwise",
     "out = [torch.ones(1).view(()), torch.ones(6).view([2, 3]), "
     "torch.ones(6).reshape(torch.ones(2, 3).shape), torch.tensor(1.).flatten()]"),
    ("slice_step_zero", "torch.ones(6)[::0]"),
    ("slice_negative_step", "torch.ones(6)[::-1]"),
    ("slice_negative_step_second_dim", "torch.ones(2, 3)[:, 4:0:-2]"),
    ("slice_negative_numpy_step_with_a_list", "torch.ones(2, 3)[[0, 1], ::np.int64(-1)]"),
    ("slice_negative_step_of_empty", "torch.ones(0)[::-1]"),
    ("slice_steps_fine", "t = torch.arange(5)\nout = [t[::10], t[::np.int64(2)], "
     "t[::torch.tensor(2)], t[1::None], t[-10:2]]"),
    ("float_only_ops_on_int_and_bool",
     "i = torch.tensor([1, 2])\nb = torch.tensor([True, False])\n"
     "out = [i.exp(), i.log(), i.tanh(), i.sigmoid(), i.reciprocal(), b.exp(), b.tanh(), "
     "b.reciprocal(), i.relu(), i.sum(), b.sum(), i.max()]"),
    ("mean_of_int_refused", "torch.tensor([1, 2]).mean()"),
    ("mean_dim_of_int_refused", "torch.tensor([[1, 2]]).mean(0)"),
    ("mean_of_bool_refused", "torch.tensor([True]).mean()"),
    ("mse_loss_of_ints_refused",
     "torch.nn.functional.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3]))"),
    ("mse_loss_of_bool_and_int_refused",
     "torch.nn.functional.mse_loss(torch.tensor([True]), torch.tensor([1]))"),
    ("mse_loss_of_int_and_float_promotes",
     "out = [torch.nn.functional.mse_loss(torch.tensor([1, 2]), torch.tensor([1., 3.], "
     "dtype=torch.float64)), torch.nn.functional.mse_loss(torch.tensor([1., 2.]), "
     "torch.tensor([1, 3]))]"),
    ("cross_entropy_int_logits_refused",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3, dtype=torch.int64), "
     "torch.tensor([0, 1]))"),
    ("cross_entropy_int_logits_float_target_refused",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3, dtype=torch.int64), "
     "torch.tensor([0., 1.]))"),
    ("cross_entropy_float_target_indices_refused",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0., 1.]))"),
    ("cross_entropy_bool_target_refused",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([True, False]))"),
    ("cross_entropy_bool_target_wrong_batch",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([True, False, True]))"),
    ("cross_entropy_float_target_wrong_shape",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.zeros(2, 4))"),
    ("cross_entropy_float_target_wrong_batch",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.zeros(3, 4))"),
    ("cross_entropy_float_target_0d",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor(1.))"),
    ("cross_entropy_target_3d_refused",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.zeros(2, 3, 1, "
     "dtype=torch.int64))"),
    ("cross_entropy_int_probabilities_refused",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.zeros(2, 3, "
     "dtype=torch.int64))"),
    ("requires_grad_int_refused", "torch.tensor([1.], requires_grad=1)"),
    ("requires_grad_none_refused", "torch.tensor([1.], requires_grad=None)"),
    ("requires_grad_numpy_bool_refused", "torch.tensor([1.], requires_grad=np.True_)"),
    ("zeros_requires_grad_int_refused", "torch.zeros(2, requires_grad=0)"),
    ("ones_requires_grad_string_refused", "torch.ones(2, requires_grad='yes')"),
    ("requires_grad_setter_int_refused", "x = torch.ones(2)\nx.requires_grad = 1"),
    ("requires_grad_setter_numpy_bool_refused", "x = torch.ones(2)\nx.requires_grad = np.True_"),
    ("requires_grad_method_int_refused", "x = torch.ones(2)\nx.requires_grad_(1)"),
    ("requires_grad_method_none_refused", "x = torch.ones(2)\nx.requires_grad_(None)"),
    ("requires_grad_int_on_non_leaf_refused",
     "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.requires_grad = 1"),
    ("requires_grad_true_on_non_leaf_refused",
     "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.requires_grad = True"),
    ("requires_grad_false_on_non_leaf_refused",
     "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.requires_grad = False"),
    ("requires_grad_method_false_on_non_leaf_refused",
     "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.requires_grad_(False)"),
    ("requires_grad_method_true_on_non_leaf_fine",
     "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.requires_grad_(True)\n"
     "out = [y.requires_grad, y.is_leaf]"),
    # --- torch's exception types and phrases ---
    ("index_out_of_range", "torch.ones(3)[5]"),
    ("index_negative_out_of_range", "torch.ones(2, 3)[-3]"),
    ("index_out_of_range_second_dim", "torch.ones(2, 3)[:, 3]"),
    ("index_list_out_of_range", "torch.ones(3)[[0, 5]]"),
    ("index_tensor_out_of_range", "torch.ones(3)[torch.tensor([-4])]"),
    ("index_too_many", "torch.ones(3)[0, 0]"),
    ("index_too_many_with_ellipsis", "torch.ones(2)[..., 0, 0]"),
    ("index_of_0d", "torch.tensor(1.)[0]"),
    ("index_float", "torch.ones(3)[1.0]"),
    ("index_mask_wrong_shape", "torch.ones(3)[torch.tensor([True, False])]"),
    ("tensor_ragged", "torch.tensor([[1, 2], [3]])"),
    ("tensor_ragged_longer", "torch.tensor([[1], [3, 4]])"),
    ("tensor_ragged_deeper", "torch.tensor([[[1, 2]], [[3]]])"),
    ("tensor_list_where_number", "torch.tensor([1.0, [2.0]])"),
    ("tensor_number_where_list", "torch.tensor([[1, 2], 3])"),
    ("tensor_ragged_with_dtype", "torch.tensor([[1, 2], [3]], dtype=torch.float64)"),
    ("tensor_of_none", "torch.tensor(None)"),
    ("tensor_with_none", "torch.tensor([1, None])"),
    ("tensor_with_nested_none", "torch.tensor([[1., None]])"),
    ("tensor_of_string", "torch.tensor('a')"),
    ("zeros_negative_size", "torch.zeros(-1)"),
    ("zeros_negative_size_in_tuple", "torch.zeros((2, -1))"),
    ("ones_negative_size", "torch.ones(2, -3)"),
    ("randn_negative_size", "torch.randn(-1)"),
    ("rand_negative_size", "torch.rand(-2)"),
    ("zeros_float_size", "torch.zeros(2.0)"),
    ("arange_zero_step", "torch.arange(0, 5, 0)"),
    ("arange_zero_float_step", "torch.arange(0., 1., 0.)"),
    ("arange_step_of_wrong_sign", "torch.arange(0, 5, -1)"),
    ("arange_to_infinity", "torch.arange(0, float('inf'))"),
    ("arange_to_nan", "torch.arange(0., float('nan'))"),
    ("arange_int_dtype_step_truncated_to_zero", "torch.arange(0, 2, 0.5, dtype=torch.int64)"),
    ("arange_int_dtype_float_bounds",
     "out = [torch.arange(0.5, 3, 1, dtype=torch.int64), torch.arange(0.5, 3, 1.5, "
     "dtype=torch.int64), torch.arange(0, 2.5, 1, dtype=torch.int64), "
     "torch.arange(3, 0.5, -1, dtype=torch.int64), torch.arange(1.7, 9, 2.9, "
     "dtype=torch.int64), torch.arange(-2.5, 4, 1, dtype=torch.int64)]"),
    ("tensor_int_past_int64", "torch.tensor([2 ** 63])"),
    ("tensor_int_far_past_int64", "torch.tensor([1, 2 ** 64])"),
    ("tensor_int_below_int64", "torch.tensor(-2 ** 63 - 1)"),
    ("tensor_int64_extremes", "out = [torch.tensor([-2 ** 63, 2 ** 63 - 1])]"),
    ("tensor_of_a_set", "torch.tensor({1, 2})"),
    ("tensor_of_a_dict", "torch.tensor({1: 2})"),
    ("tensor_of_a_generator", "torch.tensor(x for x in range(3))"),
    ("tensor_of_strings", "torch.tensor(['a', 'b'])"),
    ("tensor_ragged_after_an_empty_row", "t = torch.tensor([[], [1]])\nout = [t, t.shape[0]]"),
    ("arange_empty_and_descending",
     "out = [torch.arange(5, 5, 1), torch.arange(5, 5, -1), torch.arange(5, 0, -1), "
     "torch.arange(1., 0., -0.25)]"),
    ("fuzz_linear_of_0d_refused",
     "torch.nn.functional.linear(torch.tensor(0.0), torch.tensor(0.0))"),
    ("fuzz_linear_3d_weight_refused",
     "torch.nn.functional.linear(torch.ones(2, 1, 3), torch.ones(2, 1, 3))"),
    ("fuzz_linear_vector_weight",
     "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "w = torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True)\n"
     "b = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)\n"
     "y = torch.nn.functional.linear(x, w, b)\nz = torch.nn.functional.linear(w, w)\n"
     "(y.sum() + z).backward()\nout = [y, z, x.grad, w.grad, b.grad]"),
    ("fuzz_linear_vector_weight_matrix_input_no_bias",
     "x = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True)\n"
     "w = torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True)\n"
     "y = torch.nn.functional.linear(x, w)\ny.sum().backward()\nout = [y, x.grad, w.grad]"),
    ("fuzz_linear_vector_weight_matrix_input_bias_refused",
     "torch.nn.functional.linear(torch.ones(2, 2), torch.ones(2), torch.ones(1))"),
] + [(f"fuzz_bool_matmul_float_batch_{i}", f"torch.matmul({a}, {b})") for i, (a, b) in enumerate([
    ("torch.ones(1, dtype=torch.bool)", "torch.ones(2, 1, 3, dtype=torch.float64)"),
    ("torch.ones(3, dtype=torch.bool)", "torch.ones(2, 3, 1, dtype=torch.float64)"),
    ("torch.ones(2, 1, 3, dtype=torch.bool)", "torch.ones(3, dtype=torch.float64)"),
    ("torch.ones(1, 3, dtype=torch.bool)", "torch.ones(2, 3, 1, dtype=torch.float64)"),
    ("torch.ones(2, 1, 3, dtype=torch.bool)", "torch.ones(3, 1, dtype=torch.float64)"),
    ("torch.ones(2, 3, dtype=torch.bool)", "torch.ones(2, 3, 1).transpose(0, 1)"),
    ("torch.ones(2, 1, 3, dtype=torch.bool)", "torch.ones(3, 1, requires_grad=True)"),
    ("torch.ones(1, 3, requires_grad=True)", "torch.ones(2, 3, 1, dtype=torch.bool)"),
    ("torch.ones(0, 1, 3, dtype=torch.bool)", "torch.ones(3, 1)")])] + [
    ("fuzz_compare_shapes_not_broadcasting", "torch.ones(3) < torch.ones(0)"),
    ("fuzz_equal_shapes_not_broadcasting", "torch.ones(6) == torch.ones(2, 1, 3)"),
    ("fuzz_argmax_of_bool_refused", "torch.tensor([True, False]).argmax(0)"),
    ("fuzz_argmax_of_empty_refused", "torch.ones(0).argmax()"),
    ("fuzz_argmax_over_empty_dim_refused", "torch.ones(0, 3).argmax(0)"),
    ("fuzz_sum_over_a_dim_named_twice", "torch.ones(3).sum((0, -1))"),
    ("fuzz_sum_of_0d_over_a_dim_named_twice", "torch.tensor(1.).sum((0, -1))"),
    ("fuzz_mean_over_a_dim_named_twice", "torch.ones(2, 3).mean((1, -1))"),
    ("fuzz_int_sub_float_alpha_refused",
     "torch.tensor([1, 2]).sub(torch.tensor([1, 1]), alpha=0.5)"),
    ("fuzz_int_add_float_alpha_in_place_refused",
     "t = torch.tensor([1, 2])\nt.add_(torch.tensor([1, 1]), alpha=2.0)"),
    ("fuzz_sub_bool_with_alpha_refused",
     "x = torch.tensor(2.5)\nx.sub_(torch.tensor(True), alpha=2)"),
    ("fuzz_bool_add_alpha_stays_bool",
     "b = torch.tensor([True, False])\nout = [b.add(b, alpha=2), b.add(b, alpha=0)]"),
    ("fuzz_alpha_in_the_result_dtype",
     "s = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)\n"
     "i = torch.tensor([[3], [-1]])\ny = s.sub(i, alpha=0.5)\nz = s.add(i, alpha=2)\n"
     "(y + z).sum().backward()\nout = [y, z, s.grad]"),
    ("fuzz_inplace_partial_overlap_refused",
     "x = torch.tensor([1., 2., 3.])\nx[0:2].add_(x[1:3])"),
    ("fuzz_inplace_overlap_through_unsqueeze_refused",
     "x = torch.tensor([1])\nx.unsqueeze(0).mul_(x)"),
    ("fuzz_inplace_overlap_through_transpose_refused",
     "x = torch.tensor([[1., 2.], [3., 4.]])\nx.t().add_(x)"),
    ("fuzz_inplace_overlap_before_shape_check",
     "x = torch.tensor([1.])\nx.mul_(x.unsqueeze(1))"),
    ("fuzz_inplace_same_elements_or_apart_fine",
     "x = torch.tensor([1., 2., 3., 4.])\nx[0:2].add_(x[2:4])\nx.view(4).mul_(x)\n"
     "x[::2].add_(x[1::2])\nout = [x]"),
    ("fuzz_squeeze_of_a_dim_not_1_is_a_view",
     "x = torch.tensor([[3., 3.], [0., 1.]], requires_grad=True)\nx.squeeze(0).mul_(2)"),
    ("fuzz_mse_loss_of_empty",
     "x = torch.zeros(0, requires_grad=True)\nl = torch.nn.functional.mse_loss(x, x * 2)\n"
     "l.backward()\nout = [l, x.grad]"),
    ("fuzz_mse_loss_0d_float64_target",
     "x = torch.tensor([[1.], [3.]], requires_grad=True)\n"
     "t = torch.tensor(2., dtype=torch.float64, requires_grad=True)\n"
     "l = torch.nn.functional.mse_loss(x, t)\nl.backward()\nout = [l, x.grad, t.grad]"),
    ("fuzz_mse_loss_int_target_changed_in_place",
     "i = torch.tensor([0, 2, 2])\nx = torch.tensor([[1.], [2.], [-2.]], dtype=torch.float64, "
     "requires_grad=True)\nl = torch.nn.functional.mse_loss(i, x)\ni.add_(i)\nl.backward()"),
    ("fuzz_mixed_dtype_operand_changed_in_place",
     "x = torch.tensor([1.0], requires_grad=True)\n"
     "w = torch.tensor([-1.0, 2.0], dtype=torch.float64, requires_grad=True)\n"
     "y = x * w\nx.detach().mul_(2)\ny.sum().backward()"),
    ("fuzz_mixed_dtype_operand_unchanged_fine",
     "x = torch.tensor([1.0], requires_grad=True)\n"
     "w = torch.tensor([-1.0, 2.0], dtype=torch.float64, requires_grad=True)\n"
     "y = x * w\ny.sum().backward()\nout = [y, x.grad, w.grad]"),
    ("fuzz_mse_loss_shapes_before_dtype",
     "torch.nn.functional.mse_loss(torch.tensor([1, 2, 3]), torch.zeros(0, dtype=torch.int64))"),
    ("fuzz_pow_0d_tensor_exponent_at_minus_inf",
     SPECIAL + "y = x.pow(torch.tensor(0.5, dtype=torch.float64))\n"
     "z = x ** torch.tensor(1.5, dtype=torch.float64)\n(y + z).sum().backward()\n"
     "out = [y, z, x.grad]"),
    ("fuzz_self_times_self_in_place_on_empty",
     "x = torch.ones(0, requires_grad=True)\ny = x * 1\ny.mul_(y)\ny.sum().backward()"),
    ("fuzz_cross_entropy_of_0d_logits", "torch.nn.functional.cross_entropy(torch.tensor(3), "
     "torch.tensor([[1, 0, -1]]))"),
    ("fuzz_cross_entropy_empty_int_logits_one_target",
     "torch.nn.functional.cross_entropy(torch.zeros(0, dtype=torch.int64), torch.tensor(0))"),
    ("fuzz_cross_entropy_empty_bool_logits_batch",
     "torch.nn.functional.cross_entropy(torch.zeros(2, 0, dtype=torch.bool), "
     "torch.tensor([0, 0]))"),
    ("fuzz_cross_entropy_empty_int_logits",
     "torch.nn.functional.cross_entropy(torch.zeros(0, dtype=torch.bool), "
     "torch.zeros(2, 3, dtype=torch.int64))"),
    ("fuzz_compare_with_none_then_a_function",
     "t = torch.tensor([1., 2.])\nb = t != None\ntorch.relu(b)"),
] + [(f"fuzz_number_where_a_tensor_belongs_{i}", call) for i, call in enumerate([
    "torch.exp(3)", "torch.sum(2)", "torch.max(True)", "torch.reshape(2, (1,))",
    "torch.mm(torch.ones(2, 2), 2)", "torch.matmul(2, torch.ones(2))", "torch.zeros_like(2)",
    "torch.ones_like(None)", "torch.nn.functional.relu(True)",
    "torch.nn.functional.linear(torch.ones(2, 2), True)",
    "torch.nn.functional.linear(torch.ones(2, 2), torch.ones(2, 2), 2)",
    "torch.nn.functional.cross_entropy(True, torch.ones(2))",
    "torch.nn.functional.cross_entropy(torch.ones(2, 2), 1)",
    "torch.nn.functional.dropout(2)", "torch.nn.functional.mse_loss(True, torch.ones(2))"])] + [
    # --- elsewhere ---
    ("linear_1d_input_frozen_weight",
     "lin = torch.nn.Linear(3, 2)\nlin.weight.requires_grad_(False)\n"
     "lin(torch.tensor([1., 2., 3.])).sum().backward()\nout = [lin.bias.grad]"),
    ("linear_1d_input_all_grads",
     "lin = torch.nn.Linear(3, 2)\nwith torch.no_grad():\n    lin.weight.fill_(0.5)\n"
     "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
     "lin(x).sum().backward()\nout = [lin.bias.grad, x.grad, lin.weight.grad]"),
    # --- found by the fuzzer over the new ops (sin ... softmax, custom Functions) ---
    ("fuzz_movedim_of_0d_is_an_alias",
     "x = torch.tensor(3., dtype=torch.float64, requires_grad=True)\n"
     "y = x.movedim(0, -1)\nz = torch.movedim(x, -1, 0)\n(y * z).backward()\n"
     "out = [y, z, x.grad]"),
    ("fuzz_movedim_of_0d_dim_out_of_range",
     "torch.tensor(3.).movedim(1, 0)"),
    ("fuzz_softmax_of_long_refused", "torch.tensor([[1, 2]]).softmax(0)"),
    ("fuzz_softmax_lastdim_of_long_refused", "torch.tensor([1, 2]).softmax(-1)"),
    ("fuzz_log_softmax_of_bool_refused", "torch.log_softmax(torch.tensor([True]), 0)"),
    ("fuzz_softmax_of_long_with_dtype",
     "out = [torch.tensor([1, 2]).softmax(0, dtype=torch.float64), "
     "torch.nn.functional.log_softmax(torch.tensor([1, 2]), 0, dtype=torch.float64)]"),
    ("fuzz_softmax_of_empty",
     "x = torch.tensor([], dtype=torch.float64, requires_grad=True)\n"
     "y = x.softmax(-1)\nz = torch.log_softmax(torch.zeros(2, 0), 0)\n"
     "w = torch.tensor([], dtype=torch.int64).softmax(0)\ny.sum().backward()\n"
     "out = [y, z, w, x.grad]"),
    ("fuzz_top_level_softmax",
     "x = torch.tensor([[1., 2.], [0., -1.]], dtype=torch.float64, requires_grad=True)\n"
     "y = torch.softmax(x, 0) * torch.log_softmax(x, dim=-1)\ny.sum().backward()\n"
     "out = [y, x.grad]"),
    ("fuzz_var_of_0d_over_dim",
     "x = torch.tensor(3., dtype=torch.float64, requires_grad=True)\n"
     "out = [x.var(-1, keepdim=True), x.var(0), x.var(0, correction=0)]"),
    ("fuzz_var_gradient_next_to_inf",
     "x = torch.tensor([-float('inf'), 0.5, 0.0], dtype=torch.float64, requires_grad=True)\n"
     "v = x.var()\nv.backward()\nout = [v, x.grad]"),
    ("fuzz_var_second_derivative",
     "y = torch.tensor([[1., 2., 4.], [0., 3., -1.]], dtype=torch.float64, "
     "requires_grad=True)\nv = y.var(1, correction=0) + y.var(0, keepdim=True).sum() + y.var()\n"
     "g, = torch.autograd.grad(v.sum(), y, create_graph=True)\ng.pow(2).sum().backward()\n"
     "out = [v, g, y.grad]"),
    ("fuzz_dot_of_bool_refused", "torch.dot(torch.tensor([True, False]), "
     "torch.tensor([True, True]))"),
    ("fuzz_softmax_output_changed_in_place",
     "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "y = torch.softmax(x, -1)\ny.add_(1)\ny.sum().backward()"),
    ("fuzz_log_softmax_output_changed_in_place",
     "x = torch.tensor([], dtype=torch.float64, requires_grad=True)\n"
     "y = torch.log_softmax(x, -1)\ny[-1:].add_(y.sum())\ny.sum().backward()"),
    ("fuzz_softmaxes_second_derivative",
     "x = torch.tensor([[1., 2., -1.], [0.5, 3., -float('inf')]], dtype=torch.float64, "
     "requires_grad=True)\nw = torch.tensor([[1., 2., 3.], [4., 5., 6.]], dtype=torch.float64)\n"
     "s = torch.softmax(x, 1)\nl = x.log_softmax(0)\n"
     "g, = torch.autograd.grad((s * w).sum() + (l * w).sum(), x, create_graph=True)\n"
     "(g * g).sum().backward()\nout = [s, l, g, x.grad, s.grad_fn.name(), l.grad_fn.name()]"),
    # --- the engine issue's last surface gaps ---
    ("setitem_into_a_view_of_a_recorded_graph",
     "x = torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)\ny = x * 2\n"
     "v = y[0:2]\nv[1] = 5.0\ny.sum().backward()\nout = [y, v, x.grad]"),
    ("setitem_into_a_row_view",
     "x = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True)\n"
     "y = x * 2\nv = y[0]\nv[1] = 5.0\n(y * y).sum().backward()\nout = [y, v, x.grad]"),
    ("setitem_into_a_transposed_view_a_value_with_grad",
     "x = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True)\n"
     "w = torch.tensor(7., dtype=torch.float64, requires_grad=True)\ny = x * 2\nv = y.t()\n"
     "v[0, 1] = w * 2\n(y * y).sum().backward()\nout = [y, v, x.grad, w.grad]"),
    ("setitem_into_a_column_view_double_backward",
     "x = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True)\n"
     "w = torch.tensor([5., 6.], dtype=torch.float64, requires_grad=True)\ny = x * 1\n"
     "v = y[:, 1]\nv[:] = w * w\ng, = torch.autograd.grad((y * y).sum(), w, "
     "create_graph=True)\ng.sum().backward()\nout = [y, v, g, w.grad]"),
    ("setitem_view_then_used",
     "x = torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)\ny = x * 2\n"
     "v = y[1:]\nv[0] = 5.0\nz = v * 3\nz.sum().backward()\nout = [y, v, z, x.grad]"),
    ("setitem_over_an_infinite_element",
     "x = torch.tensor([float('inf'), 2., 3.], dtype=torch.float64, requires_grad=True)\n"
     "y = x * 2\ny[0] = 5.0\ny.sum().backward()\nout = [y, x.grad]"),
    ("setitem_into_a_view_of_a_leaf_refused",
     "x = torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)\n"
     "v = x[0:2]\nv[0] = 1.0"),
    ("custom_function_retain_grad_on_two_outputs",
     "class Two(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        return x * 2, x * 3\n\n    @staticmethod\n    def backward(ctx, ga, gb):\n"
     "        return ga * 2 + gb * 3\n\n\n"
     "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n"
     "a, b = Two.apply(x)\na.retain_grad()\nb.retain_grad()\n(a * b).sum().backward()\n"
     "c, d = Two.apply(x)\nd.retain_grad()\nd.register_hook(lambda g: g * 10)\n"
     "(c.sum() + (d * d).sum()).backward()\ne, f = Two.apply(x)\ne.retain_grad()\n"
     "f.retain_grad()\ne.sum().backward()\n"
     "out = [a.grad, b.grad, d.grad, e.grad, f.grad, x.grad, b.retains_grad, c.retains_grad]"),
    ("fuzz_dot_of_a_python_bool_refused",
     "x = torch.tensor([1., 2.])\ntorch.dot(x != None, x)"),
    ("fuzz_abs_of_0d_backward",
     "x = torch.tensor(-2.5, dtype=torch.float64, requires_grad=True)\n"
     "y = torch.abs(x) ** -1\ny.backward()\nout = [y, x.grad, torch.tensor(float('nan')).sign()]"),
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
    "fuzz_linear_vector_weight_matrix_input_bias_refused": "mat2 must be a matrix, got 1-D "
                                                           "tensor",
    "fuzz_linear_of_0d_refused": "both arguments to linear need to be at least 1D, but they "
                                 "are 0D and 0D",
    "fuzz_argmax_of_bool_refused": "argmax(): does not support bool input",
    "fuzz_compare_with_none_then_a_function": "relu(): argument 'input' (position 1) must be "
                                              "Tensor, not bool",
    "fuzz_sum_over_a_dim_named_twice": "dim 0 appears multiple times in the list of dims",
    "fuzz_int_sub_float_alpha_refused": "For integral input tensors, argument alpha must not "
                                        "be a floating point number",
    "fuzz_inplace_partial_overlap_refused": "some elements of the input tensor and the "
                                            "written-to tensor refer to a single memory "
                                            "location",
    "view_two_inferred_sizes": "only one dimension can be inferred",
    "view_size_not_matching": "shape '[4, 2]' is invalid for input of size 6",
    "reshape_negative_size": "invalid shape dimension -3 at index 1 of shape [2, -3]",
    "view_inferred_size_of_empty_ambiguous": "the unspecified dimension size -1 can be any "
                                             "value and is ambiguous",
    "reshape_float_size_in_tuple": "must be tuple of ints, but found element of type float "
                                   "at pos 0",
    "slice_negative_step": "step must be greater than zero",
    "slice_step_zero": "slice step cannot be zero",
    "mean_of_int_refused": "mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype",
    "mse_loss_of_ints_refused": "\"mse_cpu\" not implemented for 'Long'",
    "cross_entropy_int_logits_refused": "not implemented for 'Long'",
    "cross_entropy_float_target_indices_refused": "expected target dtype to be Long or Byte, "
                                                  "but got Float",
    "cross_entropy_target_3d_refused": "0D or 1D target tensor expected, multi-target not "
                                       "supported",
    "cross_entropy_int_probabilities_refused": "Expected floating point type for target with "
                                               "class probabilities, got Long",
    "requires_grad_int_refused": "argument 'requires_grad' must be bool, not int",
    "zeros_requires_grad_int_refused": "argument 'requires_grad' must be bool, not int",
    "requires_grad_setter_int_refused": "requires_grad must be a bool",
    "requires_grad_method_int_refused": "argument 'requires_grad' (position 1) must be bool, "
                                        "not int",
    "requires_grad_true_on_non_leaf_refused": "you can only change requires_grad flags of "
                                              "leaf variables",
    "index_out_of_range": "index 5 is out of bounds for dimension 0 with size 3",
    "index_out_of_range_second_dim": "index 3 is out of bounds for dimension 1 with size 3",
    "index_too_many": "too many indices for tensor of dimension 1",
    "index_of_0d": "invalid index of a 0-dim tensor",
    "tensor_ragged": "expected sequence of length 2 at dim 1 (got 1)",
    "tensor_ragged_deeper": "expected sequence of length 2 at dim 2 (got 1)",
    "tensor_list_where_number": "must be real number, not list",
    "tensor_number_where_list": "not a sequence",
    "tensor_with_none": "Could not infer dtype of NoneType",
    "zeros_negative_size": "Dimension size must be non-negative",
    "ones_negative_size": "Trying to create tensor with negative dimension -3: [2, -3]",
    "zeros_float_size": "argument 'size' (position 1) must be tuple of ints, not float",
    "arange_zero_step": "step must be nonzero",
    "arange_to_infinity": "unsupported range: 0 -> inf",
    "tensor_int_past_int64": "Overflow when unpacking long long",
    "tensor_of_a_set": "Could not infer dtype of set",
    "tensor_of_strings": "too many dimensions 'str'",
    "arange_step_of_wrong_sign": "upper bound and lower bound inconsistent with step sign",
    "contains_none_refused": "Tensor.__contains__ only supports Tensor or scalar",
    "less_than_none_refused": "'<' not supported between instances of 'Tensor' and 'NoneType'",
    "fuzz_dot_of_a_python_bool_refused": "dot(): argument 'input' (position 1) must be "
                                         "Tensor, not bool",
    "setitem_into_a_view_of_a_leaf_refused": "a view of a leaf Variable that requires grad "
                                             "is being used in an in-place operation",
    "fuzz_dot_of_bool_refused": "\"dot\" not implemented for 'Bool'",
    "fuzz_softmax_of_long_refused": "\"softmax_kernel_impl\" not implemented for 'Long'",
    "fuzz_softmax_lastdim_of_long_refused": "\"softmax_lastdim_kernel_impl\" not implemented "
                                            "for 'Long'",
    "fuzz_log_softmax_of_bool_refused": "\"log_softmax_lastdim_kernel_impl\" not implemented "
                                        "for 'Bool'",
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


# --- checkpoint keeps the random state (torch's preserve_rng_state) ----------------
def _dropout_checkpoint(lib, use_reentrant, preserve_rng_state, checkpointed=True):
    """A dropout block, checkpointed or not, under seed 0: its output, the input's
    gradient, and the next numbers the generator gives after the backward."""
    ck = minigrad.utils.checkpoint.checkpoint if lib is minigrad else (
        torch.utils.checkpoint.checkpoint)
    lib.manual_seed(0)
    w = lib.tensor([1.5] * 64, dtype=lib.float64, requires_grad=True)
    x = lib.tensor([2.0] * 64, dtype=lib.float64, requires_grad=True)

    def block(a):
        return lib.nn.functional.dropout(a * w, 0.5).exp()

    if checkpointed:
        y = ck(block, x, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state)
    else:
        y = block(x)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), lib.rand(4).numpy()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_checkpoint_replays_the_dropout_mask(lib, use_reentrant):
    plain = _dropout_checkpoint(lib, use_reentrant, True, checkpointed=False)
    kept = _dropout_checkpoint(lib, use_reentrant, True)
    for a, b in zip(plain, kept, strict=True):  # values, gradients, the generator after
        np.testing.assert_array_equal(a, b)
    assert 0 < (plain[0] == 1).sum() < 64  # some elements dropped, some kept


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_checkpoint_without_rng_state_draws_a_new_mask(lib, use_reentrant):
    plain = _dropout_checkpoint(lib, use_reentrant, True, checkpointed=False)
    anew = _dropout_checkpoint(lib, use_reentrant, False)
    np.testing.assert_array_equal(plain[0], anew[0])  # the forward draws the same mask
    assert (plain[1] != anew[1]).any()  # the recomputation another: gradient differs
    assert (plain[3] != anew[3]).any()  # and the generator moved on


# --- Value (chapters 01-04): Python's overflow refusals say what to do ---------------
def _slope_overflow():
    x = minigrad.Value(1e-200)
    (x ** -1.5).backward()  # the value fits (1e300), its slope does not


@pytest.mark.parametrize(("make", "phrase", "torch_value"), [
    (lambda: minigrad.Value(1000.0).exp(), "math range error",
     lambda: torch.tensor(1000.0, dtype=torch.float64).exp()),
    (lambda: minigrad.Value(10.0) ** 400, "out of range",
     lambda: torch.tensor(10.0, dtype=torch.float64) ** 400),
    (lambda: minigrad.Value(10.0) ** minigrad.Value(400.0), "out of range",
     lambda: torch.tensor(10.0, dtype=torch.float64) ** torch.tensor(400.0)),
    (lambda: 10 ** minigrad.Value(400.0), "out of range",
     lambda: 10 ** torch.tensor(400.0, dtype=torch.float64)),
    (lambda: minigrad.Value(1e200) ** 2, "out of range",
     lambda: torch.tensor(1e200, dtype=torch.float64) ** 2),
    (_slope_overflow, "out of range", None),
    (lambda: minigrad.Value(10 ** 400), "int too large to convert to float", None),
], ids=["exp", "pow_number", "pow_value", "rpow", "square", "slope_in_backward", "big_int"])
def test_value_overflow_refusal_says_the_fix(make, phrase, torch_value):
    with pytest.raises(OverflowError) as info:
        make()
    message = str(info.value)
    assert phrase in message and "e.g." in message, message
    if torch_value is not None:  # what the message says torch does
        assert "torch would return inf" in message
        assert math.isinf(torch_value().item())


def test_value_relu_keeps_negative_zero():
    r = minigrad.Value(-0.0).relu()
    rt = torch.relu(torch.tensor(-0.0, dtype=torch.float64))
    assert math.copysign(1.0, r.data) == math.copysign(1.0, rt.item()) == -1.0
