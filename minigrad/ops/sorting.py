r"""``sort``, ``argsort`` and ``topk`` (chapter 05's indexing, by value): the values are
the input's elements in a new order, so the gradient goes back to where each came from
-- indexing with the sorted indices (torch's ``SortBackward0``, ``TopkBackward0``).

As torch, NaN sorts as the largest value, ties keep their order (a stable sort), and
``topk`` returns the ``k`` largest (``largest=False``: smallest) first. The indices are an
int64 tensor outside the graph.
"""

from collections import namedtuple

import numpy as np

from minigrad.autograd.function import constant
from minigrad.ops.indexing import Index
from minigrad.ops.shape import dim_index

__all__ = ["sort", "argsort", "topk"]

_Sort = namedtuple("sort", ["values", "indices"])
_Topk = namedtuple("topk", ["values", "indices"])
_Sort.__repr__ = lambda self: (f"minigrad.return_types.sort(\nvalues={self.values!r},"
                               f"\nindices={self.indices!r})")
_Topk.__repr__ = lambda self: (f"minigrad.return_types.topk(\nvalues={self.values!r},"
                               f"\nindices={self.indices!r})")


class Sort(Index):
    backward_name = "SortBackward0"


class Topk(Index):
    backward_name = "TopkBackward0"


def _order(data, dim, descending):
    """Stable indices along ``dim``; NaN counts as the largest value."""
    if not descending:
        return np.argsort(data, axis=dim, kind="stable")
    n = data.shape[dim]
    flipped = np.argsort(np.flip(data, dim), axis=dim, kind="stable")
    return n - 1 - np.flip(flipped, dim)  # ties still in their original order


def _key(indices, dim):
    key = list(np.indices(indices.shape, sparse=True))
    key[dim] = indices
    return tuple(key)


def _picked(cls, input, indices, dim):  # noqa: A002 - torch's argument name
    if not input._data.ndim:
        return cls.apply(input, (Ellipsis,))
    return cls.apply(input, _key(indices, dim))


def _batched(input, dim, run, pair):  # noqa: A002 - torch's argument name
    """Inside vmap: the op on the physical tensor (its dim one further on), the values and
    the indices batched again (a sample's stand-in data has no numbers to sort)."""
    from minigrad._functorch.batched import BatchedTensor, wrap

    if not isinstance(input, BatchedTensor) or not input._data.ndim:
        return None
    out = run(input._value, dim + 1)
    return pair(wrap(out.values, input._level), wrap(out.indices, input._level))


def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002 - torch's name
    dim = dim_index(dim, input._data.ndim)
    batched = _batched(input, dim, lambda v, d: sort(v, d, descending, stable), _Sort)
    if batched is not None:
        return batched
    if not input._data.ndim:
        return _Sort(_picked(Sort, input, None, 0), constant(np.zeros((), np.int64)))
    indices = _order(input._data, dim, descending).astype(np.int64)
    return _Sort(_picked(Sort, input, indices, dim), constant(indices))


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002 - torch's name
    return sort(input, dim, descending, stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's names
    dim = dim_index(dim, input._data.ndim)
    batched = _batched(input, dim, lambda v, d: topk(v, k, d, largest, sorted), _Topk)
    if batched is not None:
        return batched
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range. Fix: k is at most {size}, the "
                           "size of the dimension.")
    if not input._data.ndim:
        return _Topk(_picked(Topk, input, None, 0), constant(np.zeros((), np.int64)))
    indices = _order(input._data, dim, largest).astype(np.int64)
    indices = np.take(indices, range(k), axis=dim)
    return _Topk(_picked(Topk, input, indices, dim), constant(indices))
