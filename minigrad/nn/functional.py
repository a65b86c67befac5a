"""``minigrad.nn.functional`` (``F``): the layer and loss functions (chapters 07, 09, 10).

``linear`` is one fused op (see ``ops/linear.py``), ``cross_entropy`` computes a stable
log-softmax and the negative log-likelihood in one op (see ``ops/losses.py``;
``functional_losses.py`` adds torch's other shapes and checks), ``dropout`` multiplies by
a random scaled mask (see ``ops/dropout.py``). ``batch_norm``, ``layer_norm``,
``embedding`` (``functional_layers.py``) and the binary cross-entropies
(``functional_losses.py``) are compositions of minigrad's ops.
"""

from minigrad.nn.functional_layers import batch_norm, embedding, layer_norm, linear
from minigrad.nn.functional_losses import (
                                           binary_cross_entropy,
                                           binary_cross_entropy_with_logits,
                                           cross_entropy,
)
from minigrad.ops.activations import relu
from minigrad.ops.dropout import dropout
from minigrad.ops.losses import mse_loss

__all__ = ["linear", "relu", "dropout", "mse_loss", "cross_entropy", "batch_norm",
           "layer_norm", "embedding", "binary_cross_entropy",
           "binary_cross_entropy_with_logits"]
