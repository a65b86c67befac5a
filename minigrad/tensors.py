r"""``Tensor``: a numpy array that remembers how it was made (chapter 05).

A tensor holds its numbers in ``data`` (a numpy array: torch returns a tensor there,
minigrad the array itself), and, when it takes part in a gradient computation,
``requires_grad=True`` and a ``grad_fn``, the node of the op that made it (None for a
leaf, a tensor made by the user). After ``backward()``, a leaf that requires grad
holds :math:`\partial L / \partial \text{leaf}` in ``.grad``, a tensor of its own shape.

This module holds the state and the rules of torch's autograd: only leaves get
``.grad`` (a non-leaf too after ``retain_grad()``); an in-place op bumps a version
counter, so a backward that needs the old value refuses (chapter 12); see
:mod:`minigrad.inplace`. The math methods (``+``, ``@``, ``sum``, ``exp``...) come from
:mod:`minigrad.ops.methods`.
A tensor accepts any other attribute, such as the ``.g`` of seed 001's hand-written
backward (chapter 07).
"""

import weakref

from minigrad import engine
from minigrad.dtypes import Size, from_numpy
from minigrad.inplace import InplaceMethods
from minigrad.ops.methods import TensorMethods
from minigrad.printing import tensor_repr

__all__ = ["Tensor", "make"]

INT_GRAD = (
    "Only Tensors of floating point and complex dtype can require gradients. "
    "Fix: make the tensor float, e.g. minigrad.tensor([1.0, 2.0]) or t.float().")


class Tensor(TensorMethods, InplaceMethods):
    """An n-dimensional array with torch's autograd attributes; see the module doc."""

    __slots__ = ("data", "grad", "grad_fn", "_requires_grad", "_version_counter",
                 "_accumulator", "__dict__", "__weakref__")
    __array_ufunc__ = None  # numpy_array * tensor calls Tensor.__rmul__
    __hash__ = object.__hash__  # == is elementwise, as in torch; hash by identity

    def __init__(self, data, requires_grad=False, dtype=None):
        """``Tensor(data)`` is float32 unless ``dtype`` says otherwise, as ``torch.Tensor``."""
        from minigrad.factories import as_array

        self.data = as_array(data, dtype or "float32")
        self.grad = None
        self.grad_fn = None
        self._requires_grad = False
        self._version_counter = [0]
        self._accumulator = None
        if requires_grad:
            self.requires_grad = True

    # --- autograd state -------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if self.grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. Fix: use "
                    "y.detach() for a copy of a computed tensor that does not require grad.")
            return
        if value and self.data.dtype.kind != "f":
            raise RuntimeError(INT_GRAD)
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def _version(self):
        return self._version_counter[0]

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Compute the gradient of this tensor w.r.t. the leaves (see engine.py)."""
        if create_graph:
            raise NotImplementedError("minigrad does not build graphs of gradients "
                                      "(create_graph=True); only first derivatives.")
        engine.backward(self, gradient, bool(retain_graph))

    def retain_grad(self):
        """Keep ``.grad`` on this non-leaf too after backward (a leaf keeps it anyway)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False. "
                               "Fix: only tensors computed from inputs that require grad "
                               "have a gradient.")
        if self.grad_fn is not None:
            self.grad_fn._retained = weakref.ref(self)

    @property
    def retains_grad(self):
        return self.grad_fn is not None and self.grad_fn._retained is not None

    def detach(self):
        """The same data (shared, not copied), cut from the graph: a leaf without grad."""
        out = make(self.data, None)
        out._version_counter = self._version_counter
        return out

    def __deepcopy__(self, memo):
        """A copy of a leaf (data, requires_grad, grad, other attributes), as torch."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment. Fix: deepcopy "
                               "t.detach() instead.")
        import copy

        new = make(self.data.copy(), None)
        new.__class__ = type(self)
        new._requires_grad = self._requires_grad
        new.grad = copy.deepcopy(self.grad, memo)
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), self.data, self._requires_grad, self.grad,
                           self.__dict__))

    # --- conversions ----------------------------------------------------------
    def item(self):
        if self.data.size != 1:
            raise RuntimeError(f"a Tensor with {self.data.size} elements cannot be converted "
                               "to Scalar. Fix: reduce it first (t.sum(), t.mean()) or index "
                               "one element (t[0]).")
        return self.data.item()

    def numpy(self):
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead. Fix: detach() "
                               "first, or read t.data (minigrad's data is the array).")
        return self.data

    def tolist(self):
        return self.data.tolist()

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    # --- description ----------------------------------------------------------
    @property
    def shape(self):
        return Size(self.data.shape)

    def size(self, dim=None):
        return Size(self.data.shape) if dim is None else self.data.shape[dim]

    @property
    def dtype(self):
        return from_numpy(self.data.dtype)

    @property
    def ndim(self):
        return self.data.ndim

    def dim(self):
        return self.data.ndim

    def numel(self):
        return self.data.size

    @property
    def device(self):
        return "cpu"

    def __len__(self):
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        if self.data.ndim == 0:
            return format(self.data.item(), spec)
        return format(repr(self), spec)

    def __bool__(self):
        if self.data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is "
                               "ambiguous. Fix: use (t > 0).all() or .any().")
        return bool(self.data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.data.dtype.kind not in "iu" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be an index")
        return int(self.data.item())


_new = object.__new__


def _rebuild(cls, data, requires_grad, grad, attributes):
    """Unpickle a tensor saved by ``__reduce_ex__`` (a leaf)."""
    t = make(data, None)
    t.__class__ = cls
    t._requires_grad = requires_grad
    t.grad = grad
    t.__dict__.update(attributes)
    return t


def make(data, grad_fn):
    """A tensor around ``data`` (kept as is), made by ``grad_fn`` (None for a leaf)."""
    t = _new(Tensor)
    t.data = data
    t.grad = None
    t.grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._version_counter = [0]
    t._accumulator = None
    return t
