"""``permute`` and ``movedim`` (alias ``moveaxis``): the dimensions reordered (chapter 06).

Both are one ``Permute`` node (torch's ``PermuteBackward0``), the op behind ``.T``: the
result is a view, and the backward applies the inverse permutation to the gradient.
``movedim(source, destination)`` moves the listed dimensions to the new places and keeps
the others in their order, as torch's (and numpy's ``moveaxis``).
"""

from minigrad.ops.shape import Permute, dim_index

__all__ = ["permute", "movedim", "moveaxis"]


def _dims(dims):
    if len(dims) == 1 and isinstance(dims[0], tuple | list):
        return tuple(dims[0])
    return tuple(dims)


def permute(input, *dims):  # noqa: A002 - torch's argument name
    """``t.permute(2, 0, 1)`` or ``permute(t, (2, 0, 1))``: dimension ``dims[i]`` becomes i."""
    dims = _dims(dims)
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                           f"does not match the length of the desired ordering of dimensions "
                           f"i.e. input.dim() = {ndim} is not equal to len(dims) = "
                           f"{len(dims)}. Fix: name every dimension once.")
    dims = tuple(dim_index(d, ndim) for d in dims)
    if len(set(dims)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed. Fix: name every "
                           "dimension once.")
    return Permute.apply(input, dims)


def movedim(input, source, destination):  # noqa: A002 - torch's argument name
    """Move dimension(s) ``source`` to position(s) ``destination``."""
    source = tuple(source) if isinstance(source, tuple | list) else (source,)
    destination = (tuple(destination) if isinstance(destination, tuple | list)
                   else (destination,))
    ndim = input._data.ndim
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({list(source)} dims) should contain the same number of dims as "
                           f"destination ({list(destination)} dims). Fix: pair each source "
                           "with one destination.")
    src = [dim_index(d, ndim) for d in source]
    dst = [dim_index(d, ndim) for d in destination]
    for name, given, normalized in (("source", source, src), ("destination", destination,
                                                                dst)):
        if len(set(normalized)) != len(normalized):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)}). Fix: "
                               "name each dimension once.")
    if ndim == 0:  # torch: the 0-d tensor itself (an alias), dims checked as for 1-d
        return Permute.apply(input, ())
    order = [None] * ndim
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = tuple(next(rest) if o is None else o for o in order)
    return Permute.apply(input, order)


moveaxis = movedim
