"""``minigrad.utils``: as ``torch.utils``, the ``checkpoint`` module (chapter 16)."""

from minigrad.utils import checkpoint

__all__ = ["checkpoint"]
