r"""``grad`` and ``jacrev`` inside ``vmap``: per-sample derivatives (chapter 15).

Inside ``vmap`` the arguments are batched tensors. Each argument that is differentiated
becomes one leaf holding every sample (its batch dimensions at the front, one per running
``vmap``; an argument shared by the samples is repeated, so each sample has its own copy),
the function runs on the whole batch (the ops' batching rules record one graph), and one
backward pass from the sum of the per-sample outputs gives every sample's gradient at
once: the samples never mix, so the gradient of the sum is each one's own gradient. This is
``vmap(grad(f))`` of torch's per-sample-gradients tutorial.

A transform nested in another (``vmap(hessian(f))``, ``vmap(jacrev(jacrev(f)))``,
``vmap(jacfwd(jacrev(f)))``, ``vmap(jacrev(grad(f)))``, a ``vjp`` of a ``grad``) would
start from fresh leaves and lose the outer one's derivative on the one-graph path, so
:func:`outermost` runs the outer transform on each sample alone, outside vmap, where the
transforms nest as usual, and stacks the results: torch's numbers, one pass per sample.
"""

import itertools

import numpy as np

from minigrad import autograd, tensors
from minigrad._functorch import batched
from minigrad.autograd.grad_mode import enable_grad

__all__ = ["active", "regroup", "batched_grad_and_value", "batched_jacrev", "batched_vjp",
           "batched_jvp", "outermost"]


RUNNING = [0]  # how many of this module's transforms are running their function


def active():
    return bool(batched.LEVELS)


class _Nested(NotImplementedError):
    """A transform started inside another one's batched pass (:func:`outermost` catches
    it and runs the outer transform sample by sample)."""


class _running:
    """While a transform here runs ``func``, another one inside it would start from fresh
    leaves and drop the outer one's derivative (vmap(hessian(f)) gave zeros): refuse, and
    let the outer transform take the per-sample path."""

    def __enter__(self):
        if RUNNING[0]:
            raise _Nested(
                "a transform nested in another one's batched pass under vmap. Fix: "
                "outermost() runs the outer transform sample by sample.")
        RUNNING[0] += 1

    def __exit__(self, *exc):
        RUNNING[0] -= 1
        return False


def outermost(batched_call, transform, args, kwargs):
    r"""``batched_call()``, the one-graph path, unless ``func`` starts another transform
    (``vmap(hessian(f))``, ``vmap(jacrev(jacrev(f)))``, ``vmap(jacfwd(jacrev(f)))``):
    then ``transform`` runs on each sample alone, outside vmap, where transforms nest, and
    the results are stacked into batched tensors (torch gets the same numbers by batching
    rules all the way down; here the samples take one pass each)."""
    if RUNNING[0]:  # inside another transform's pass: let the outermost one decide
        return batched_call()
    try:
        return batched_call()
    except _Nested:
        return _per_sample(transform, args, kwargs)


def _per_sample(transform, args, kwargs):
    return _stacked(_each_sample(lambda n, a, k: transform(*a, **k), args, kwargs))


def _each_sample(call, args, kwargs):
    """``call(n, args, kwargs)`` for sample ``n`` of every running vmap, outside vmap."""
    from minigrad._functorch.vmap import _flatten, _unflatten

    levels = sorted(batched.LEVELS)
    sizes = [batched.LEVELS[level].batch_size for level in levels]
    flat, spec = _flatten((args, kwargs))
    arrays = [_spread(t, levels) if isinstance(t, batched.BatchedTensor) else None
              for t in flat]
    saved = dict(batched.LEVELS)
    results = []
    batched.LEVELS.clear()  # each sample on its own: the transforms run unbatched
    try:
        for n, index in enumerate(itertools.product(*[range(s) for s in sizes])):
            sample = [t if a is None else tensors.make(np.array(a[index]), None)
                      for a, t in zip(arrays, flat, strict=True)]
            a, k = _unflatten(sample, spec)
            results.append(_flatten(call(n, a, k)))
    finally:
        batched.LEVELS.update(saved)
    if not results:
        raise NotImplementedError("minigrad cannot nest transforms under a vmap of an empty "
                                  "batch. Fix: vmap over a batch of at least one sample.")
    return results, levels, sizes


def _stacked(found):
    """The samples' results as batched tensors (a function, vjp's, as one that takes a
    batched cotangent and calls each sample's own)."""
    from minigrad._functorch.vmap import _unflatten

    results, levels, sizes = found
    stacked = []
    for j, first in enumerate(results[0][0]):
        if callable(first) and not isinstance(first, tensors.Tensor):
            fns = [r[0][j] for r in results]
            stacked.append(lambda *c, fns=fns: _stacked(_each_sample(
                lambda n, a, k: fns[n](*a, **k), c, {})))
        elif not isinstance(first, tensors.Tensor):
            stacked.append(first)
        else:
            data = np.stack([r[0][j]._data for r in results]).reshape(tuple(sizes) +
                                                                      first._data.shape)
            stacked.append(batched.from_physical(tensors.make(data, None), levels))
    return _unflatten(stacked, results[0][1])


def _spread(t, levels):
    """``t``'s numbers with a batch dimension for each of ``levels`` (repeated where ``t``
    is shared), a new array."""
    p, have = batched.to_physical(t)
    arr = p._data
    pos = 0
    for level in levels:
        if level not in have:
            arr = np.expand_dims(arr, pos)
        pos += 1
    sizes = tuple(batched.LEVELS[level].batch_size for level in levels)
    return np.array(np.broadcast_to(arr, sizes + arr.shape[len(levels):]))


def _leaf(t, levels):
    """A fresh leaf with every sample of ``t`` at every level, and its batched view."""
    leaf = tensors.make(_spread(t, levels), None)
    leaf.requires_grad_()
    return leaf, batched.from_physical(leaf, levels)


def _run(func, args, kwargs, nums, flatten, unflatten):
    levels = sorted(batched.LEVELS)
    args = list(args)
    leaves, specs = [], []
    for i in nums:
        flat, spec = flatten(args[i])
        made = [_leaf(t, levels) for t in flat]
        leaves.append([m[0] for m in made])
        specs.append(spec)
        args[i] = unflatten([m[1] for m in made], spec)
    with _running(), enable_grad():
        out = func(*args, **kwargs)
    return levels, leaves, specs, out


def batched_grad_and_value(func, args, kwargs, single, nums, flatten, unflatten, has_aux):
    levels, leaves, specs, out = _run(func, args, kwargs, nums, flatten, unflatten)
    aux = None
    if has_aux:
        out, aux = out
    po, out_levels = batched.to_physical(out)
    if int(np.prod(po._data.shape[len(out_levels):])) != 1:
        raise RuntimeError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
            f"tensor with {out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs "
            "instead? Fix: reduce the output, e.g. .sum().")
    flat = [leaf for group in leaves for leaf in group]
    with enable_grad():
        grads = autograd.grad(po.sum(), flat, allow_unused=True) if po.requires_grad \
            else [None] * len(flat)

    def item(g, leaf):
        g = tensors.make(np.zeros_like(leaf._data) if g is None else g._data, None)
        return batched.from_physical(g, levels)

    grad = regroup(grads, leaves, specs, unflatten, single, item)
    value = batched.from_physical(tensors.make(po._data, None), out_levels)
    return (grad, (value, aux)) if has_aux else (grad, value)


def regroup(grads, groups, specs, unflatten, single, item):
    """``grad_and_value``'s flat gradients back into the arguments' structures, each made
    by ``item(g, x)`` (``g`` None for an input the output does not use): one structure,
    or a tuple of them."""
    grads = iter(grads)
    results = [unflatten([item(next(grads), x) for x in group], spec)
               for group, spec in zip(groups, specs, strict=True)]
    return results[0] if single else tuple(results)


def batched_jacrev(func, args, kwargs, single, nums, flatten, unflatten):
    """One backward per element of a sample's output: every sample's row at once (an
    output that is a tuple, list or dict: one Jacobian per tensor in it, in its place)."""
    levels, leaves, specs, out = _run(func, args, kwargs, nums, flatten, unflatten)
    if isinstance(out, tensors.Tensor):
        return _jacobians_of(out, levels, leaves, specs, single, unflatten)
    flat_out, out_spec = flatten(out)
    return unflatten([_jacobians_of(o, levels, leaves, specs, single, unflatten)
                      for o in flat_out], out_spec)


def _jacobians_of(out, levels, leaves, specs, single, unflatten):
    """The Jacobians of one output tensor with respect to every leaf, per sample."""
    po, out_levels = batched.to_physical(out)
    if out_levels != levels:  # an output shared by the samples: repeat it
        po, _ = _leaf(out, levels)
        po = po.detach()
    nb = len(levels)
    out_shape = po._data.shape[nb:]
    size = int(np.prod(out_shape))
    rows = po.reshape(po._data.shape[:nb] + (size,))
    flat = [leaf for group in leaves for leaf in group]
    per_leaf = [[] for _ in flat]
    for k in range(size):
        with enable_grad():
            picked = rows[(slice(None),) * nb + (k,)].sum()
            grads = (autograd.grad(picked, flat, retain_graph=True, allow_unused=True)
                     if picked.requires_grad else [None] * len(flat))
        for store, g, leaf in zip(per_leaf, grads, flat, strict=True):
            store.append(np.zeros_like(leaf._data) if g is None else g._data)
    jacobians = []
    for store, leaf in zip(per_leaf, flat, strict=True):
        in_shape = leaf._data.shape[nb:]
        data = (np.stack(store, axis=nb) if store else
                np.zeros(leaf._data.shape[:nb] + (0,) + in_shape))
        data = data.reshape(leaf._data.shape[:nb] + out_shape + in_shape)
        jacobians.append(batched.from_physical(tensors.make(data, None), levels))
    it = iter(jacobians)
    results = [unflatten([next(it) for _ in group], spec)
               for group, spec in zip(leaves, specs, strict=True)]
    return results[0] if single else tuple(results)


def batched_vjp(func, primals):
    """``vjp`` inside ``vmap``: ``vjp_fn(u)`` gives every sample's ``u^T J`` at once."""
    levels = sorted(batched.LEVELS)
    made = [_leaf(p, levels) for p in primals]
    leaves = [m[0] for m in made]
    with _running(), enable_grad():
        out = func(*[m[1] for m in made])
    po, out_levels = batched.to_physical(out)

    def vjp_fn(cotangent):
        cot = tensors.make(_spread(cotangent, out_levels).astype(po._data.dtype), None)
        with enable_grad():
            grads = (autograd.grad(po, leaves, cot, retain_graph=True, allow_unused=True)
                     if po.requires_grad else [None] * len(leaves))
        return tuple(batched.from_physical(tensors.make(
            np.zeros_like(leaf._data) if g is None else g._data, None), levels)
            for g, leaf in zip(grads, leaves, strict=True))

    return batched.from_physical(tensors.make(po._data, None), out_levels), vjp_fn


def batched_jvp(func, primals, tangents):
    """``jvp`` inside ``vmap``: the physical tensors carry the tangents, so each op's
    batching rule runs the op once with every sample's tangent."""
    from minigrad.autograd import forward_ad

    levels = sorted(batched.LEVELS)
    with forward_ad.transform_level():
        duals = [forward_ad.make_dual(tensors.make(_spread(p, levels), None),
                                      tensors.make(_spread(t, levels), None))
                 for p, t in zip(primals, tangents, strict=True)]
        with _running():
            out = func(*[batched.from_physical(d, levels) for d in duals])
        po, out_levels = batched.to_physical(out)
        _, tangent = forward_ad.unpack_dual(po)
        data = np.zeros_like(po._data) if tangent is None else tangent._data
    return (batched.from_physical(tensors.make(po._data, None), out_levels),
            batched.from_physical(tensors.make(data, None), out_levels))
