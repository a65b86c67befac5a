"""``minigrad.nn.functional`` (``F``): the layer and loss functions (chapters 07, 09, 10).

``linear`` is one fused op (see ``ops/linear.py``), ``cross_entropy`` computes a stable
log-softmax and the negative log-likelihood in one op (see ``ops/losses.py``),
``dropout`` multiplies by a random scaled mask (see ``ops/dropout.py``).
"""

from minigrad.ops.activations import relu
from minigrad.ops.dropout import dropout
from minigrad.ops.linear import linear
from minigrad.ops.losses import cross_entropy, mse_loss

__all__ = ["linear", "relu", "dropout", "mse_loss", "cross_entropy"]
