"""``minigrad.nn.functional`` (``F``): the layer and loss functions (chapters 07, 09, 10).

``linear`` is one fused op (see ``ops/linear.py``), ``cross_entropy`` computes a stable
log-softmax and the negative log-likelihood in one op (see ``ops/losses.py``;
``functional_losses.py`` adds torch's other shapes and checks), ``dropout`` multiplies by
a random scaled mask (see ``ops/dropout.py``). ``batch_norm``, ``layer_norm``,
``embedding`` (``functional_layers.py``) and the binary cross-entropies
(``functional_losses.py``) are compositions of minigrad's ops.
"""

from minigrad.nn import functional_layers, functional_losses
from minigrad.nn.functional_layers import batch_norm, embedding, layer_norm
from minigrad.nn.functional_losses import binary_cross_entropy, binary_cross_entropy_with_logits
from minigrad.nn.functional_softmax import log_softmax, one_hot, softmax
from minigrad.ops import activations
from minigrad.ops import dropout as _dropout
from minigrad.ops.checks import tensor_arguments
from minigrad.ops.losses import mse_loss


# A number where a tensor belongs: torch's TypeError (ops/checks.py).
@tensor_arguments("relu", "input")
def relu(input, inplace=False):  # noqa: A002 - torch's name
    """``relu(input)``; ``inplace=True``: ``input.relu_()`` (refused on a leaf that
    requires grad, as torch)."""
    return input.relu_() if inplace else activations.relu(input)


dropout = tensor_arguments("dropout", "input")(_dropout.dropout)
linear = tensor_arguments("linear", "input", "weight", "bias?")(functional_layers.linear)
cross_entropy = tensor_arguments("cross_entropy_loss", "input", "target~")(
    functional_losses.cross_entropy)

__all__ = ["linear", "relu", "dropout", "mse_loss", "cross_entropy", "batch_norm",
           "layer_norm", "embedding", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "softmax", "log_softmax", "one_hot"]
