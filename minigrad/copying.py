"""Copying and pickling a tensor: ``copy.deepcopy(t)``, ``pickle.dumps(t)`` (chapter 10).

Only a leaf can be deep-copied, as in torch; a copy or an unpickled tensor is a new
leaf with the same numbers, ``requires_grad``, ``grad`` and other attributes.
"""

from minigrad import tensors

__all__ = ["CopyMethods"]


class CopyMethods:
    """``__deepcopy__`` and ``__reduce_ex__`` of ``Tensor``."""

    __slots__ = ()

    def __deepcopy__(self, memo):
        """A copy of a leaf (data, requires_grad, grad, other attributes), as torch."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment. Fix: deepcopy "
                               "t.detach() instead.")
        import copy

        new = tensors.make(self._data.copy(), None)
        new.__class__ = type(self)
        new._requires_grad = self._requires_grad
        new.grad = copy.deepcopy(self.grad, memo)
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), self._data, self._requires_grad, self._grad,
                           self.__dict__))


def _rebuild(cls, data, requires_grad, grad, attributes):
    """Unpickle a tensor saved by ``__reduce_ex__`` (a leaf)."""
    t = tensors.make(data, None)
    t.__class__ = cls
    t._requires_grad = requires_grad
    t.grad = grad
    t.__dict__.update(attributes)
    return t

