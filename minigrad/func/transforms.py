r"""``minigrad.func``: derivatives as functions, as ``torch.func`` (chapters 14 and 15).

Each transform takes a function of tensors and returns a new function:

- ``grad(f)(x)``: the gradient of a scalar ``f`` (reverse mode, one backward pass);
- ``vjp(f, x)``: ``f(x)`` and a function ``u -> u^T J`` (reverse mode, a row per pass);
- ``jvp(f, (x,), (v,))``: ``f(x)`` and ``J v`` (forward mode, a column per pass);
- ``jacrev(f)(x)``: the Jacobian row by row, one backward pass per output element;
- ``jacfwd(f)(x)``: the Jacobian column by column, one forward pass per input element;
- ``hessian(f)(x)``: ``jacfwd(jacrev(f))``, forward-over-reverse.

(The last three are in ``jacobians.py``; ``grad`` and ``jacrev`` inside ``vmap`` in
``batched_transforms.py``.)

The Jacobian of ``f: R^n -> R^m`` has shape ``f(x).shape + x.shape``. Transforms
compose: ``grad(grad(f))``, ``jacrev(jacrev(f))``, ``jacfwd(jacrev(f))`` and, with nested
forward levels (``forward_ad``), ``jacfwd(jacfwd(f))``; inside ``vmap``, ``grad`` and
``jacrev`` give per-sample derivatives.
"""

import numpy as np

from minigrad import autograd
from minigrad._functorch.vmap import _flatten, _unflatten
from minigrad.autograd import forward_ad, transform_depth
from minigrad.autograd.grad_mode import enable_grad
from minigrad.func import batched_transforms
from minigrad.tensors import Tensor, make

__all__ = ["grad", "grad_and_value", "vjp", "jvp"]


def _leaf(p):
    """The input as the transform differentiates it: itself if it already belongs to an
    outer graph (a nested transform), else a fresh leaf sharing its data and tangent."""
    if p._requires_grad:
        return p
    x = make(p._data, None)
    x._version_counter = p._version_counter
    x._requires_grad = True
    if p._fw_tangent is not None:
        forward_ad._attach(x, p._fw_tangent)
    return x


def _result(t, nested):
    """A result: cut from this transform's graph unless an outer one needs it; a tangent
    (forward-over-reverse) goes along."""
    if t is None or nested:
        return t
    out = make(t._data, None)
    if t._fw_tangent is not None:
        forward_ad._attach(out, t._fw_tangent)
    return out


def _check_floating(xs, name):
    for x in xs:
        if not isinstance(x, Tensor):
            raise ValueError(f"{name}: expected every argument it differentiates to be a "
                             f"Tensor, got {type(x).__name__}. Fix: pass minigrad tensors.")
        if x._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients. "
                               "Fix: pass float tensors, e.g. x.double().")


def _argnums(argnums, n):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    return single, tuple(a % n for a in nums)


def vjp(func, *primals):
    """``(f(*primals), vjp_fn)``; ``vjp_fn(u)`` gives ``u^T J``, one tensor per primal."""
    if batched_transforms.active():
        return batched_transforms.outermost(
            lambda: batched_transforms.batched_vjp(func, primals),
            lambda *p: vjp(func, *p), primals, {})
    flat, spec = _flatten(tuple(primals))  # pytrees: a dict of weights, nested tuples
    _check_floating(flat, "vjp(f, *primals)")
    nested = any(p._requires_grad for p in flat) or forward_ad.LEVEL[0] is not None
    xs = [_leaf(p) for p in flat]
    with enable_grad(), transform_depth.transform():
        out = func(*_unflatten(xs, spec))
    outs, out_spec = _flatten(out)
    _check_outputs(outs, "vjp(f, *primals)")

    def vjp_fn(cotangents):
        cts, ct_spec = _flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                "of outputs to the function. Fix: pass one cotangent per output, in the "
                "same tuple/list/dict structure as f's output.")
        pairs = [(o, c) for o, c in zip(outs, cts, strict=True) if o._requires_grad]
        with enable_grad():
            grads = autograd.grad([o for o, _ in pairs], xs, [c for _, c in pairs],
                                  retain_graph=True, create_graph=nested, allow_unused=True) \
                if pairs else [None] * len(xs)
        return _unflatten([_result(g, nested) if g is not None else
                           make(np.zeros_like(x._data), None)
                           for g, x in zip(grads, xs, strict=True)], spec)

    return _unflatten([_result(o, nested) for o in outs], out_spec), vjp_fn


def _check_outputs(outs, name):
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{name}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}. Fix: return tensors (or tuples, "
                               "lists, dicts of tensors).")


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a function with a one-element tensor output; an argument
    may be a tuple, list or dict of tensors (a model's parameters), its gradient the same
    structure. Inside ``vmap``: per-sample gradients (``batched_transforms``)."""

    def wrapper(*args, **kwargs):
        single, nums = _argnums(argnums, len(args))
        if batched_transforms.active():
            return batched_transforms.outermost(
                lambda: batched_transforms.batched_grad_and_value(
                    func, args, kwargs, single, nums, _flatten, _unflatten, has_aux),
                wrapper, args, kwargs)
        xs = list(args)
        groups, specs = [], []
        nested = forward_ad.LEVEL[0] is not None
        for i in nums:
            flat, spec = _flatten(args[i])
            _check_floating(flat, "grad(f)(*args)")
            nested = nested or any(a._requires_grad for a in flat)
            groups.append(flat)
            specs.append(spec)
        for k, i in enumerate(nums):
            groups[k] = [_leaf(a) for a in groups[k]]
            xs[i] = _unflatten(groups[k], specs[k])
        with enable_grad(), transform_depth.transform():
            out = func(*xs, **kwargs)
            aux = None
            if has_aux:
                if not isinstance(out, tuple) or len(out) != 2:
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True. Fix: return (loss, aux).")
                out, aux = out
            if not isinstance(out, Tensor) or out._data.size != 1:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {getattr(out, 'ndim', 0)} dims. Maybe you wanted to "
                    "use the vjp or jacrev APIs instead? Fix: reduce the output, e.g. .sum().")
            flat = [x for group in groups for x in group]
            grads = autograd.grad(out, flat, create_graph=nested, allow_unused=True) \
                if out._requires_grad else [None] * len(flat)
        grad = batched_transforms.regroup(
            grads, groups, specs, _unflatten, single,
            lambda g, x: make(np.zeros_like(x._data), None) if g is None else _result(g, nested))
        value = _result(out, nested)
        return (grad, (value, aux)) if has_aux else (grad, value)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (its output a one-element tensor) w.r.t. argument(s)
    ``argnums``, as a function (with ``has_aux``: ``(gradient, aux)``)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def jvp(func, primals, tangents):
    """``(f(*primals), J v)`` in one forward pass: each op carries the tangent along."""
    primals, tangents = tuple(primals), tuple(tangents)
    flat, spec = _flatten(primals)  # pytrees: a dict of weights, nested tuples
    flat_t, spec_t = _flatten(tangents)
    if spec != spec_t:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           "the same python structure. For example, if primals is a tuple of "
                           "3 tensors, tangents also must be. Fix: give the tangents the "
                           "primals' tuple/list/dict structure, one tangent per primal.")
    _check_floating(flat, "jvp(f, primals, tangents)")
    nested = forward_ad.LEVEL[0] is not None  # inside another jvp: keep its tangents
    if batched_transforms.active():
        return batched_transforms.outermost(
            lambda: batched_transforms.batched_jvp(func, primals, tangents),
            lambda p, t: jvp(func, p, t), (primals, tangents), {})
    with forward_ad.transform_level(), transform_depth.transform():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(flat, flat_t, strict=True)]
        out = func(*_unflatten(duals, spec))
        outs, out_spec = _flatten(out)
        _check_outputs(outs, "jvp(f, primals, tangents)")
        values, out_tangents = [], []
        for o in outs:
            value, tangent = forward_ad.unpack_dual(o)
            out_tangents.append(make(np.zeros_like(o._data), None) if tangent is None
                                else tangent)
            values.append(value if nested else make(value._data, None))
    return _unflatten(values, out_spec), _unflatten(out_tangents, out_spec)
