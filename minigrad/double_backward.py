r"""Gradients of gradients: the backward pass recorded as a graph (chapter 15).

``loss.backward(create_graph=True)`` and ``autograd.grad(..., create_graph=True)`` run
the backward pass on tensors instead of numpy arrays. Each op's gradient rule below is
the formula of its ``backward`` (in ``ops/``) written with minigrad's own ops, so the
backward pass leaves a graph of its own, which can be differentiated again: the
gradient of :math:`g(x) \cdot v` is the Hessian-vector product :math:`H v`.

The first-order pass (``engine.py``) stays on numpy arrays, for speed; this one is only
taken when a graph of the gradients is asked for.

What a rule sees: the node ``ctx``, ``g`` (the gradient of the node's output, a tensor)
and ``saved(ctx)``, what forward saved, as tensors: an input's array becomes that input
again (joined to its node, so the second pass reaches it), the output's array the output,
anything else (a mask, class labels) a constant. A ``Function`` of your own without a rule
here has its ``backward`` called with tensors: written with operators
(``grad_output * 2 * x``) it builds the graph as well.
"""

import math

import numpy as np

from minigrad import forward_ad, hooks, tensors
from minigrad.engine import _among, _count_checked, _root_grad, _Roots, topological_order
from minigrad.function import AccumulateGrad, Function
from minigrad.grad_mode import enable_grad
from minigrad.inplace import Zero
from minigrad.ops import activations, arithmetic, indexing, linear, losses, matmul, reductions
from minigrad.ops import shape as shape_ops

__all__ = ["run_backward_graph", "RULES", "CYCLE_WARNING"]

CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this "
    "function, make sure to reset the .grad fields of your parameters to None after use "
    "to break the cycle and avoid the leak.")


def const(array, dtype=None):
    """A constant tensor (no gradient flows into it)."""
    array = np.asarray(array)
    return tensors.make(array if dtype is None else array.astype(dtype), None)


def saved(ctx):
    """What forward saved, as tensors joined to the graph (see the module's docstring)."""
    arrays = ctx.saved_tensors  # raises if freed or changed in place, as the first order
    whose = {i: k for i, _, _, k in ctx._checks}
    fw_in = getattr(ctx, "_fw_in", None)  # forward mode: the inputs' tangents, if any
    out = []
    for i, array in enumerate(arrays):
        k = whose.get(i)
        if array is None or not isinstance(array, np.ndarray):
            out.append(array)
        elif k == -1:  # the node's own output
            out.append(_with_tangent(tensors.make(array, ctx), getattr(ctx, "_fw_out", None)))
        elif k is None:
            out.append(const(array))
        else:
            parent = ctx.next_functions[k]
            tangent = fw_in[k] if fw_in is not None else None
            if parent is None:
                out.append(_with_tangent(const(array), tangent))
            elif type(parent) is AccumulateGrad:  # a leaf: the leaf itself
                leaf = parent.variable
                out.append(leaf if leaf is not None and leaf.data is array else const(array))
            else:
                out.append(_with_tangent(tensors.make(array, parent), tangent))
    return out


def _with_tangent(tensor, tangent):
    if tangent is not None and forward_ad.LEVEL[0] is not None:
        forward_ad._attach(tensor, tangent)
    return tensor


def _expand(g, axes, keepdim, shape):
    """A reduction's gradient: ``g`` spread back over the reduced axes."""
    if axes is None:
        g = g.reshape((1,) * len(shape))
    elif not keepdim:
        for axis in sorted(axes):
            g = g.unsqueeze(axis)
    return g + const(np.zeros(shape, dtype=g.data.dtype))


class ScatterAdd(Function):
    """``zeros(shape)`` with ``g`` added at ``key``: the backward of indexing, recorded.
    Its own backward is indexing again, so a third derivative works too."""

    backward_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, g, shape, key):
        ctx.key = key
        grad = np.zeros(shape, dtype=g.dtype)
        np.add.at(grad, key, g)
        return grad

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output[ctx.key], None, None


def _scatter(g, shape, key):
    return ScatterAdd.apply(g, shape, key)


def _mul_rule(ctx, g):
    a, b = saved(ctx)
    need_a, need_b = ctx.needs_input_grad
    return (g * b if need_a else None), (g * a if need_b else None)


def _div_rule(ctx, g):
    a, b = saved(ctx)
    need_a, need_b = ctx.needs_input_grad
    return (g / b if need_a else None), (-g * a / (b * b) if need_b else None)


def _pow_rule(ctx, g):
    (a,) = saved(ctx)
    p = ctx.exponent
    if p == 0:
        return g * const(np.zeros(a.data.shape, a.data.dtype)), None
    return g * p * a ** (p - 1), None


def _pow_tensor_rule(ctx, g):
    a, b, out = saved(ctx)
    need_a, need_b = ctx.needs_input_grad
    grad_a = grad_b = None
    if need_a:  # 0 where b == 0, as torch
        keep = const(b.data != 0, a.data.dtype)
        grad_a = g * b * a ** (b - 1) * keep
    if need_b:  # 0 where a == 0 and b >= 0; log of 1 there, so no nan
        off = (a.data == 0) & (b.data >= 0)
        safe = a * const(~off, a.data.dtype) + const(off, a.data.dtype)
        grad_b = g * out * safe.log() * const(~off, a.data.dtype)
    return grad_a, grad_b


def _rpow_rule(ctx, g):
    out, b = saved(ctx)
    if ctx.base == 0:
        first = ctx.backward(ctx, g.data)[0]  # 0 or -inf: constant pieces
        return g * const(first / np.where(g.data == 0, 1, g.data)), None
    return g * out * math.log(ctx.base), None


def _relu_rule(ctx, g):
    (out,) = saved(ctx)
    return g * const(out.data != 0, g.data.dtype)


def _max_rule(ctx, g):
    a, out = saved(ctx)
    mask = np.isnan(a.data) if np.isnan(out.data) else a.data == out.data
    return g * const(mask / mask.sum(), a.data.dtype)


def _max_dim_rule(ctx, g):
    dim, keepdim, shape, dtype = ctx.meta
    onehot = np.zeros(shape, dtype=g.data.dtype)
    np.put_along_axis(onehot, np.expand_dims(ctx.indices, dim), 1, axis=dim)
    g = g if keepdim else g.unsqueeze(dim)
    return g * const(onehot), None, None, None


def _matmul_rule(ctx, g):
    a, b = saved(ctx)
    need_a, need_b = ctx.needs_input_grad
    a1, b1 = (n == 1 for n in getattr(ctx, "ndims", (2, 2)))
    if b1:
        g = g.unsqueeze(-1)
    if a1:
        g = g.unsqueeze(-2)
    grad_a = grad_b = None
    if need_a:
        b2 = b.unsqueeze(-1) if b1 else b
        grad_a = g @ b2.transpose(-1, -2)
        grad_a = grad_a.squeeze(-2) if a1 else grad_a
    if need_b:
        a2 = a.unsqueeze(0) if a1 else a
        grad_b = a2.transpose(-1, -2) @ g
        grad_b = grad_b.squeeze(-1) if b1 else grad_b
    return grad_a, grad_b


def _linear_rule(ctx, g):
    x, weight = saved(ctx)
    need_x, need_weight, need_bias = ctx.needs_input_grad
    g2 = g.reshape(-1, g.data.shape[-1]) if g.data.ndim != 2 else g
    grad_x = g @ weight if need_x else None
    grad_weight = None
    if need_weight:
        x2 = x.reshape(-1, x.data.shape[-1]) if x.data.ndim != 2 else x
        grad_weight = g2.t() @ x2
    grad_bias = g2.sum(0) if need_bias else None
    return grad_x, grad_weight, grad_bias


def _mse_rule(ctx, g):
    x, y = saved(ctx)
    diff = x - y
    scale = 2 / diff.data.size if ctx.reduction == "mean" else 2
    grad = diff * (g * scale)
    need_x, need_y = ctx.needs_input_grad[:2]
    return (grad if need_x else None), (-grad if need_y else None), None


def _cross_entropy_rule(ctx, g):
    logits, target = saved(ctx)
    target = target.data if hasattr(target, "data") else target
    shifted = logits - const(logits.data.max(axis=1, keepdims=True))
    e = shifted.exp()
    softmax = e / e.sum(1, keepdim=True)
    onehot = np.zeros(logits.data.shape, dtype=logits.data.dtype)
    onehot[np.arange(len(target)), target] = 1
    grad = softmax - const(onehot)
    if ctx.reduction == "none":
        return grad * g.unsqueeze(1), None, None
    scale = g / len(target) if ctx.reduction == "mean" else g
    return grad * scale, None, None


def _reduce_rule(ctx, g):
    axes, keepdim, shape = ctx.meta
    return _expand(g, axes, keepdim, shape), None, None


def _mean_rule(ctx, g):
    axes, keepdim, shape = ctx.meta
    count = math.prod(shape if axes is None else [shape[axis] for axis in axes])
    return _expand(g / count, axes, keepdim, shape), None, None


def _index_rule(ctx, g):
    shape, key = ctx.meta
    ctx.saved_tensors  # noqa: B018 - raises if the index tensor changed in place
    return _scatter(g, shape, key), None


def _copy_slices_rule(ctx, g):
    raise NotImplementedError(
        "minigrad cannot build the graph of a backward through an in-place op on a view "
        "(CopySlices) with create_graph=True. Fix: use the out-of-place op before taking "
        "second derivatives.")


RULES = {
    arithmetic.Add: lambda ctx, g: (g, g),
    arithmetic.Sub: lambda ctx, g: (g, -g),
    arithmetic.Rsub: lambda ctx, g: (-g, None),
    arithmetic.Neg: lambda ctx, g: -g,
    arithmetic.Mul: _mul_rule,
    arithmetic.Div: _div_rule,
    arithmetic.Reciprocal: lambda ctx, g: -g * saved(ctx)[0] * saved(ctx)[0],
    arithmetic.Pow: _pow_rule,
    arithmetic.PowTensor: _pow_tensor_rule,
    arithmetic.RPow: _rpow_rule,
    activations.Exp: lambda ctx, g: g * saved(ctx)[0],
    activations.Log: lambda ctx, g: g / saved(ctx)[0],
    activations.Tanh: lambda ctx, g: g * (1 - saved(ctx)[0] * saved(ctx)[0]),
    activations.Sigmoid: lambda ctx, g: g * saved(ctx)[0] * (1 - saved(ctx)[0]),
    activations.Relu: _relu_rule,
    reductions.Sum: _reduce_rule,
    reductions.Mean: _mean_rule,
    reductions.Max: _max_rule,
    reductions.MaxDim: _max_dim_rule,
    matmul.Mm: lambda ctx, g: _matmul_rule(ctx, g),
    matmul.Matmul: _matmul_rule,
    linear.Linear: _linear_rule,
    losses.MseLoss: _mse_rule,
    losses.CrossEntropy: _cross_entropy_rule,
    shape_ops.View: lambda ctx, g: (g.reshape(ctx.in_shape), None),
    shape_ops.Squeeze: lambda ctx, g: (g.reshape(ctx.in_shape), None),
    shape_ops.Transpose: lambda ctx, g: (g.transpose(*ctx.dims), None, None),
    shape_ops.Permute: lambda ctx, g: g.T if ctx.dims is None else (
        shape_ops.Permute.apply(g, tuple(np.argsort(ctx.dims).tolist())), None),
    shape_ops.Unsqueeze: lambda ctx, g: (g.squeeze(ctx.dim), None),
    shape_ops.ToCopy: lambda ctx, g: (g.to(tensors_dtype(ctx.in_dtype)), None),
    shape_ops.Clone: lambda ctx, g: g,
    indexing.Index: _index_rule,
    ScatterAdd: lambda ctx, g: (g[ctx.key], None, None),
    Zero: lambda ctx, g: (g * const(np.zeros(g.data.shape, g.data.dtype)), None),
}


def tensors_dtype(numpy_dtype):
    from minigrad.dtypes import from_numpy

    return from_numpy(numpy_dtype)


def rule_for(node):
    """The rule of the node's class, or of the nearest base class that has one."""
    for klass in type(node).__mro__:
        rule = RULES.get(klass)
        if rule is not None:
            return rule
        if klass.__name__ == "CopySlices":
            return _copy_slices_rule
    if hasattr(type(node), "differentiable_backward"):  # TEMPORARY: the new one-class form
        return _differentiable_backward
    return _own_backward


def _differentiable_backward(ctx, g):
    """An op's own ``differentiable_backward`` (ops/trig.py, ...), on tensors."""
    ctx._unpacked = saved(ctx)
    try:
        results = type(ctx).differentiable_backward(ctx, g)
    finally:
        ctx._unpacked = None
    return results if type(results) is tuple else (results,)


def _own_backward(ctx, g):
    """A Function without a rule here (one of yours): its backward, called on tensors."""
    ctx._unpacked = saved(ctx)
    try:
        results = ctx.backward(ctx, g)
    finally:
        ctx._unpacked = None
    if type(results) is not tuple:
        results = (results,)
    return tuple(r if r is None or isinstance(r, tensors.Tensor) else const(r)
                 for r in results)


def sum_to_shape(grad, shape, node, i):
    """``engine.sum_to_shape`` on a tensor, recorded (after torch's check that it fits)."""
    n = len(shape)
    gshape = grad.data.shape
    fits = grad.data.ndim >= n and all(
        s == d or s == 1 for s, d in zip(shape, gshape[grad.data.ndim - n:], strict=True))
    if not fits:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}. Fix: "
            "each gradient backward returns must have its input's shape.")
    lead = grad.data.ndim - n
    axes = tuple(range(lead)) + tuple(
        lead + j for j, size in enumerate(shape) if size == 1 and gshape[lead + j] != 1)
    if axes:
        grad = grad.sum(axes, keepdim=True)
    return grad.reshape(shape)


def run_backward_graph(roots, gradients, retain_graph=True, inputs=None):
    """The backward pass of ``engine.run_backward``, on tensors and recorded."""
    with enable_grad():
        _run(roots, gradients, retain_graph, inputs)


def _start(tensor, gradient, i):
    """The first gradient: ones, or the one given (kept as is: it may require grad)."""
    if isinstance(gradient, tensors.Tensor):
        _root_grad(tensor, gradient, i)  # the checks: shape and type
        if gradient.data.dtype != tensor.data.dtype:
            gradient = gradient.to(tensors_dtype(tensor.data.dtype))
        return gradient
    return const(_root_grad(tensor, gradient, i))


def _run(roots, gradients, retain_graph, inputs):
    if inputs is not None and not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty. Fix: pass the "
                           "tensors whose gradient you want, or leave inputs out.")
    grads = {}
    for i, (tensor, gradient) in enumerate(zip(roots, gradients, strict=True)):
        grad = _start(tensor, gradient, i)
        if tensor.grad_fn is None:
            if inputs is None or _among(tensor, inputs):
                _accumulate(tensor, grad)
            continue
        previous = grads.get(tensor.grad_fn)
        grads[tensor.grad_fn] = grad if previous is None else previous + grad
    if not grads:
        return
    wanted = {t.grad_fn: t for t in inputs if t.grad_fn is not None} if inputs else None
    root = next(iter(grads)) if len(grads) == 1 else _Roots(tuple(grads))
    leaves = {}  # leaf -> the sum of what reached it, added into .grad once
    for node in topological_order(root):
        grad_output = grads.pop(node, None)
        if grad_output is None:
            continue
        if node._hooks:
            grad_output = hooks.run_hooks(node, grad_output, as_tensor=True)
        if node._retained is not None:
            kept = node._retained()
            if kept is not None:
                _store(kept, grad_output)
        if wanted and node in wanted and node._retained is None:
            _store(wanted[node], grad_output)
        results = rule_for(node)(node, grad_output)
        if not retain_graph:
            node.release()
        if type(results) is not tuple:
            results = (results,)
        if len(results) != len(node.next_functions):
            results = _count_checked(node, results)
        for i, (parent, grad) in enumerate(zip(node.next_functions, results, strict=True)):
            if parent is None or grad is None:
                continue
            if grad.data.shape != parent.out_shape:
                grad = sum_to_shape(grad, parent.out_shape, node, i)
            if grad.data.dtype != parent.out_dtype:
                grad = grad.to(tensors_dtype(parent.out_dtype))
            if type(parent) is AccumulateGrad:
                variable = parent.variable
                if variable is None or not variable._requires_grad:
                    continue
                if inputs is not None and not _among(variable, inputs):
                    continue
                previous = leaves.get(variable)
                leaves[variable] = grad if previous is None else previous + grad
                continue
            previous = grads.get(parent)
            grads[parent] = grad if previous is None else previous + grad
    for variable, grad in leaves.items():
        _accumulate(variable, grad)


def _accumulate(variable, grad):
    """A leaf's ``.grad``: the gradient itself (a graph), or the sum, out of place."""
    node = variable._accumulator
    if node is not None and node._hooks:
        grad = hooks.run_hooks(node, grad, as_tensor=True)
    variable._grad = grad if variable._grad is None else variable._grad + grad
    if node is not None and node._post_hooks:
        for fn in list(node._post_hooks.values()):
            fn(variable)


def _store(tensor, grad):
    tensor._grad = grad if tensor._grad is None else tensor._grad + grad
