r"""The arrays behind the optimizers' tensors, and torch's in-place ops on them (chapter 10).

An optimizer's step changes parameters and its state tensors in place, outside the
graph (torch runs it under ``no_grad``). The steps of :mod:`minigrad.optim` do it on the
numpy arrays behind the tensors, with the helpers here named after the torch ops their
single-tensor (``foreach=False``) code calls, in the same order and with the same
version-counter bumps (one per in-place op: ``p.add_(...)`` bumps ``p._version``).

This module is the one place that knows how a tensor holds its numbers
(``Tensor._data``, a numpy array; ``Tensor.data`` is torch's, a tensor): :func:`array`
reads it, :func:`new_tensor` wraps one.
"""

import numpy as np

from minigrad.tensors import make

__all__ = ["array", "new_tensor", "zeros_like", "step_counter", "item", "add_", "mul_",
           "lerp_", "addcmul_", "addcdiv_", "maximum_", "zero_grad_"]


def array(x):
    """The numpy array of a tensor (written in place by the helpers below); an array or
    a number is returned as it is."""
    return x._data if hasattr(x, "_version_counter") else x


def new_tensor(values):
    """A leaf tensor (no grad) around ``values``, an array kept as it is; a numpy scalar
    (what 0-d arithmetic gives) becomes a 0-d array, so the in-place ops below write it."""
    return make(values if isinstance(values, np.ndarray) else np.asarray(values), None)


def zeros_like(p):
    """``torch.zeros_like(p)``: the state buffer of a parameter."""
    return new_tensor(np.zeros_like(array(p)))


def step_counter():
    """``torch.tensor(0.0)``: torch counts the steps in a float32 tensor (0-d)."""
    return new_tensor(np.array(0.0, dtype=np.float32))


def item(t):
    """``t.item()``: a Python number."""
    return array(t).item()


def _changed(t):
    t._version_counter[0] += 1
    return t


def add_(t, other, alpha=1):
    r"""``t.add_(other, alpha=alpha)``: :math:`t + \alpha\,other`."""
    a = array(t)
    a += array(other) if alpha == 1 else alpha * array(other)
    return _changed(t)


def mul_(t, value):
    """``t.mul_(value)``."""
    a = array(t)
    a *= value
    return _changed(t)


def lerp_(t, end, weight):
    r"""``t.lerp_(end, weight)``, torch's two forms: :math:`t + w (e - t)` for
    :math:`|w| < 0.5`, else :math:`e - (e - t)(1 - w)`."""
    a, end = array(t), array(end)
    diff = end - a
    a[...] = a + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    return _changed(t)


def addcmul_(t, t1, t2, value=1):
    r"""``t.addcmul_(t1, t2, value=value)``: :math:`t + v\,t_1 t_2`."""
    a = array(t)
    a += value * array(t1) * array(t2)
    return _changed(t)


def addcdiv_(t, t1, t2, value=1):
    r"""``t.addcdiv_(t1, t2, value=value)``: :math:`t + v\,t_1 / t_2`."""
    a = array(t)
    a += value * array(t1) / array(t2)
    return _changed(t)


def maximum_(t, other):
    """``torch.maximum(t, other, out=t)``."""
    a = array(t)
    np.maximum(a, array(other), out=a)
    return _changed(t)


def zero_grad_(t):
    """``t.grad`` zeroed in place as torch's ``zero_grad(set_to_none=False)``: cut from
    any graph (``detach_()`` / ``requires_grad_(False)``), then ``zero_()``."""
    t.grad_fn = None
    t._requires_grad = False
    array(t)[...] = 0
    return _changed(t)
