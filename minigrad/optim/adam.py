r"""``optim.Adam``: moving averages of the gradient and of its square (chapter 10).

For each parameter :math:`p` with gradient :math:`g` (``maximize`` takes :math:`-g`), at
its :math:`t`-th step (learning rate :math:`\eta`, ``betas`` :math:`(\beta_1, \beta_2)`,
weight decay :math:`\lambda`):

.. math::
    g \leftarrow g + \lambda p, \qquad
    m \leftarrow \beta_1 m + (1 - \beta_1) g, \qquad
    v \leftarrow \beta_2 v + (1 - \beta_2) g^2, \qquad
    p \leftarrow p - \frac{\eta}{1 - \beta_1^t}\,
        \frac{m}{\sqrt{v} / \sqrt{1 - \beta_2^t} + \epsilon} .

:math:`m` and :math:`v` start at 0, so they are biased towards 0 for small :math:`t`;
dividing by :math:`1 - \beta^t` undoes it. With ``amsgrad`` the denominator uses the
largest :math:`v` so far. With ``decoupled_weight_decay`` (what :class:`AdamW` is), the
decay is not added to :math:`g` but shrinks the parameter first:
:math:`p \leftarrow (1 - \eta\lambda)\,p`.

The state of a parameter is made at its first step, under torch's names:
``state[p]["step"]`` (a 0-d float32 tensor, as torch's), ``"exp_avg"`` (:math:`m`),
``"exp_avg_sq"`` (:math:`v`) and, with ``amsgrad``, ``"max_exp_avg_sq"``. The operations
are those of torch's single-tensor Adam, in its order.
"""

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.optim.arrays import (
    add_,
    addcdiv_,
    addcmul_,
    array,
    item,
    lerp_,
    maximum_,
    mul_,
    step_counter,
    zeros_like,
)
from minigrad.optim.optimizer import Optimizer, check_at_least, check_single_tensor, closure_loss

__all__ = ["Adam"]


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, maximize=False, decoupled_weight_decay=False)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_at_least(lr, "learning rate")
        check_at_least(eps, "epsilon value")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}. Fix: pass "
                                 "betas in [0, 1), e.g. (0.9, 0.999).")
        check_at_least(weight_decay, "weight_decay value")
        if not all(isinstance(beta, float) for beta in betas):
            raise ValueError("betas must be either both floats or both Tensors. Fix: pass "
                             "two floats, e.g. betas=(0.9, 0.999) (minigrad takes floats).")
        check_single_tensor(foreach=foreach, capturable=capturable,
                            differentiable=differentiable, fused=fused)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adam step of each parameter that has a gradient; returns ``closure()``'s
        loss, if any."""
        loss = closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p, group):
        """torch's ``_single_tensor_adam`` for one parameter."""
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        state = self.state[p]
        if not state:
            state["step"] = step_counter()
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_like(p)
        grad = -array(p.grad) if group["maximize"] else array(p.grad)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        add_(state["step"], 1)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                mul_(p, 1 - lr * weight_decay)
            else:
                grad = grad + weight_decay * array(p)
        lerp_(exp_avg, grad, 1 - beta1)
        addcmul_(mul_(exp_avg_sq, beta2), grad, grad, value=1 - beta2)
        step = item(state["step"])
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            maximum_(state["max_exp_avg_sq"], exp_avg_sq)
            denom = np.sqrt(array(state["max_exp_avg_sq"])) / bias_correction2_sqrt + eps
        else:
            denom = np.sqrt(array(exp_avg_sq)) / bias_correction2_sqrt + eps
        addcdiv_(p, exp_avg, denom, value=-step_size)
