r"""Jacobians and Hessians as functions: ``jacrev``, ``jacfwd``, ``hessian``, as
``torch.func`` (chapters 14 and 15).

The Jacobian of ``f: R^n -> R^m`` has shape ``f(x).shape + x.shape``: ``jacrev`` builds it
row by row (one backward pass per output element), ``jacfwd`` column by column (one
forward pass per input element, nested levels for ``jacfwd(jacfwd(f))``), and ``hessian``
is ``jacfwd(jacrev(f))``. As ``torch.func``, ``f`` may return several tensors (a tuple,
a dict): the result keeps that structure outside, one Jacobian per argnum inside, so
``hessian(f, argnums=(0, 1))`` is a tuple of tuples of blocks. Inside ``vmap`` both give
per-sample Jacobians (``batched_transforms``).
"""

import numpy as np

from minigrad import autograd
from minigrad._functorch.vmap import _flatten, _unflatten
from minigrad.autograd import forward_ad, transform_depth
from minigrad.autograd.grad_mode import enable_grad
from minigrad.func import batched_transforms
from minigrad.func.transforms import _argnums, _check_floating, _leaf
from minigrad.tensors import Tensor, make

__all__ = ["jacrev", "jacfwd", "hessian"]

def _with_aux(func, has_aux, store):
    """``func`` returning only its output; with ``has_aux`` its aux goes to ``store``."""
    if not has_aux:
        return func

    def inner(*args, **kwargs):
        out = func(*args, **kwargs)
        if not isinstance(out, tuple) or len(out) != 2:
            raise RuntimeError("jacrev(f, ...)(*args): output of function f should be a tuple: "
                               "(output, aux) if has_aux is True. Fix: return (output, aux).")
        store.append(out[1])
        return out[0]

    return inner


def _aux(store):
    """The aux output, cut from the graph and from tangents (pytrees of tensors)."""
    leaves, spec = _flatten(store[0])
    return _unflatten([make(a._data, None) if isinstance(a, Tensor) and
                       not hasattr(a, "_value") else a for a in leaves], spec)


def jacrev(func, argnums=0, *, has_aux=False):
    """The Jacobian by rows: one backward pass per element of ``func``'s output (with
    ``has_aux``: ``(jacobian, aux)``)."""
    store = []
    plain = _with_aux(func, has_aux, store)

    def wrapper(*args, **kwargs):
        store.clear()
        jac = _jacrev(plain, argnums, args, kwargs)
        return (jac, _aux(store)) if has_aux else jac

    return wrapper


def _jacrev(func, argnums, args, kwargs):
    single, nums = _argnums(argnums, len(args))
    if batched_transforms.active():
        return batched_transforms.outermost(
            lambda: batched_transforms.batched_jacrev(func, args, kwargs, single, nums,
                                                      _flatten, _unflatten),
            lambda *a, **k: _jacrev(func, argnums, a, k), args, kwargs)
    chosen = [args[i] for i in nums]
    _check_floating(chosen, "jacrev(f)(*args)")
    nested = any(a._requires_grad for a in chosen) or forward_ad.LEVEL[0] is not None
    xs = list(args)
    for i in nums:
        xs[i] = _leaf(args[i])
    wanted = [xs[i] for i in nums]
    with enable_grad(), transform_depth.transform():
        tree = func(*xs, **kwargs)
    outs, spec = _flatten(tree)
    return _unflatten([_jacrev_rows(out, wanted, nested, single) for out in outs], spec)


def _jacrev_rows(out, wanted, nested, single):
    """One output's Jacobians (one per input in ``wanted``), row by row."""
    rows = [[] for _ in wanted]
    for k in range(out._data.size):
        onehot = np.zeros(out._data.size, dtype=out._data.dtype)
        onehot[k] = 1
        with enable_grad():
            grads = autograd.grad(out, wanted, make(onehot.reshape(out._data.shape), None),
                                  retain_graph=True, create_graph=nested,
                                  allow_unused=True) if out._requires_grad else (
                [None] * len(wanted))  # an output independent of the inputs: zeros, as torch
        for r, g, x in zip(rows, grads, wanted, strict=True):
            r.append(make(np.zeros_like(x._data), None) if g is None else g)
    jacobians = tuple(_stack(r, out._data.shape, x._data.shape, nested)
                      for r, x in zip(rows, wanted, strict=True))
    return jacobians[0] if single else jacobians


def _stack(rows, out_shape, in_shape, nested):
    """Rows (one gradient per output element) as one tensor of shape out + in. With a
    graph (nested reverse mode) the rows are joined by recorded ops, so an outer
    transform differentiates through them; a tangent is stacked alongside."""
    shape = tuple(out_shape) + tuple(in_shape)
    if nested and forward_ad.LEVEL[0] is None:
        flat = [r.reshape(1, -1) for r in rows]
        total = None
        n = len(flat)
        for k, r in enumerate(flat):  # sum of r_k placed in row k: recorded
            place = np.zeros((n, 1), dtype=r._data.dtype)
            place[k, 0] = 1
            term = make(place, None) * r
            total = term if total is None else total + term
        return total.reshape(shape) if total is not None else make(np.zeros(shape), None)
    data = np.stack([r._data.reshape(-1) for r in rows]).reshape(shape) if rows else \
        np.zeros(shape)
    out = make(data, None)
    tangents = [r._fw_tangent for r in rows]
    if forward_ad.LEVEL[0] is not None and any(t is not None for t in tangents):
        tangent = np.stack([np.zeros(r._data.size, r._data.dtype) if t is None else
                            t.reshape(-1) for r, t in zip(rows, tangents, strict=True)])
        forward_ad._attach(out, tangent.reshape(shape))
    return out


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by columns: one forward pass per element of the input(s) (with
    ``has_aux``: ``(jacobian, aux)``). Inside ``vmap`` the per-sample Jacobians come from
    the batched reverse pass (the same values)."""
    store = []
    plain = _with_aux(func, has_aux, store)

    def wrapper(*args, **kwargs):
        store.clear()
        if batched_transforms.active():
            single, nums = _argnums(argnums, len(args))
            jac = batched_transforms.outermost(
                lambda: batched_transforms.batched_jacrev(plain, args, kwargs, single, nums,
                                                          _flatten, _unflatten),
                lambda *a, **k: _jacfwd(plain, argnums, a, k), args, kwargs)
        else:
            jac = _jacfwd(plain, argnums, args, kwargs)
        return (jac, _aux(store[:1])) if has_aux else jac

    return wrapper


def _jacfwd(func, argnums, args, kwargs):
    single, nums = _argnums(argnums, len(args))
    _check_floating([args[i] for i in nums], "jacfwd(f)(*args)")
    nested = forward_ad.LEVEL[0] is not None  # jacfwd(jacfwd(f)): columns keep tangents
    per_input, spec, shapes = [], None, None
    for i in nums:
        x = args[i]
        columns = []  # per column: one flat tangent per output leaf
        for j in range(x._data.size):
            onehot = np.zeros(x._data.size, dtype=x._data.dtype)
            onehot[j] = 1
            tangents = [make(np.zeros_like(a._data), None) if isinstance(a, Tensor) and
                        a._data.dtype.kind == "f" else None for a in args]
            tangents[i] = make(onehot.reshape(x._data.shape), None)
            with forward_ad.transform_level(), transform_depth.transform():
                duals = [forward_ad.make_dual(a, t) if t is not None else a
                         for a, t in zip(args, tangents, strict=True)]
                outs, spec = _flatten(func(*duals, **kwargs))
                columns.append([_column(out, nested) for out in outs])
            shapes = [out._data.shape for out in outs]
        if shapes is None:  # no element to perturb: shapes from a plain run
            with transform_depth.transform():
                outs, spec = _flatten(func(*args, **kwargs))
            shapes = [out._data.shape for out in outs]
        per_input.append([_join([c[k] for c in columns], shape + x._data.shape, nested)
                          for k, shape in enumerate(shapes)])
    leaves = [per_input[0][k] if single else tuple(p[k] for p in per_input)
              for k in range(len(shapes))]
    return _unflatten(leaves, spec)


def _column(out, nested):
    """``out``'s tangent, flat (zeros where it has none); a tensor when ``nested``."""
    _, tangent = forward_ad.unpack_dual(out)
    if nested:
        column = make(np.zeros_like(out._data), None) if tangent is None else tangent
    else:
        column = np.zeros_like(out._data) if tangent is None else tangent._data
    return column.reshape(-1)


def _join(columns, shape, nested):
    """Columns side by side, shaped output + input."""
    if nested and columns:
        from minigrad.ops.joining import stack
        return stack(columns, -1).reshape(shape)
    data = np.stack(columns, axis=-1) if columns else np.zeros((0,))
    return make(data.reshape(shape), None)


def hessian(func, argnums=0):
    """Second derivatives, ``jacfwd(jacrev(func))``: forward mode over reverse mode."""
    return jacfwd(jacrev(func, argnums), argnums)
