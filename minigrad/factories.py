"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``randn``, ``arange`` (chapter 05).
The others (``eye``, ``linspace``, ``full``, the ``*_like``) are in :mod:`minigrad.creation`.

Like torch, a tensor made from Python floats is ``float32``, from Python ints
``int64``; a numpy array keeps its dtype. ``randn`` and ``rand`` draw from minigrad's
own generator, reset by ``manual_seed`` (the numbers differ from torch's: a chapter that
compares with torch copies the same values into both).
"""

import numpy as np

from minigrad.devices import check_device
from minigrad.dtypes import to_dtype

__all__ = ["tensor", "zeros", "ones", "randn", "rand", "arange", "manual_seed", "as_array",
           "GENERATOR", "FloatTensor", "DoubleTensor", "LongTensor"]

GENERATOR = [np.random.default_rng(0)]


def manual_seed(seed):
    """Reset the generator behind ``randn`` and ``rand`` (and ``nn.Linear``'s init)."""
    GENERATOR[0] = np.random.default_rng(seed)
    return GENERATOR[0]


def as_array(data, dtype=None):
    """``data`` as a numpy array with torch's default dtypes."""
    if hasattr(data, "_data") and hasattr(data, "grad_fn"):  # a Tensor: copy its values
        data = data._data
    elif isinstance(data, list | tuple) and any(hasattr(d, "grad_fn") for d in data):
        data = [getattr(d, "_data", d) for d in data]
    if dtype is not None:
        return np.array(data, dtype=to_dtype(dtype))
    from_numpy = isinstance(data, np.ndarray | np.generic) or _numpy_float64(data)
    array = np.array(data)
    kind = array.dtype.kind
    if kind == "f" and not from_numpy:
        return array.astype(np.float32)
    if kind in "iu" and array.dtype != np.int64 and not from_numpy:
        return array.astype(np.int64)
    if kind not in "fiub":
        raise TypeError(f"cannot make a tensor of {array.dtype} values: use numbers")
    return array


def _numpy_float64(data):
    """Does a (nested) list hold an np.float64? torch then infers float64."""
    if isinstance(data, list | tuple):
        return any(_numpy_float64(d) for d in data)
    return isinstance(data, np.float64 | np.ndarray) and np.asarray(data).dtype == np.float64


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists, an array)."""
    check_device(device)
    return _leaf(as_array(data, dtype), requires_grad)


def FloatTensor(data):  # noqa: N802 - torch's legacy constructor
    """Old torch code's ``FloatTensor([[1, 2], [3, 4]])``: a float32 tensor."""
    return tensor(data, dtype="float32")


def DoubleTensor(data):  # noqa: N802 - torch's legacy constructor
    return tensor(data, dtype="float64")


def LongTensor(data):  # noqa: N802 - torch's legacy constructor
    return tensor(data, dtype="int64")


def _shape(size):
    if len(size) == 1 and isinstance(size[0], tuple | list):
        return tuple(size[0])
    return tuple(size)


def _leaf(array, requires_grad):
    from minigrad.tensors import Tensor, make

    t = make(array, None)
    if requires_grad:
        Tensor.requires_grad.fset(t, True)
    return t


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    check_device(device)
    return _leaf(np.zeros(_shape(size), to_dtype(dtype or "float32")), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones: ``ones(2, 3)`` or ``ones((2, 3))``."""
    check_device(device)
    return _leaf(np.ones(_shape(size), to_dtype(dtype or "float32")), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Standard normal samples from minigrad's generator (see ``manual_seed``)."""
    check_device(device)
    numpy_dtype = to_dtype(dtype or "float32")
    array = GENERATOR[0].standard_normal(_shape(size), dtype=np.float64).astype(numpy_dtype)
    return _leaf(array, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) from minigrad's generator."""
    check_device(device)
    numpy_dtype = to_dtype(dtype or "float32")
    array = GENERATOR[0].random(_shape(size), dtype=np.float64).astype(numpy_dtype)
    return _leaf(array, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """``arange(5)``, ``arange(1, 4)``, ``arange(0, 1, 0.25)``: int64 unless a float is
    given (a 0-d tensor counts as its number), as torch."""
    check_device(device)
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero. Fix: arange(start, end, step) with step "
                           "!= 0.")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign. Fix: "
                           "start < end with a positive step, or a negative step.")
    if dtype is None:
        is_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = "int64" if is_int else "float32"
    return _leaf(np.arange(start, end, step).astype(to_dtype(dtype)), requires_grad)


def _number(value):
    """A 0-d tensor (or numpy scalar) as its Python number."""
    if hasattr(value, "grad_fn") or isinstance(value, np.generic):
        return value.item()
    return value
