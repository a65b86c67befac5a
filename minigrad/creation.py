r"""More of torch's creation ops: ``eye``, ``linspace``, ``full``, ``empty`` and the
``*_like`` family (chapters 05-07; the basic ones are in :mod:`minigrad.factories`).

Each takes ``dtype=``, ``device=`` (``"cpu"`` only) and ``requires_grad=`` as torch's.
The dtypes follow torch: ``full((2,), 1)`` is int64, ``full((2,), 1.5)`` float32,
``full((2,), True)`` bool; a ``*_like`` keeps its model's dtype unless told otherwise.
``empty`` and ``empty_like`` return zeros (torch leaves the memory uninitialized: any
value is allowed, and zeros keep notebooks reproducible).

``linspace`` computes from both ends, as torch's kernel does:
:math:`x_i = \text{start} + i\,h` for the first half and
:math:`x_i = \text{end} - (n - 1 - i)\,h` for the second, with
:math:`h = (\text{end} - \text{start}) / (n - 1)`, so the last value is ``end`` exactly;
minigrad computes in float64 and rounds once, so a float32 value may differ from torch's
(whose vectorized kernel computes in float32) in the last bit.
"""

import numpy as np

from minigrad.devices import check_device
from minigrad.dtypes import to_dtype
from minigrad.factories import _leaf, _number, _shape

__all__ = ["eye", "linspace", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "rand_like", "randn_like"]


def _int_argument(value, what, function):
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{function}(): argument '{what}' must be int, not "
                        f"{type(value).__name__}. Fix: pass a whole number.")
    return int(value)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """The ``n`` x ``m`` identity matrix (``m`` defaults to ``n``)."""
    check_device(device)
    n = _int_argument(n, "n", "eye")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}. Fix: a size is >= 0.")
    m = n if m is None else _int_argument(m, "m", "eye")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}. Fix: a size is >= 0.")
    return _leaf(np.eye(n, m, dtype=to_dtype(dtype or "float32")), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end``, both included."""
    check_device(device)
    steps = _int_argument(steps, "steps", "linspace")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative. Fix: steps >= 0.")
    start, end = _number(start), _number(end)
    target = to_dtype(dtype or "float32")
    if steps <= 1:
        return _leaf(np.full(steps, start).astype(target), requires_grad)
    index = np.arange(steps)
    step = (end - start) / (steps - 1)  # in float64: then rounded (or truncated) once
    values = np.where(index < steps // 2, start + step * index,
                      end - step * (steps - index - 1))
    return _leaf(values.astype(target), requires_grad)


def _fill_dtype(fill_value):
    """torch's default dtype for a fill value: bool, int64 or float32."""
    if isinstance(fill_value, bool | np.bool_):
        return "bool"
    if isinstance(fill_value, int | np.integer):
        return "int64"
    return "float32"


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of shape ``size`` (a tuple or list) filled with ``fill_value``."""
    check_device(device)
    if not isinstance(size, tuple | list):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}. Fix: full((2, 3), value).")
    if hasattr(fill_value, "grad_fn"):  # a one-element tensor: its number and its dtype
        dtype = dtype or fill_value.dtype
        fill_value = fill_value.item()
    target = to_dtype(dtype or _fill_dtype(fill_value))
    return _leaf(np.full(tuple(size), fill_value).astype(target), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """``empty(2, 3)``: torch leaves the values uninitialized; minigrad gives zeros."""
    check_device(device)
    return _leaf(np.zeros(_shape(size), to_dtype(dtype or "float32")), requires_grad)


def _like(t, dtype, device):
    if not hasattr(t, "grad_fn"):  # torch.zeros_like(2): torch's TypeError
        raise TypeError("argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}. Fix: pass a tensor, or use zeros(shape).")
    check_device(device)
    return t._data.shape, to_dtype(dtype or t._data.dtype)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    shape, target = _like(input, dtype, device)
    return _leaf(np.zeros(shape, target), requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    shape, target = _like(input, dtype, device)
    return _leaf(np.ones(shape, target), requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """Zeros of ``input``'s shape and dtype (torch: uninitialized)."""
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """``fill_value`` converted to ``input``'s dtype: ``full_like(int_tensor, 2.7)`` is 2."""
    shape, target = _like(input, dtype, device)
    return _leaf(np.full(shape, _number(fill_value)).astype(target), requires_grad)


def _random_like(input, dtype, device, requires_grad, kernel, draw):  # noqa: A002
    shape, target = _like(input, dtype, device)
    if target.kind != "f":
        from minigrad.dtypes import torch_name

        raise NotImplementedError(f'"{kernel}" not implemented for \'{torch_name(target)}\'. '
                                  "Fix: pass dtype=minigrad.float32 or make the model float.")
    from minigrad._functorch.vmap import random_tensor  # vmap's randomness modes

    return random_tensor(lambda g, s: getattr(g, draw)(s, dtype=np.float64).astype(target),
                         shape, None, lambda a: _leaf(a, requires_grad))


def rand_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """Uniform samples in [0, 1) from minigrad's generator, in ``input``'s shape."""
    return _random_like(input, dtype, device, requires_grad, "check_uniform_bounds", "random")


def randn_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """Standard normal samples from minigrad's generator, in ``input``'s shape."""
    return _random_like(input, dtype, device, requires_grad, "normal_kernel_cpu",
                        "standard_normal")
