r"""``Tensor``: a numpy array that remembers how it was made (chapter 05).

A tensor holds its numbers in a numpy array (``_data`` inside minigrad; a user reads
it with ``t.numpy()`` or ``t.detach().numpy()``), and, when it takes part in a gradient
computation, ``requires_grad=True`` and a ``grad_fn``, the node of the op that made it
(None for a leaf, a tensor made by the user). After ``backward()``, a leaf that requires
grad holds :math:`\partial L / \partial \text{leaf}` in ``.grad``, a tensor of its own shape.

This module holds the state and the rules of torch's autograd: only leaves get
``.grad`` (a non-leaf too after ``retain_grad()``); an in-place op bumps a version
counter, so a backward that needs the old value refuses (chapter 12); see
:mod:`minigrad.inplace`. ``t.data`` is torch's: a new tensor sharing the numbers, cut
from the graph, with a version counter of its own, so changes through it (``p.data -=
lr * g``) escape that check (chapter 09); ``t.data = other`` swaps the numbers. The math
methods (``+``, ``@``, ``sum``, ``exp``...) come from :mod:`minigrad.ops.methods`.
A tensor accepts any other attribute, such as the ``.g`` of the fast.ai forum thread's
hand-written backward (chapter 07).
"""

import warnings
import weakref

import numpy as np

from minigrad import devices
from minigrad.autograd import engine, graph
from minigrad.autograd.grad_mode import GRAD_ENABLED
from minigrad.copying import CopyMethods
from minigrad.dtypes import Size, from_numpy, to_dtype
from minigrad.inplace import InplaceMethods
from minigrad.ops import clamping, comparison, movement, norms, pointwise, selection, trig
from minigrad.ops.methods import TensorMethods
from minigrad.ops.shape import to_dtype as convert
from minigrad.printing import tensor_repr

__all__ = ["Tensor", "make"]

NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead.")

NUMPY_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead. "
    "Fix: call t.detach().numpy() (t.numpy(force=True) does the same).")

INT_GRAD = (
    "Only Tensors of floating point and complex dtype can require gradients. "
    "Fix: make the tensor float, e.g. minigrad.tensor([1.0, 2.0]) or t.float().")


class Tensor(TensorMethods, InplaceMethods, CopyMethods):
    """An n-dimensional array with torch's autograd attributes; see the module doc."""

    __slots__ = ("_data", "_grad", "grad_fn", "_requires_grad", "_version_counter",
                 "_accumulator", "_base", "_view_chain", "_views", "__dict__", "__weakref__")
    _fw_tangent = None  # forward mode: the tangent, inside a dual_level (autograd/forward_ad.py)
    _is_inference = False  # made inside inference_mode() (autograd/grad_mode.py)
    __array_ufunc__ = None  # numpy_array * tensor calls Tensor.__rmul__
    __hash__ = object.__hash__  # == is elementwise, as in torch; hash by identity

    def __init__(self, *data, requires_grad=False, dtype=None):
        """``Tensor(data)`` is float32 unless ``dtype`` says otherwise, as ``torch.Tensor``;
        ``Tensor(2, 3)`` is a 2 x 3 tensor (of zeros: torch leaves it uninitialized)."""
        from minigrad.factories import as_array

        if len(data) == 1 and not isinstance(data[0], int | np.integer):
            array = as_array(data[0], dtype or "float32")
        elif all(isinstance(n, int | np.integer) and not isinstance(n, bool) for n in data):
            array = np.zeros(data, to_dtype(dtype or "float32"))
        else:
            raise TypeError(
                f"Tensor() takes one data argument or sizes, got {len(data)} arguments. "
                "Fix: minigrad.Tensor([1.0, 2.0]) or minigrad.Tensor(2, 3) for a shape.")
        self._data = array
        self._grad = None
        self.grad_fn = None
        self._requires_grad = False
        self._version_counter = [0]
        self._accumulator = None
        self._base = self._views = None
        if GRAD_ENABLED.inference:
            self._is_inference = True
        if requires_grad:
            self.requires_grad = True

    # --- autograd state -------------------------------------------------------
    @property
    def grad(self):
        """The gradient backward() left here; torch's warning when read on a non-leaf."""
        if self.grad_fn is not None and not self.retains_grad:
            warnings.warn(NONLEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            _check_grad(self, value)
        self._grad = value

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool. Fix: set True or False.")
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach(). Fix: y.detach() is a copy of a computed "
                "tensor that does not require grad.")
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(INT_GRAD)
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place; returns the tensor. ``True`` on a computed
        tensor (which requires grad already) changes nothing, as in torch."""
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}. Fix: pass True or "
                            "False.")
        if requires_grad and self.grad_fn is not None:
            return self
        self.requires_grad = requires_grad
        return self

    def is_inference(self):
        """Made inside ``inference_mode()``: it may not be saved for backward, nor changed
        in place outside inference mode (autograd/grad_mode.py)."""
        return self._is_inference

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def _version(self):
        return self._version_counter[0]

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the leaves (see autograd/engine.py)."""
        if inputs is not None and not isinstance(inputs, list | tuple):
            inputs = [inputs]
        if create_graph:  # the backward pass recorded, to differentiate it again
            warnings.warn(engine.CYCLE_WARNING, UserWarning, stacklevel=2)
            if retain_graph is None:
                retain_graph = True
        engine.backward(self, gradient, bool(retain_graph), inputs, create_graph)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a tensor it returns
        replaces the gradient (autograd/graph.py). Returns a handle: ``handle.remove()``."""
        return graph.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """A leaf's hook, ``hook(tensor)``, called after its ``.grad`` was updated."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors. Fix: register it on a leaf (a parameter).")
        return graph.register_hook(self, hook, "_post_hooks")

    def retain_grad(self):
        """Keep ``.grad`` on this non-leaf too after backward (a leaf keeps it anyway)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False. "
                               "Fix: only tensors computed from inputs that require grad "
                               "have a gradient.")
        if self.grad_fn is not None and self.grad_fn._n_outputs > 1:  # a user's Function's
            slots = self.grad_fn.__dict__.setdefault("_retained_slots", {})  # output k
            slots[getattr(self, "_output_nr", 0)] = weakref.ref(self)
        elif self.grad_fn is not None:
            self.grad_fn._retained = weakref.ref(self)

    @property
    def retains_grad(self):
        if self.grad_fn is not None and self.grad_fn._n_outputs > 1:
            ref = self.grad_fn.__dict__.get("_retained_slots", {}).get(
                getattr(self, "_output_nr", 0))
            return ref is not None and ref() is self
        return self.grad_fn is not None and self.grad_fn._retained is not None

    def detach(self):
        """The same data (shared, not copied), cut from the graph: a leaf without grad."""
        out = make(self._data, None)
        out._version_counter = self._version_counter
        if self._is_inference:
            out._is_inference = True
        return out

    @property
    def data(self):
        """torch's ``.data``: the same numbers (shared), requires_grad False, no grad_fn,
        and its own version counter: autograd does not see changes made through it."""
        out = make(self._data, None)
        if self._is_inference:
            out._is_inference = True
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_typename(value)}. "
                            "Fix: wrap it first, t.data = minigrad.tensor(value).")
        if self._requires_grad and value._data.dtype.kind != "f":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype. Fix: convert it first, "
                               "t.data = other.float().")
        self._data = value._data

    # --- conversions ----------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar. Fix: reduce it first (t.sum(), t.mean()) or index "
                               "one element (t[0]).")
        return self._data.item()

    def numpy(self, *, force=False):
        """The numpy array itself (shared, as torch's); refused on a tensor that requires
        grad while grad mode is on (allowed under ``no_grad()`` / ``inference_mode()``, as
        torch) unless ``force=True`` (torch's ``t.detach().numpy()``, still shared)."""
        if self._requires_grad and GRAD_ENABLED.grad and not force:
            raise RuntimeError(NUMPY_GRAD)
        return self._data

    def tolist(self):
        return self._data.tolist()

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(t)``: ``t.numpy()``, so refused on a tensor that requires grad
        while grad mode is on."""
        if self._requires_grad and GRAD_ENABLED.grad:
            raise RuntimeError(NUMPY_GRAD)
        array = self._data if dtype is None else self._data.astype(dtype, copy=False)
        return array.copy() if copy else array

    # --- description ----------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    @property
    def dtype(self):
        return from_numpy(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    @property
    def device(self):
        return devices.CPU

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._data)

    def __contains__(self, element):
        """``x in t``: is any element equal to ``x`` (a number or a tensor), as torch."""
        if not isinstance(element, Tensor | int | float | np.number | np.bool_):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}. Fix: compare with a number.")
        return bool(np.any(self._data == getattr(element, "_data", element)))

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor. Fix: use t.item() for its number.")
        return (self[i] for i in range(len(self._data)))

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is "
                               "ambiguous. Fix: use (t > 0).all() or .any().")
        return bool(self._data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be an index")
        return int(self._data.item())

    # --- torch's everyday methods (ops/trig.py, pointwise.py, clamping.py, ...) -------
    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False):
        """``to(dtype)``, ``to("cpu")``, ``to(device, dtype)``, ``to(other_tensor)``; a
        device other than the CPU is refused."""
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, devices.device) or (
                    isinstance(arg, str) and arg.split(":")[0] in _DEVICE_NAMES):
                device = arg
            else:
                dtype = arg
        devices.check_device(device)
        out = self if dtype is None else convert(self, to_dtype(dtype))
        return out.clone() if copy and out is self else out

    def sin(self):
        return trig.sin(self)

    def cos(self):
        return trig.cos(self)

    def abs(self):
        return pointwise.abs(self)

    __abs__ = absolute = abs  # noqa: A003 - the method, torch's name

    def sqrt(self):
        return pointwise.sqrt(self)

    def sign(self):
        return pointwise.sign(self)

    def clamp(self, min=None, max=None):  # noqa: A002 - torch's names
        return clamping.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002 - torch's name
        return clamping.clamp_min(self, min)

    def clamp_max(self, max):  # noqa: A002 - torch's name
        return clamping.clamp_max(self, max)

    def where(self, condition, other):
        return selection.where(condition, self, other)

    def permute(self, *dims):
        return movement.permute(self, *dims)

    def movedim(self, source, destination):
        return movement.movedim(self, source, destination)

    moveaxis = movedim

    def dot(self, other):
        return norms.dot(self, other)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return norms.norm(self, p, dim, keepdim, dtype)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return comparison.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return comparison.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other):
        return comparison.equal(self, other)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    @property
    def is_cuda(self):
        return False

    def cpu(self):
        return self


_DEVICE_NAMES = ("cpu", "cuda", "mps", "meta", "xpu")


_new = object.__new__


def _typename(value):
    """torch's spelling of a type in its errors: ``int``, ``numpy.ndarray``."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else (
        f"{kind.__module__}.{kind.__name__}")


def _check_grad(tensor, value):
    """torch's checks on ``t.grad = value``: a tensor of ``t``'s shape and dtype."""
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{_typename(value)}. Fix: wrap it, minigrad.tensor(array).")
    if value._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor "
            f"of size '{list(tensor._data.shape)}'. Please ensure that the gradient and the "
            "tensor are the same size. Fix: the gradient has its tensor's shape.")
    if value._data.dtype != tensor._data.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{value.dtype.name}' to a tensor "
            f"with grad_dtype '{tensor.dtype.name}'. The gradient must match the tensor's "
            "grad_dtype. Fix: convert it first, g.to(t.dtype).")


def make(data, grad_fn):
    """A tensor around ``data`` (kept as is), made by ``grad_fn`` (None for a leaf)."""
    t = _new(Tensor)
    t._data = data
    t._grad = None
    t.grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._version_counter = [0]
    t._accumulator = None
    t._base = t._views = None
    if GRAD_ENABLED.inference:
        t._is_inference = True
    return t
