r"""``var`` and ``std`` with torch's ``correction`` (chapter 09's BatchNorm, makemore's
statistics): $\mathrm{var}(x) = \sum_i (x_i - \bar x)^2 / (N - c)$, $c = 1$ (Bessel's
correction, torch's default) unless ``unbiased=False`` or ``correction=`` says otherwise.

Built out of differentiable ops (mean, subtraction, square, sum), so the gradient is
torch's, $2 (x_i - \bar x) / (N - c)$, and higher derivatives come for free.
"""

import math

__all__ = ["var"]


def _count(shape, dim):
    if dim is None:
        return math.prod(shape)
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    return math.prod(shape[d] for d in dims)


def var(x, dim=None, unbiased=None, keepdim=False, correction=None):
    """torch's ``Tensor.var(dim, unbiased, keepdim, *, correction)``."""
    if isinstance(dim, bool):  # x.var(False): the old (unbiased) signature
        dim, unbiased = None, dim
    if x._data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes. "
                           "Fix: x.double().var() (or .float()).")
    if unbiased is not None and correction is not None:
        raise TypeError("var() received an invalid combination of arguments - got both "
                        "unbiased and correction. Fix: give only correction= (unbiased=False "
                        "is correction=0).")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    if isinstance(dim, list):
        dim = tuple(dim)
    n = _count(x._data.shape, dim)
    centred = x - (x.mean() if dim is None else x.mean(dim, keepdim=True))
    squares = centred * centred
    total = squares.sum() if dim is None else squares.sum(dim, keepdim=keepdim)
    return total / max(n - c, 0)
