r"""Dropout, as torch's on the CPU (chapter 09).

In training, each element is kept with probability :math:`1 - p` and scaled by
:math:`1 / (1 - p)`, so the output's expected value is the input:

.. math::
    y = x \cdot m, \qquad m_i = \frac{[u_i < 1 - p]}{1 - p}, \qquad
    \frac{\partial L}{\partial x} = \frac{\partial L}{\partial y} \cdot m .

There is no dropout ``Function``: as torch does on the CPU, the input is multiplied by
the scaled mask, so the node is ``MulBackward0``; it saves the mask (a float array the
size of the input) and its backward is ``grad_output * mask``. The uniforms :math:`u`
come from minigrad's generator: ``manual_seed`` repeats a mask (not torch's mask).

As torch: ``training=False``, ``p == 0`` or an empty input returns the input itself (no
copy, no node); ``p == 1`` multiplies by a 0-d zero (zeros and a zero gradient, never
``0 / 0``); ``inplace=True`` is ``input.mul_(mask)``.
"""

import numpy as np

from minigrad.autograd.function import constant
from minigrad.dtypes import torch_name

__all__ = ["dropout", "check_probability"]


def check_probability(p):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}. Fix: "
                         "p is the probability of zeroing an element, a number from 0 to 1 "
                         "(Dropout(0.2) zeroes a fifth of them).")


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002 - torch's name
    """``torch.nn.functional.dropout``: zero each element with probability ``p``, scale
    the others by ``1 / (1 - p)``; the input itself when not ``training``."""
    check_probability(p)
    data = input._data
    if not training or p == 0 or data.size == 0:
        return input
    if p == 1:
        mask = constant(np.zeros((), data.dtype))
    elif data.dtype.kind != "f":
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type "
            f"{torch_name(data.dtype)}. Fix: dropout needs a float tensor (t.float()).")
    else:
        from minigrad._functorch.vmap import random_tensor  # vmap's randomness modes

        scale = data.dtype.type(1 - p)  # as torch, in the dtype
        mask = random_tensor(lambda g, s: (g.random(s) < 1 - p).astype(data.dtype) / scale,
                             data.shape, None, constant)
    return input.mul_(mask) if inplace else input * mask
