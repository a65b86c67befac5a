"""Loss modules: ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, as
torch's (the first two: chapter 10). Each calls its function in ``nn.functional``; the
class weights of the losses are buffers (in ``state_dict()``, as torch)."""

from minigrad.nn.functional_losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    legacy_reduction,
)
from minigrad.nn.module import Module
from minigrad.ops.losses import mse_loss

__all__ = ["MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class MSELoss(_Loss):
    def forward(self, input, target):  # noqa: A002 - torch's name
        return mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):  # noqa: A002 - torch's name
        return cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                             reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):  # noqa: A002 - torch's name
        return binary_cross_entropy(input, target, weight=self.weight,
                                    reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002 - torch's name
        return binary_cross_entropy_with_logits(input, target, self.weight,
                                                pos_weight=self.pos_weight,
                                                reduction=self.reduction)
