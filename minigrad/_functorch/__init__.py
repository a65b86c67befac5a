"""Batched tensors and ``vmap``, as torch's ``torch._functorch`` (chapter 15)."""

from minigrad._functorch.batched import BatchedTensor, VmapInfo
from minigrad._functorch.vmap import vmap

__all__ = ["BatchedTensor", "VmapInfo", "vmap"]
