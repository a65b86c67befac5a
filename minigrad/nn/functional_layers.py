r"""``F.linear``'s rank check, ``F.batch_norm``, ``F.layer_norm``, ``F.embedding``, as torch
(``linear``: chapter 07; the others are torch's surface beyond the chapters).

No new op: each is a composition of minigrad's differentiable ops (``mean``, ``-``,
``*``, ``/``, ``** 0.5``, indexing), so backward, second derivatives
(``create_graph=True``) and forward-mode tangents come with them. The graph is
therefore several nodes (``MeanBackward1``, ``SubBackward0``, ``PowBackward0``...) where
torch records one fused node (``NativeBatchNormBackward0``,
``NativeLayerNormBackward0``, ``EmbeddingBackward0``); values and gradients are torch's.

Both norms standardise with the *biased* variance (divide by :math:`n`):

.. math:: y = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} \cdot w + b, \qquad
          \sigma^2 = \frac{1}{n} \sum (x - \mu)^2,

over ``(N, L)`` per channel for ``batch_norm`` and over the last dimensions for
``layer_norm``. In training, ``batch_norm`` also moves the running statistics towards
the batch's, in place: :math:`r \leftarrow (1 - m) r + m \hat{s}`, with the *unbiased*
variance :math:`\frac{n}{n - 1} \sigma^2` going into ``running_var``.
"""

import numpy as np

from minigrad.dtypes import Size, from_numpy
from minigrad.ops import indexing
from minigrad.ops.linear import linear as _linear

__all__ = ["linear", "batch_norm", "layer_norm", "embedding"]


def linear(input, weight, bias=None):  # noqa: A002 - torch's name
    """``torch.nn.functional.linear``: ``input @ weight.T + bias`` (``ops/linear.py``)."""
    if input.data.ndim == 0 or weight.data.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.data.ndim}D and {weight.data.ndim}D. Fix: give one sample as a 1-D "
            "tensor of in_features values (minigrad.tensor([x])), or a batch as (N, in).")
    return _linear(input, weight, bias)


def _verify_batch_size(shape):
    if int(np.prod(shape)) // shape[1] == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{Size(shape)!r}. Fix: train on a batch of more than one sample, or call "
            "model.eval() to use the running statistics.")


def _check_size(name, t, channels):
    if t is not None and t.data.size != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.data.size}. "
                           f"Fix: the input's dimension 1 must be num_features.")


def _update(running, batch, factor):
    """``running = (1 - factor) * running + factor * batch``, in place, as torch."""
    data = running.data
    data *= 1 - factor
    data += (factor * batch.reshape(data.shape)).astype(data.dtype)
    running._version_counter[0] += 1


def batch_norm(input, running_mean, running_var, weight=None, bias=None,  # noqa: A002
               training=False, momentum=0.1, eps=1e-5):
    """``torch.nn.functional.batch_norm`` of a ``(N, C)`` or ``(N, C, L...)`` input."""
    shape = input.data.shape
    if training:
        _verify_batch_size(shape)
    if training and eps <= 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    channels = shape[1] if len(shape) > 1 else 0  # as torch: a 1-D input has 0 channels
    for name, t in [("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)]:
        _check_size(name, t, channels)
    axes = (0, *range(2, len(shape)))
    view = (1, channels) + (1,) * (len(shape) - 2)
    if training:
        mean = input.mean(axes, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(axes, keepdim=True)
        if running_mean is not None and running_var is not None:
            n = input.data.size // channels
            _update(running_mean, mean.data, momentum)
            _update(running_var, var.data * (n / (n - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean must be defined in evaluation mode. Fix: pass "
                               "the running statistics, or training=True.")
        centered = input - running_mean.reshape(view)
        var = running_var.reshape(view)
    out = centered / (var + eps) ** 0.5
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out


def normalized_tuple(normalized_shape):
    if isinstance(normalized_shape, int | np.integer):
        return (int(normalized_shape),)
    return tuple(int(n) for n in normalized_shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """``torch.nn.functional.layer_norm``: standardise over the last dimensions."""
    normalized = normalized_tuple(normalized_shape)
    shape = input.data.shape
    k = len(normalized)
    if len(shape) < k or shape[len(shape) - k:] != normalized:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized)}, expected input with shape "
            f"[*, {', '.join(str(n) for n in normalized)}], but got input of size"
            f"{list(shape)}. Fix: normalized_shape names the input's last dimensions.")
    for name, t in [("weight", weight), ("bias", bias)]:
        if t is not None and t.data.shape != normalized:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.data.shape)} and normalized_shape = {list(normalized)}. Fix: "
                f"{name} has the shape normalized_shape.")
    axes = tuple(range(len(shape) - k, len(shape)))
    mean = input.mean(axes, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(axes, keepdim=True)
    out = centered / (var + eps) ** 0.5
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def padding_index(padding_idx, num_embeddings):
    """torch's checks of ``padding_idx``; a negative one counts from the end."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):
    """``torch.nn.functional.embedding``: the rows ``weight[input]``; the row at
    ``padding_idx`` is looked up but gets no gradient (its forward-mode tangent is kept,
    as torch's)."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("minigrad's embedding has no max_norm, "
                                  "scale_grad_by_freq or sparse. Fix: leave them out.")
    padding_idx = padding_index(padding_idx, weight.data.shape[0])
    idx = input.data if hasattr(input, "grad_fn") else np.asarray(input)
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            "types: Long, Int; but got "
            f"minigrad.{from_numpy(idx.dtype).tensor_type} instead (while checking "
            "arguments for embedding). Fix: pass the indices as an integer tensor "
            "(t.long()).")
    if idx.size and (idx.min() < 0 or idx.max() >= weight.data.shape[0]):
        raise IndexError(f"index out of range in self. Fix: indices must lie in "
                         f"[0, {weight.data.shape[0]}) (num_embeddings).")
    out = indexing.index(weight, idx)
    if padding_idx is None or not (idx == padding_idx).any():
        return out
    # The padding rows' values, as constants: ``out * keep`` carries the gradient of
    # the other rows only (torch's embedding_backward skips padding_idx).
    keep = (idx != padding_idx)[..., None].astype(out.data.dtype)
    frozen = np.where(keep == 1, 0, out.data).astype(out.data.dtype)
    from minigrad.tensors import make

    result = out * make(keep, None) + make(frozen, None)
    tangent = getattr(result, "_fw_tangent", None)
    if tangent is not None:  # forward mode: torch's tangent keeps the padding rows'
        tangent += weight._fw_tangent[idx] * (1 - keep)  # in place: a recorded node's too
    return result
