"""``minigrad.nn.functional`` (``F``): the layer and loss functions (chapters 07, 09, 10).

``linear`` is one fused op (see ``ops/linear.py``), ``cross_entropy`` computes a stable
log-softmax and the negative log-likelihood in one op (see ``ops/losses.py``),
``dropout`` multiplies by a random scaled mask (see ``ops/dropout.py``).
"""

from minigrad.ops import activations, dropout, linear, losses
from minigrad.ops.checks import tensor_arguments
from minigrad.ops.losses import mse_loss

# A number where a tensor belongs: torch's TypeError (ops/checks.py).
relu = tensor_arguments("relu", "input")(activations.relu)
dropout = tensor_arguments("dropout", "input")(dropout.dropout)
linear = tensor_arguments("linear", "input", "weight", "bias?")(linear.linear)
cross_entropy = tensor_arguments("cross_entropy_loss", "input", "target~")(
    losses.cross_entropy)

__all__ = ["linear", "relu", "dropout", "mse_loss", "cross_entropy"]
