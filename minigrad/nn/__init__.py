"""``minigrad.nn``: modules and loss functions, as ``torch.nn`` (chapters 07 and 10)."""

from minigrad.nn import functional
from minigrad.nn.module import Linear, Module, Parameter, ReLU, Sequential

F = functional

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Sequential", "functional", "F"]
