r"""``Linear``, ``ReLU``, ``Dropout``, ``Sequential`` (chapters 07, 09 and 10).

``Linear(in_features, out_features)`` holds ``weight`` of shape ``(out, in)`` and
``bias`` of shape ``(out,)``, both drawn, as torch does, from
:math:`U(-1/\sqrt{\text{in}}, 1/\sqrt{\text{in}})` (minigrad's generator: the same
distribution, not the same numbers). ``Dropout(p)`` zeroes elements in training only
(``ops/dropout.py``); ``model.eval()`` switches it off.
"""

import math

import numpy as np

from minigrad.factories import GENERATOR, as_array
from minigrad.nn.functional_layers import linear
from minigrad.nn.module import Module, Parameter
from minigrad.ops.activations import relu
from minigrad.ops.dropout import check_probability, dropout

__all__ = ["Linear", "ReLU", "Dropout", "Sequential"]


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        bound = 1 / math.sqrt(in_features) if in_features else 0.0
        numpy_dtype = np.dtype(np.float32) if dtype is None else as_array(0.0, dtype).dtype
        rng = GENERATOR[0]
        draw = rng.uniform(-bound, bound, (out_features, in_features)).astype(numpy_dtype)
        self.weight = Parameter(draw)
        if bias:
            self.bias = Parameter(rng.uniform(-bound, bound, out_features).astype(numpy_dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, input):  # noqa: A002 - torch's name
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class ReLU(Module):
    """``relu``; ``inplace=True`` overwrites the input (``relu_``), as torch's."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002 - torch's name
        return input.relu_() if self.inplace else relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input):  # noqa: A002 - torch's name
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input):  # noqa: A002 - torch's name
        return input.sigmoid()


class Dropout(Module):
    """In training, zero each element with probability ``p`` and scale the others by
    ``1 / (1 - p)``; in eval, return the input."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        check_probability(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input):  # noqa: A002 - torch's name
        return dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Sequential(Module):
    """Modules applied one after the other, registered as ``"0"``, ``"1"``, ..."""

    def __init__(self, *modules):
        super().__init__()
        for i, module in enumerate(modules):
            setattr(self, str(i), module)

    def forward(self, input):  # noqa: A002 - torch's name
        for module in self._modules.values():
            input = module(input)  # noqa: A001 - torch's name
        return input

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)
