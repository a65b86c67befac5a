r"""``BatchNorm1d`` and ``LayerNorm``, as torch's modules (no chapter
uses them yet: torch's surface beyond the course).

``BatchNorm1d(C)`` standardises each of the ``C`` channels of a ``(N, C)`` or
``(N, C, L)`` input. In training it uses the batch's statistics and moves its buffers
``running_mean`` and ``running_var`` towards them by ``momentum`` (``momentum=None``:
the cumulative average, :math:`1 / \text{num\_batches\_tracked}`), counting batches in
``num_batches_tracked``; in eval (``model.eval()``) it uses the running statistics, so
one sample gives the same output whatever batch it comes in. ``LayerNorm(shape)``
standardises each sample over its last dimensions, the same in training and in eval.

The arithmetic is in ``functional_layers.py`` (compositions of minigrad's ops: the
graph's node names are not torch's fused ``NativeBatchNormBackward0``).
"""

import numpy as np

from minigrad.factories import as_array
from minigrad.nn.functional_layers import batch_norm, layer_norm, normalized_tuple
from minigrad.nn.module import Module, Parameter
from minigrad.tensors import make

__all__ = ["BatchNorm1d", "LayerNorm"]


def _numpy_dtype(dtype):
    return np.dtype(np.float32) if dtype is None else as_array(0.0, dtype).dtype


class BatchNorm1d(Module):
    """``y = (x - mean) / sqrt(var + eps) * weight + bias`` per channel (dimension 1)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        numpy_dtype = _numpy_dtype(dtype)
        if affine:
            self.weight = Parameter(np.ones(num_features, numpy_dtype))
            if bias:
                self.bias = Parameter(np.zeros(num_features, numpy_dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", make(np.zeros(num_features, numpy_dtype), None))
            self.register_buffer("running_var", make(np.ones(num_features, numpy_dtype), None))
            self.register_buffer("num_batches_tracked", make(np.array(0, np.int64), None))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            self.num_batches_tracked.data[...] = 0

    def reset_parameters(self):
        """Running statistics back to (0, 1, 0 batches); weight to ones, bias to zeros."""
        self.reset_running_stats()
        if self.weight is not None:
            self.weight.data[...] = 1
        if self.bias is not None:
            self.bias.data[...] = 0

    def forward(self, input):  # noqa: A002 - torch's name
        ndim = input.data.ndim
        if ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {ndim}D input). Fix: pass a "
                             "batch, (N, C) or (N, C, L).")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.data[...] += 1
            self.num_batches_tracked._version_counter[0] += 1
            if self.momentum is None:  # the cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.data)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None,
                          self.running_var if track else None, self.weight, self.bias,
                          use_batch, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class LayerNorm(Module):
    """Standardise over the last ``len(normalized_shape)`` dimensions of each sample."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = normalized_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        numpy_dtype = _numpy_dtype(dtype)
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, numpy_dtype))
            if bias:
                self.bias = Parameter(np.zeros(self.normalized_shape, numpy_dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        if self.weight is not None:
            self.weight.data[...] = 1
        if self.bias is not None:
            self.bias.data[...] = 0

    def forward(self, input):  # noqa: A002 - torch's name
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
