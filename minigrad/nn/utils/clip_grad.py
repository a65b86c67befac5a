r"""``clip_grad_norm_`` and ``clip_grad_value_``, as ``torch.nn.utils.clip_grad``
(chapter 10, "Clipping the gradient's norm").

``clip_grad_norm_`` treats every gradient as one long vector :math:`g`, takes its
``norm_type``-norm :math:`\|g\|` and multiplies every gradient, in place, by

.. math:: \min\Big(\frac{\text{max\_norm}}{\|g\| + 10^{-6}},\ 1\Big),

one factor for all of them: the whole gradient keeps its direction. It returns
:math:`\|g\|` as measured before clipping. ``clip_grad_value_`` clamps each entry to
``[-clip_value, clip_value]`` instead, which does change the direction.

torch's ``foreach`` only picks a faster implementation; minigrad has one loop and
accepts the argument for the same values.
"""

import math
import types
import warnings

import numpy as np

from minigrad import linalg
from minigrad.autograd.grad_mode import no_grad
from minigrad.factories import tensor
from minigrad.ops.joining import stack
from minigrad.tensors import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of ``tensors`` seen as one vector: the norm of their norms."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    norms = [linalg.vector_norm(g, norm_type) for g in tensors]
    total_norm = linalg.vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. Fix: find the inf/nan gradient (for "
            "instance with detect_anomaly), or pass error_if_nonfinite=False to scale by "
            "the non-finite norm anyway.")
    return total_norm


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Multiply every gradient in place by min(max_norm / (total_norm + 1e-6), 1)."""
    grads = _grads(parameters)
    if not grads:
        return
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = clip_coef.clamp(max=1.0)
    with np.errstate(invalid="ignore"):  # inf * 0 is nan, silently, as in torch
        for g in grads:
            g.mul_(clip_coef_clamped)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the gradients' total norm to ``max_norm`` in place; return that norm as it
    was before clipping (a 0-d tensor)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    total_norm = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient entry to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._version_counter[0] += 1
