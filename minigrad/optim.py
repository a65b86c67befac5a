r"""``optim.SGD``: stochastic gradient descent as torch computes it (chapter 10).

For each parameter :math:`p` with gradient :math:`g` (weight decay :math:`\lambda`,
momentum :math:`\mu`, dampening :math:`\tau`, learning rate :math:`\eta`):

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
must not be stepped between the forward pass and ``backward()`` (chapter 12).
``zero_grad()`` sets the gradients to None by default, as torch does since 2.0.
"""

import numpy as np

__all__ = ["Optimizer", "SGD"]


class Optimizer:
    """Holds the parameters (in ``param_groups``, as torch) and per-parameter ``state``."""

    def __init__(self, params, defaults):
        from minigrad.tensors import Tensor

        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got minigrad.{params.dtype.tensor_type}. Fix: pass a list, "
                "SGD([w], lr=0.1), or model.parameters().")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list. Fix: pass the "
                             "parameters to train, e.g. model.parameters().")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.param_groups = [{**defaults, **g, "params": list(g["params"])} for g in groups]
        for group in self.param_groups:
            for p in group["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError("optimizer can only optimize Tensors, but one of the "
                                    f"params is {type(p).__name__}. Fix: pass tensors.")
                if p.grad_fn is not None:
                    raise ValueError("can't optimize a non-leaf Tensor. Fix: optimize the "
                                     "leaf it was computed from, or detach() it and set "
                                     "requires_grad_() on the copy.")
        self.state = {}

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.data.fill(0)


class SGD(Optimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False)``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, maximize=False):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("lr, momentum and weight_decay must be >= 0")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})

    def step(self):
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            dampening, weight_decay = group["dampening"], group["weight_decay"]
            maximize = group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad.data
                if maximize:
                    grad = -grad
                if weight_decay:
                    grad = grad + weight_decay * p.data
                if momentum:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:  # a copy, as torch.clone
                        buf = state["momentum_buffer"] = np.array(grad)
                    else:
                        buf *= momentum
                        buf += grad if dampening == 0 else (1 - dampening) * grad
                    grad = grad + momentum * buf if group["nesterov"] else buf
                p.data -= lr * grad
                p._version_counter[0] += 1
