"""``minigrad.linalg``: torch's ``torch.linalg`` names that minigrad has (chapter 11):
``vector_norm(x, ord=2, dim=None, keepdim=False)`` and ``norm`` for vectors."""

from minigrad.ops.norms import vector_norm

__all__ = ["vector_norm", "norm"]


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803 - torch's
    """``linalg.norm`` of a vector (``ord=None`` is 2); matrix norms are not in minigrad."""
    pair = isinstance(dim, tuple | list) and len(dim) == 2
    if pair or isinstance(ord, str) or (ord is not None and dim is None and A.data.ndim == 2):
        raise NotImplementedError("minigrad's linalg.norm computes vector norms only. Fix: "
                                  "use linalg.vector_norm(A, ord, dim), or flatten A first.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
