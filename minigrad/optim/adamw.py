r"""``optim.AdamW``: Adam with decoupled weight decay (chapter 10).

Adam's weight decay adds :math:`\lambda p` to the gradient, so the decay is divided by
:math:`\sqrt{v}` like the rest of the step: parameters with large gradients are barely
decayed. AdamW shrinks the parameter directly instead, :math:`p \leftarrow (1 -
\eta\lambda)\,p`, before Adam's step; its default ``weight_decay`` is ``1e-2``. As in
torch 2, it is ``Adam(..., decoupled_weight_decay=True)`` (see :mod:`minigrad.optim.adam`).
"""

from minigrad.optim.adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
