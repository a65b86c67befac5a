r"""Learning-rate schedules, as ``torch.optim.lr_scheduler`` (chapter 10).

A scheduler changes its optimizer's ``group["lr"]`` once per epoch: call
``optimizer.step()`` for the batches, then ``scheduler.step()``, as torch (>= 1.1) asks.
Making a scheduler stores each group's starting rate as ``group["initial_lr"]``
(``base_lrs``) and takes step 0: ``last_epoch`` counts the scheduler's steps from 0,
``get_last_lr()`` is the rates it set last. With base rate :math:`\eta_0` at epoch
:math:`t`:

- ``StepLR(step_size, gamma)``: :math:`\eta_0 \gamma^{\lfloor t / \text{step\_size}\rfloor}`;
- ``MultiStepLR(milestones, gamma)``: times :math:`\gamma` at each milestone passed;
- ``ExponentialLR(gamma)``: :math:`\eta_0 \gamma^t`;
- ``CosineAnnealingLR(T_max, eta_min)``:
  :math:`\eta_{\min} + (\eta_0 - \eta_{\min})(1 + \cos(\pi t / T_{\max})) / 2`, going down
  to :math:`\eta_{\min}` at :math:`T_{\max}` and back up after;
- ``LambdaLR(lr_lambda)``: :math:`\eta_0 \cdot \text{lr\_lambda}(t)`.

Except ``LambdaLR``, each step scales the rate the group holds (torch's *chainable*
form), so two schedulers on one optimizer compose; ``step(epoch)`` (deprecated in
torch, with its warning) jumps to the closed form instead. ``state_dict()`` is the
scheduler's attributes but the optimizer, as torch's. Not copied: torch's warning
when ``scheduler.step()`` comes before ``optimizer.step()`` (and its wrapping of
``optimizer.step`` to detect it).
"""

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from minigrad.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "LambdaLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


class LRScheduler:
    """The base: ``initial_lr`` and ``base_lrs``, ``last_epoch``, ``step()``; a subclass
    gives ``get_lr()`` (and ``_get_closed_form_lr()`` for ``step(epoch)``)."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer. Fix: pass the "
                            "optimizer, e.g. StepLR(optimizer, step_size=10).")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0. Fix: load the optimizer's "
                        "state_dict saved with the scheduler first, or leave last_epoch=-1.")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """The scheduler's attributes, but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last ``step()`` set, one per group."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        """The next epoch's rates into the optimizer's groups (``epoch``: deprecated)."""
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", self.get_lr)
                values = closed_form()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _current_lrs(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=3)
        return [group["lr"] for group in self.optimizer.param_groups]


class LambdaLR(LRScheduler):
    """``LambdaLR(optimizer, lr_lambda)``: ``initial_lr * lr_lambda(epoch)``; one function
    for every group, or a list of one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, list | tuple):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                    f"{len(lr_lambda)}. Fix: pass one function per param group, or one "
                    "function for all.")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """As the base, with the functions' attributes (None for plain functions) in
        place of the functions, as torch."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else
                               fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas, strict=True):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self):
        self._current_lrs()
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class StepLR(LRScheduler):
    """``StepLR(optimizer, step_size, gamma=0.1)``: times ``gamma`` every ``step_size``
    epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``MultiStepLR(optimizer, milestones, gamma=0.1)``: times ``gamma`` at each
    milestone epoch (a milestone listed twice counts twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch not in self.milestones:
            return lrs
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in lrs]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``ExponentialLR(optimizer, gamma)``: times ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self._is_initial:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``CosineAnnealingLR(optimizer, T_max, eta_min=0.0)``: half a cosine from the base
    rate down to ``eta_min`` over ``T_max`` epochs, then back up (torch's recursive form)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803 - torch's
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        t, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return lrs
        if (t - 1 - t_max) % (2 * t_max) == 0:
            return [lr + (base_lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                    for base_lr, lr in zip(self.base_lrs, lrs, strict=True)]
        return [(1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
                * (lr - eta_min) + eta_min for lr in lrs]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]
