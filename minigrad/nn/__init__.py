"""``minigrad.nn``: modules and loss functions, as ``torch.nn`` (chapters 07, 09, 10, 16)."""

from minigrad.nn import functional, utils
from minigrad.nn.layers import Dropout, Linear, ReLU, Sequential, Sigmoid, Tanh
from minigrad.nn.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss
from minigrad.nn.module import Module, Parameter
from minigrad.nn.normalization import BatchNorm1d, LayerNorm
from minigrad.nn.sparse import Embedding

F = functional

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Dropout", "Sequential",
           "BatchNorm1d", "LayerNorm", "Embedding", "MSELoss", "CrossEntropyLoss", "BCELoss",
           "BCEWithLogitsLoss", "functional", "F", "utils"]
