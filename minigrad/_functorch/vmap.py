r"""``vmap(func, in_dims, out_dims)``: a function of one sample, run on a batch (chapter 15).

As ``torch.func.vmap``: each argument's batch dimension is named by ``in_dims`` (an int,
None for an argument shared by every sample, or a nested tuple/list/dict matching the
arguments), the function sees one sample (:class:`~minigrad._functorch.batched.
BatchedTensor`), each op runs once on the whole batch by its batching rule
(``ops/batching.py``), and the outputs get their batch dimension at ``out_dims``.
``vmap`` nests (each call is a new level), and ``vmap(grad(f))`` gives per-sample
gradients.
"""

import functools

from minigrad import tensors
from minigrad._functorch import batched
from minigrad.autograd import transform_depth

__all__ = ["vmap"]

_NEXT = [0]


def _name(func):
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def _flatten(tree):
    """Leaves and a structure (torch's pytrees: tuples, lists, dicts)."""
    if isinstance(tree, tuple | list):
        leaves, specs = [], []
        for t in tree:
            lv, sp = _flatten(t)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), tuple(specs))
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k in tree:
            lv, sp = _flatten(tree[k])
            leaves += lv
            specs.append((k, sp))
        return leaves, (dict, tuple(specs))
    return [tree], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(sp):
        if sp is None:
            return next(it)
        kind, children = sp
        if kind is dict:
            return {k: build(c) for k, c in children}
        items = [build(c) for c in children]
        return tuple(items) if kind is tuple else (list(items) if kind is list else
                                                   kind(*items))
    return build(spec)


def _broadcast(dims, spec, where):
    """``dims`` (an int/None, or a tree matching a prefix of ``spec``) per leaf."""
    if dims is None or isinstance(dims, int):
        return [dims] * _count(spec)
    if spec is None or not isinstance(dims, tuple | list | dict) or (
            (dict if isinstance(dims, dict) else type(dims)) is not spec[0] and
            not (isinstance(dims, tuple | list) and spec[0] in (tuple, list))):
        raise ValueError(where)
    kind, children = spec
    if isinstance(dims, dict):
        keys = [k for k, _ in children]
        if sorted(map(str, dims)) != sorted(map(str, keys)):
            raise ValueError(where)
        return [d for k, c in children for d in _broadcast(dims[k], c, where)]
    if len(dims) != len(children):
        raise ValueError(where)
    return [d for dim, c in zip(dims, children, strict=True) for d in _broadcast(dim, c, where)]


def _count(spec):
    if spec is None:
        return 1
    kind, children = spec
    return sum(_count(c[1] if kind is dict else c) for c in children)


def _structure(spec):
    if spec is None:
        return "*"
    kind, children = spec
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_structure(c)}" for k, c in children) + "}"
    inner = ", ".join(_structure(c) for c in children)
    return f"({inner},)" if kind is tuple and len(children) == 1 else (
        f"({inner})" if kind is tuple else f"[{inner}]")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a batch dimension of its inputs; see the module doc."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}. Fix: pick one of those three.")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size}) Fix: a positive int, or None for one chunk.")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = _name(func)
        if not isinstance(in_dims, int | tuple):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be "
                "int or a (potentially nested) tuple matching the structure of inputs, got: "
                f"{type(in_dims)}. Fix: write in_dims as a tuple, one entry per argument.")
        if not args:
            raise ValueError(
                f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                "you are trying to vmap over a function with no inputs. The latter is "
                "unsupported. Fix: pass the batched tensors as arguments.")
        leaves, spec = _flatten(args)
        dims_tree = in_dims if not isinstance(in_dims, int) and in_dims is not None else in_dims
        mismatch = (f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                    "compatible with the structure of `inputs`. in_dims has structure "
                    f"{_structure(_flatten(in_dims)[1])} but inputs has structure "
                    f"{_structure(spec)}. Fix: one in_dim per argument (None for a shared "
                    "one).")
        dims = _broadcast(dims_tree, spec, mismatch)
        sizes = []
        for leaf, d in zip(leaves, dims, strict=True):
            if d is None:
                continue
            if not isinstance(d, int) or isinstance(d, bool):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                    "input but in_dim must be either an integer dimension or None. Fix: an "
                    "int or None.")
            if not isinstance(leaf, tensors.Tensor):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                    f"input but the input is of type {type(leaf)}. We cannot vmap over "
                    "non-Tensor arguments, please use None as the respective in_dim. Fix: "
                    "in_dim None for it.")
            n = leaf.ndim
            if not -n <= d < n:
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for "
                    f"some input, but that input is a Tensor of dimensionality {n} so "
                    f"expected in_dim to satisfy -{n} <= in_dim < {n}. Fix: count the "
                    "input's dims.")
            sizes.append(leaf.shape[d])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over. Fix: give "
                             "some tensor input an in_dim that is not None.")
        if len(set(sizes)) != 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, "
                f"got sizes {sizes} for the mapped dimension. Fix: every batched input "
                "needs the same batch size.")
        size = sizes[0]
        step = size if chunk_size is None else chunk_size
        chunks = []
        for start in range(0, size, step) if size else [0]:
            stop = min(start + step, size)
            part = [leaf.movedim(d, 0)[start:stop] if d is not None and step != size else
                    (leaf.movedim(d, 0) if d is not None else leaf)
                    for leaf, d in zip(leaves, dims, strict=True)]
            chunks.append(_run(func, part, dims, spec, kwargs, stop - start, randomness,
                               out_dims, name))
        if len(chunks) == 1:
            return chunks[0]
        flat = [_flatten(c)[0] for c in chunks]
        out_leaves, out_spec = _flatten(chunks[0])
        odims = _broadcast(out_dims, out_spec, "out_dims")
        from minigrad.ops.joining import cat
        joined = [cat([f[i] for f in flat], d) if d is not None else flat[0][i]
                  for i, d in enumerate(odims)]
        return _unflatten(joined, out_spec)

    return wrapped


RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap. Fix: vmap(f, randomness='same'), or draw the numbers before vmap.")
RANDOM_UNBATCHED = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
    "appear like same randomness. Fix: fill a tensor of the batch (an input), or "
    "randomness='same'.")
RANDOM_UNSUPPORTED = (
    "vmap(randomness='different'): minigrad gives each sample its own draw only in randn, "
    "rand, randint, rand_like, randn_like and dropout. Fix: use one of "
    "those, randomness='same', or draw a batch of numbers before vmap and map over it.")


class _NoRandom:
    """Stands for the default generator inside a vmap: a random op that does not know
    vmap's randomness (:func:`random_tensor`) refuses; one that does finds the real
    generator in ``real``."""

    def __init__(self, message, real=None):
        self.message = message
        self.real = real

    def __getattr__(self, name):
        raise RuntimeError(self.message) if "error" in self.message else \
            NotImplementedError(self.message)


def random_tensor(draw, shape, generator, make, inplace_on=None):
    r"""A random op's result inside or outside vmap, as torch's randomness modes:
    ``draw(numpy_generator, shape)`` gives the numbers, ``make(array)`` the tensor.

    Outside vmap, one draw. Inside, a vmap with ``randomness='error'`` refuses;
    ``'same'`` draws once for the whole batch (an unbatched result, the same for every
    sample); ``'different'`` draws its batch size more (its dimension in front) and the
    result is batched at that level, so each sample gets its own numbers. ``inplace_on``:
    the tensor an in-place fill writes to (``normal_``), which must be batched at every
    ``'different'`` level (torch's refusal otherwise)."""
    from minigrad.generators import rng

    prefix, levels = [], []
    for level in sorted(batched.LEVELS):
        info = batched.LEVELS[level]
        if info.randomness == "error":
            raise RuntimeError(RANDOM_ERROR)
        if info.randomness == "different":
            if inplace_on is not None and level not in _levels_of(inplace_on):
                raise RuntimeError(RANDOM_UNBATCHED)
            prefix.append(info.batch_size)
            levels.append(level)
    source = rng(generator)
    source = source.real if isinstance(source, _NoRandom) else source
    t = make(draw(source, tuple(prefix) + tuple(shape)))
    for level in levels:
        t = batched.wrap(t, level)
    return t


def _levels_of(t):
    levels = set()
    while isinstance(t, batched.BatchedTensor):
        levels.add(t._level)
        t = t._value
    return levels


def _run(func, leaves, dims, spec, kwargs, size, randomness, out_dims, name):
    from minigrad.factories import GENERATOR

    _NEXT[0] += 1
    level = _NEXT[0]
    batched.LEVELS[level] = batched.VmapInfo(size, randomness)
    generator = GENERATOR[0]
    if randomness != "same":  # 'same': one draw, the same for every sample
        GENERATOR[0] = _NoRandom(RANDOM_ERROR if randomness == "error" else
                                 RANDOM_UNSUPPORTED, getattr(generator, "real", generator))
    try:
        inputs = [batched.wrap(leaf, level) if d is not None else leaf
                  for leaf, d in zip(leaves, dims, strict=True)]
        with transform_depth.transform():
            out = func(*_unflatten(inputs, spec), **kwargs)
    finally:
        del batched.LEVELS[level]
        GENERATOR[0] = generator
    out_leaves, out_spec = _flatten(out)
    if not isinstance(out_dims, int) and out_dims is not None and not isinstance(
            out_dims, tuple | list | dict):
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
            "python collection of ints representing where in the outputs the vmapped "
            "dimension should appear. Fix: an int per output.")
    if out_spec is None and isinstance(out_dims, tuple | list) and len(out_dims) == 1:
        odims = list(out_dims)
    else:
        odims = _broadcast(out_dims, out_spec,
                           f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                           "not compatible with the structure of `outputs`. out_dims has "
                           f"structure {_structure(_flatten(out_dims)[1])} but outputs has "
                           f"structure {_structure(out_spec)}. Fix: one out_dim per output.")
    results = [_unwrap(o, d, level, size, name) for o, d in zip(out_leaves, odims, strict=True)]
    return _unflatten(results, out_spec)


def _unwrap(out, out_dim, level, size, name):
    """An output of the mapped function with its batch dimension at ``out_dim``."""
    if not isinstance(out, tensors.Tensor):
        raise ValueError(
            f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(out)}. "
            "Did you mean to set out_dims= to None for output? Fix: return tensors.")
    if out_dim is None:
        if batched.is_batched_at(out, level):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                             "when out_dim is None. Fix: an out_dim for a batched output.")
        return out
    if batched.is_batched_at(out, level):
        value = out._value
    else:  # the same for every sample: repeated along a new batch dimension
        from minigrad.ops.joining import Stack
        value = Stack.apply(*([out] * size), 0) if size else out.unsqueeze(0)[0:0]
    n = value.ndim
    if out_dim != 0:
        value = value.movedim(0, out_dim % n)
    return value
