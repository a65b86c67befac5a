r"""``optim.SGD``: stochastic gradient descent as torch computes it (chapter 10).

For each parameter :math:`p` with gradient :math:`g` (weight decay :math:`\lambda`,
momentum :math:`\mu`, dampening :math:`\tau`, learning rate :math:`\eta`; ``maximize``
takes :math:`-g`):

.. math::
    g \leftarrow g + \lambda p, \qquad
    b \leftarrow \begin{cases} g & \text{first step} \\
                 \mu b + (1 - \tau) g & \text{after} \end{cases}, \qquad
    g \leftarrow b \;\; (\text{or } g + \mu b \text{ with Nesterov}), \qquad
    p \leftarrow p - \eta g .

The buffer (dampening 0) is a decaying *sum* of gradients, not an average. The average form
:math:`u \leftarrow \mu u + (1 - \mu) g` (from :math:`u = 0`) is :math:`(1 - \mu) b` at every
step, so it takes the same steps with the learning rate :math:`\eta / (1 - \mu)`. Along a
gradient that stays the same the buffer grows to :math:`g / (1 - \mu)` (the effective
step :math:`\eta / (1 - \mu)`); on a quadratic with largest curvature
:math:`\lambda_{\max}` the steps shrink only for
:math:`\eta < 2 (1 + \mu) / \lambda_{\max}` (chapter 10's valley).

The update works on the parameters' arrays in place, outside the graph (as torch's
step runs under ``no_grad``), and bumps their version: a tensor that the graph saved
must not be stepped between the forward pass and ``backward()`` (chapter 12). The
buffer is ``state[p]["momentum_buffer"]``, as torch's.
"""

from minigrad.autograd.grad_mode import no_grad
from minigrad.optim.arrays import add_, array, mul_, new_tensor
from minigrad.optim.optimizer import Optimizer, check_at_least, check_single_tensor, closure_loss

__all__ = ["SGD"]


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
    *, maximize=False)``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_at_least(lr, "learning rate")
        check_at_least(momentum, "momentum value")
        check_at_least(weight_decay, "weight_decay value")
        check_single_tensor(foreach=foreach, differentiable=differentiable, fused=fused)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening. Fix: "
                             "pass momentum > 0 and dampening=0, or nesterov=False.")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Move each parameter that has a gradient; returns ``closure()``'s loss, if any."""
        loss = closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                lr, momentum = group["lr"], group["momentum"]
                dampening, weight_decay = group["dampening"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -array(p.grad) if group["maximize"] else array(p.grad)
                    if weight_decay != 0:
                        grad = grad + weight_decay * array(p)
                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:  # a copy of the first gradient, as torch's clone()
                            buf = state["momentum_buffer"] = new_tensor(grad.copy())
                        else:
                            add_(mul_(buf, momentum), grad, alpha=1 - dampening)
                        grad = grad + momentum * array(buf) if group["nesterov"] else buf
                    add_(p, grad, alpha=-lr)
        return loss
