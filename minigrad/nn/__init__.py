"""``minigrad.nn``: modules and loss functions, as ``torch.nn`` (chapters 07, 09 and 10)."""

from minigrad.nn import functional
from minigrad.nn.module import Dropout, Linear, Module, Parameter, ReLU, Sequential

F = functional

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Dropout", "Sequential", "functional",
           "F"]
