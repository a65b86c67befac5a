"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``randn``, ``arange`` (chapter 05).
The others (``eye``, ``linspace``, ``full``, the ``*_like``) are in :mod:`minigrad.creation`.

Like torch, a tensor made from Python floats is ``float32``, from Python ints
``int64``; a numpy array keeps its dtype. ``randn`` and ``rand`` draw from minigrad's
own generator, reset by ``manual_seed`` (the numbers differ from torch's: a chapter that
compares with torch copies the same values into both).
"""

import math

import numpy as np

from minigrad.devices import check_device
from minigrad.dtypes import to_dtype

__all__ = ["tensor", "zeros", "ones", "randn", "rand", "arange", "manual_seed", "as_array",
           "check_bool", "GENERATOR", "FloatTensor", "DoubleTensor", "LongTensor"]

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
    nested = isinstance(data, list | tuple)
    if dtype is not None and not nested:
        return np.array(data, dtype=to_dtype(dtype))
    from_numpy = isinstance(data, np.ndarray | np.generic) or _numpy_float64(data)
    try:
        array = np.array(data)
    except ValueError:  # ragged: torch's message, or torch's empty tensor
        array = _refuse_data(data)
        if array is None:
            raise
    kind = array.dtype.kind
    if kind not in "fib" or kind == "u" and not from_numpy:  # "u": an int past int64
        _refuse_data(data)
        raise TypeError(f"cannot make a tensor of {array.dtype} values. Fix: use numbers "
                        "(int64's range for ints).")
    if dtype is not None:  # a list checked first: numpy makes None a nan, torch refuses
        return array.astype(to_dtype(dtype))
    if kind == "f" and not from_numpy:
        return array.astype(np.float32)
    if kind in "iu" and array.dtype != np.int64 and not from_numpy:
        return array.astype(np.int64)
    return array


def _is_sequence(obj):
    return isinstance(obj, list | tuple) or isinstance(obj, np.ndarray) and obj.ndim > 0


def _refuse_data(data):
    """torch's refusal of data that is not a box of numbers: None or a string in it,
    then sequences whose lengths disagree (the first element of each level sets them)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if _is_sequence(item):
            stack.extend(item)
        elif isinstance(item, str):
            if item is data:
                raise TypeError("new(): invalid data type 'str'. Fix: make a tensor of "
                                "numbers (float(s) for a string of digits).")
            raise ValueError("too many dimensions 'str'. Fix: make a tensor of numbers "
                             "(float(s) for a string of digits).")
        elif isinstance(item, int) and not -2 ** 63 <= item < 2 ** 63:
            raise ValueError("Overflow when unpacking long long. Fix: ints are int64, "
                             "below 2 ** 63; use a float for a larger number.")
        elif isinstance(item, complex):
            raise TypeError("minigrad has no complex dtype. Fix: use real numbers.")
        elif not isinstance(item, int | float | np.number | np.bool_):
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}. Fix: every "
                               "element is a number; use float('nan') for a missing one.")
    sizes, first = [], data
    while _is_sequence(first):
        sizes.append(len(first))
        if not len(first):
            return np.zeros(sizes, np.float32)  # torch: empty, whatever the other rows hold
        first = first[0]
    _check_lengths(data, sizes, 0)
    return None


def _check_lengths(item, sizes, dim):
    if dim == len(sizes):
        if _is_sequence(item):
            raise TypeError(f"must be real number, not {type(item).__name__}. Fix: nest the "
                            "lists the same way throughout, e.g. [[1.0], [2.0]].")
        return
    if not _is_sequence(item):
        raise TypeError("not a sequence. Fix: nest the lists the same way throughout, e.g. "
                        "[[1, 2], [3, 4]].")
    if len(item) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got "
                         f"{len(item)}). Fix: a tensor is a box: every row has the same "
                         "length (pad the short ones).")
    for part in item:
        _check_lengths(part, sizes, dim + 1)


def _numpy_float64(data):
    """Does a (nested) list hold an np.float64? torch then infers float64."""
    if isinstance(data, list | tuple):
        return any(_numpy_float64(d) for d in data)
    return isinstance(data, np.float64 | np.ndarray) and np.asarray(data).dtype == np.float64


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists, an array)."""
    check_bool("tensor", requires_grad)
    check_device(device)
    return _leaf(as_array(data, dtype), requires_grad)


def check_bool(name, requires_grad):
    """torch's ``requires_grad=`` is a Python bool: 1, None, numpy's True are refused."""
    if not isinstance(requires_grad, bool):
        kind = type(requires_grad)
        kind = kind.__name__ if kind.__module__ == "builtins" else (
            f"{kind.__module__}.{kind.__name__}")
        raise TypeError(f"{name}(): argument 'requires_grad' must be bool, not {kind}. Fix: "
                        "pass True or False (bool(x) for a flag of another type).")


def FloatTensor(data):  # noqa: N802 - torch's legacy constructor
    """Old torch code's ``FloatTensor([[1, 2], [3, 4]])``: a float32 tensor."""
    return tensor(data, dtype="float32")


def DoubleTensor(data):  # noqa: N802 - torch's legacy constructor
    return tensor(data, dtype="float64")


def LongTensor(data):  # noqa: N802 - torch's legacy constructor
    return tensor(data, dtype="int64")


def _shape(size, name="zeros"):
    """``f(2, 3)`` or ``f((2, 3))`` as a tuple of ints, refused as torch refuses."""
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = tuple(size[0])
    for n in size:
        if isinstance(n, bool) or not hasattr(n, "__index__"):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(n).__name__}. Fix: sizes are ints, e.g. "
                            f"{name}(2, int(n)).")
    size = tuple(int(n) for n in size)
    for n in size:
        if n < 0:
            fix = " Fix: sizes are 0 or more."
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative." + fix)
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(size)}." + fix)
    return size


def _leaf(array, requires_grad):
    from minigrad.tensors import Tensor, make

    t = make(array, None)
    if requires_grad:
        Tensor.requires_grad.fset(t, True)
    return t


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    check_bool("zeros", requires_grad)
    check_device(device)
    return _leaf(np.zeros(_shape(size, "zeros"), to_dtype(dtype or "float32")),
                 requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones: ``ones(2, 3)`` or ``ones((2, 3))``."""
    check_bool("ones", requires_grad)
    check_device(device)
    return _leaf(np.ones(_shape(size, "ones"), to_dtype(dtype or "float32")),
                 requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples from minigrad's generator (see ``manual_seed``)."""
    check_device(device)
    numpy_dtype = to_dtype(dtype or "float32")
    check_bool("randn", requires_grad)
    from minigrad._functorch.vmap import random_tensor  # vmap's randomness modes

    return random_tensor(lambda g, s: g.standard_normal(s, dtype=np.float64).astype(
        numpy_dtype), _shape(size, "randn"), generator, lambda a: _leaf(a, requires_grad))


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) from minigrad's generator."""
    check_device(device)
    numpy_dtype = to_dtype(dtype or "float32")
    check_bool("rand", requires_grad)
    from minigrad._functorch.vmap import random_tensor  # vmap's randomness modes

    return random_tensor(lambda g, s: g.random(s, dtype=np.float64).astype(numpy_dtype),
                         _shape(size, "rand"), generator, lambda a: _leaf(a, requires_grad))


def _rng(generator):
    from minigrad.generators import rng

    return rng(generator)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """``arange(5)``, ``arange(1, 4)``, ``arange(0, 1, 0.25)``: int64 unless a float is
    given (a 0-d tensor counts as its number), as torch."""
    check_bool("arange", requires_grad)
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
    if not all(math.isfinite(v) for v in (start, end, step)):
        raise RuntimeError(f"unsupported range: {start} -> {end}. Fix: finite bounds.")
    if dtype is None:
        is_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = "int64" if is_int else "float32"
    numpy_dtype = to_dtype(dtype)
    if numpy_dtype.kind == "f":
        return _leaf(np.arange(start, end, step).astype(numpy_dtype), requires_grad)
    start, end, step = int(start), int(end), int(step)  # torch: the bounds cast first
    if step == 0:
        raise ValueError("step must be nonzero. Fix: an int arange steps by 1 or more.")
    size = max(math.ceil((end - start) / step), 0)
    values = start + step * np.arange(size, dtype=np.int64)
    return _leaf(values.astype(numpy_dtype), requires_grad)


def _number(value):
    """A 0-d tensor (or numpy scalar) as its Python number."""
    if hasattr(value, "grad_fn") or isinstance(value, np.generic):
        return value.item()
    return value
