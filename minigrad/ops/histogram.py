"""``torch.histogram`` (the makemore chapters' activation and gradient histograms): counts
in ``bins`` equal bins over ``range`` (the data's min and max by default), the bin edges
too; ``density=True`` scales the counts to integrate to 1. Not differentiable (as torch)."""

from collections import namedtuple

import numpy as np

__all__ = ["histogram"]

histogram_return = namedtuple("histogram", ["hist", "bin_edges"])


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    from minigrad.factories import _leaf

    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the "
                           f"same dtype, but got input {data.dtype}. Fix: x.float().")
    weights = None if weight is None else weight._data
    hist, edges = np.histogram(data, bins=bins, range=range, weights=weights,
                               density=density)
    return histogram_return(_leaf(hist.astype(data.dtype), False),
                            _leaf(edges.astype(data.dtype), False))
