r"""``diag``: a vector on a matrix's diagonal, or a matrix's diagonal (chapter 15, where
``torch.func``'s examples compare a Jacobian with ``torch.diag(torch.cos(x))``).

Built from recorded ops (a vector times the identity, or an index), so it has a gradient,
a tangent and a batching rule through them.
"""

import numpy as np

from minigrad.autograd.function import constant

__all__ = ["diag"]


def diag(input, diagonal=0):  # noqa: A002 - torch's argument name
    """``torch.diag``: a 1-D tensor becomes the square matrix with it on diagonal
    ``diagonal``; a 2-D tensor gives that diagonal, a 1-D tensor."""
    ndim = input._data.ndim
    if ndim == 1:
        n = input._data.shape[0]
        size = n + abs(diagonal)
        place = np.zeros((n, size, size), dtype=input._data.dtype)
        rows = np.arange(n) + max(-diagonal, 0)
        place[np.arange(n), rows, rows + diagonal] = 1
        return (input.reshape(n, 1, 1) * constant(place)).sum(0)
    if ndim == 2:
        rows, cols = input._data.shape
        start_r, start_c = max(-diagonal, 0), max(diagonal, 0)
        count = max(min(rows - start_r, cols - start_c), 0)
        index = np.arange(count)
        return input[(index + start_r).tolist(), (index + start_c).tolist()]
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D. Fix: pass a "
                       "vector or a matrix.")
