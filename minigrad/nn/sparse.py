r"""``Embedding``: a lookup table of learned vectors, as torch's (no chapter uses
it yet: torch's surface beyond the course).

``Embedding(num_embeddings, embedding_dim)`` holds ``weight`` of shape
``(num_embeddings, embedding_dim)``, drawn from :math:`N(0, 1)` as torch does (from
minigrad's generator, reset by ``manual_seed``: the same distribution, not torch's
numbers). ``emb(indices)`` is ``weight[indices]``: the output has the indices' shape
plus ``embedding_dim``, and the gradient of a row is the sum of the gradients of every
place it was looked up. The row at ``padding_idx`` starts at zero and never gets a
gradient. The node is indexing's ``IndexBackward0`` (torch: ``EmbeddingBackward0``).
"""

import numpy as np

from minigrad.factories import GENERATOR, as_array
from minigrad.nn.functional_layers import embedding, padding_index
from minigrad.nn.module import Module, Parameter

__all__ = ["Embedding"]


class Embedding(Module):
    """Rows of ``weight`` looked up by integer indices."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_index(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            numpy_dtype = np.dtype(np.float32) if dtype is None else as_array(0.0, dtype).dtype
            self.weight = Parameter(np.zeros((num_embeddings, embedding_dim), numpy_dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        """Rows drawn from N(0, 1) (minigrad's generator); the padding row zeroed."""
        shape = self.weight.data.shape
        self.weight.data[...] = GENERATOR[0].standard_normal(shape)
        if self.padding_idx is not None:
            self.weight.data[self.padding_idx] = 0

    def forward(self, input):  # noqa: A002 - torch's name
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An ``Embedding`` holding ``embeddings`` (2-D) as its weight; ``freeze=True``:
        ``weight.requires_grad`` is False, so training leaves it as it is."""
        if embeddings.data.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.data.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                   _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
