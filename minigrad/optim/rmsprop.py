r"""``optim.RMSprop``: steps scaled by a moving average of the squared gradient (chapter 10).

For each parameter :math:`p` with gradient :math:`g` (``maximize`` takes :math:`-g`;
smoothing constant :math:`\alpha`, learning rate :math:`\eta`, weight decay
:math:`\lambda`):

.. math::
    g \leftarrow g + \lambda p, \qquad
    v \leftarrow \alpha v + (1 - \alpha) g^2, \qquad
    d = \sqrt{v} + \epsilon, \qquad
    p \leftarrow p - \eta\, g / d .

With ``centered`` the average gradient :math:`\bar g \leftarrow \alpha \bar g + (1 - \alpha)
g` is kept too and :math:`d = \sqrt{v - \bar g^2} + \epsilon` (an estimate of the
gradient's standard deviation rather than its root mean square). With ``momentum``
:math:`\mu > 0` the scaled gradient goes into a buffer first, :math:`b \leftarrow \mu b +
g / d`, and :math:`p \leftarrow p - \eta b`. Unlike Adam there is no bias correction:
:math:`v` starts at 0, so the first steps are large (:math:`g / \sqrt{1-\alpha}\,|g|`).

The state, made at a parameter's first step, uses torch's names: ``"step"`` (0-d
float32), ``"square_avg"``, ``"momentum_buffer"`` (momentum > 0) and ``"grad_avg"``
(centered). The operations are those of torch's single-tensor RMSprop, in its order.
"""

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.optim.arrays import (
    add_,
    addcdiv_,
    addcmul_,
    array,
    lerp_,
    mul_,
    step_counter,
    zeros_like,
)
from minigrad.optim.optimizer import Optimizer, check_at_least, check_single_tensor, closure_loss

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, maximize=False)``."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_at_least(lr, "learning rate")
        check_at_least(eps, "epsilon value")
        check_at_least(momentum, "momentum value")
        check_at_least(weight_decay, "weight_decay value")
        check_at_least(alpha, "alpha value")
        check_single_tensor(foreach=foreach, capturable=capturable,
                            differentiable=differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RMSprop step of each parameter that has a gradient; returns
        ``closure()``'s loss, if any."""
        loss = closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p, group):
        """torch's ``_single_tensor_rmsprop`` for one parameter."""
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        state = self.state[p]
        if not state:
            state["step"] = step_counter()
            state["square_avg"] = zeros_like(p)
            if momentum > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        grad = -array(p.grad) if group["maximize"] else array(p.grad)
        square_avg = state["square_avg"]
        add_(state["step"], 1)
        if weight_decay != 0:
            grad = grad + weight_decay * array(p)
        addcmul_(mul_(square_avg, alpha), grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
            avg = np.sqrt(array(square_avg) - array(grad_avg) * array(grad_avg))
        else:
            avg = np.sqrt(array(square_avg))
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]
            addcdiv_(mul_(buf, momentum), grad, avg)
            add_(p, buf, alpha=-lr)
        else:
            addcdiv_(p, grad, avg, value=-lr)
