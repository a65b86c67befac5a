r"""``isclose``, ``allclose`` and ``equal``: comparing whole tensors (chapters 05-16).

``isclose`` is elementwise, :math:`|a - b| \le \text{atol} + \text{rtol}\,|b|` (infinities
close only to themselves, NaN to NaN only with ``equal_nan=True``), a bool tensor;
``allclose`` is ``isclose(...).all()`` as a Python bool. Both want two tensors of one
dtype, broadcasting together, as torch. ``equal`` is True when the shapes and every
value are the same (dtypes may differ: the values are compared, as torch does); NaN is
never equal to itself. None of them records a graph.
"""

import numpy as np

from minigrad import tensors
from minigrad.dtypes import torch_name
from minigrad.ops.arithmetic import broadcast_error

__all__ = ["isclose", "allclose", "equal"]


def _tensor(value, function, position, name):
    if not isinstance(value, tensors.Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                        f"Tensor, not {type(value).__name__}. Fix: wrap it, "
                        "minigrad.tensor(value).")
    return value.data


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    a = _tensor(input, "isclose", 1, "input")
    b = _tensor(other, "isclose", 2, "other")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{torch_name(a.dtype)} did not match {torch_name(b.dtype)}. Fix: "
                           "convert one first, e.g. b.to(a.dtype).")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}. "
                           "Fix: a tolerance is >= 0.")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}. "
                           "Fix: a tolerance is >= 0.")
    error = broadcast_error(a, b)
    if error is not None:
        raise error
    if a.dtype.kind == "b":
        a, b = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return tensors.make(np.asarray(close), None)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    return bool(isclose(input, other, rtol, atol, equal_nan).data.all())


def equal(input, other):  # noqa: A002 - torch's argument names
    a = _tensor(input, "equal", 1, "input")
    b = _tensor(other, "equal", 2, "other")
    return a.shape == b.shape and bool(np.all(a == b))
