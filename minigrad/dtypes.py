"""The dtypes and the ``Size`` of a tensor, named as PyTorch names them (chapter 05).

A minigrad tensor keeps its numbers in a numpy array, but its dtypes follow torch's
rules, not numpy's (:func:`result_type`). Its ``dtype`` is one of the
small objects below (``minigrad.float32`` by default, like torch), each wrapping the
numpy dtype that stores it, and its ``shape`` is a :class:`Size`, a tuple that prints
as ``minigrad.Size([3, 4])`` the way torch's prints as ``torch.Size([3, 4])``.
"""

import numpy as np

__all__ = ["Size", "dtype", "float32", "float64", "int64", "int32", "bool_", "to_dtype",
           "from_numpy",
           "result_type", "torch_name", "DEFAULT_FLOAT"]


class Size(tuple):
    """A tensor's shape: a plain tuple with torch's look (``minigrad.Size([3, 4])``)."""

    __slots__ = ()

    def __repr__(self):
        return f"minigrad.Size({list(self)})"

    def numel(self):
        """Number of elements a tensor of this shape holds."""
        n = 1
        for size in self:
            n *= size
        return n


class dtype:  # noqa: N801 - torch's name
    """A tensor element type: its name, the numpy dtype behind it, whether it is float."""

    __slots__ = ("name", "numpy", "is_floating_point", "tensor_type")

    def __init__(self, name, numpy_dtype, tensor_type):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.tensor_type = tensor_type

    def __repr__(self):
        return f"minigrad.{self.name}"

    def __reduce__(self):
        return (to_dtype, (self.name,))


float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
int64 = dtype("int64", np.int64, "LongTensor")
int32 = dtype("int32", np.int32, "IntTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")

_BY_NUMPY = {d.numpy: d for d in (float32, float64, int64, int32, bool_)}
_SUPPORTED = frozenset(_BY_NUMPY)
_BY_NAME = {"float32": float32, "float": float32, "float64": float64, "double": float64,
            "int64": int64, "long": int64, "int32": int32, "int": int32, "bool": bool_}


def from_numpy(numpy_dtype):
    """The minigrad dtype of a numpy dtype (other numpy types show as their numpy name)."""
    found = _BY_NUMPY.get(numpy_dtype)
    if found is None:
        found = dtype(str(numpy_dtype), numpy_dtype, "Tensor")
        _BY_NUMPY[numpy_dtype] = found
    return found


def to_dtype(spec):
    """Accept ``minigrad.float64``, a numpy dtype or type, or a name; return a numpy dtype."""
    if isinstance(spec, dtype):
        return spec.numpy
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec].numpy
    try:
        found = np.dtype(spec)
    except TypeError:
        found = None
    if found not in _SUPPORTED:
        raise TypeError(f"unknown dtype {spec!r}: minigrad has float32, float64, int64, "
                        "int32 and bool. Fix: use minigrad.float32, minigrad.float64 or "
                        "minigrad.int64.") from None
    return found


DEFAULT_FLOAT = np.dtype(np.float32)
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def _promote(a, b):
    """torch's promotion of two dtypes: the higher category (bool < int < float) wins;
    within one, the wider type. (numpy makes int64 with float32 float64; torch float32.)"""
    if a is None or b is None:
        return a if b is None else b
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
    return a if a.itemsize >= b.itemsize else b


def _combine(higher, lower):
    """torch's ``combine_categories``: a lower-priority group only raises the category."""
    if higher is not None and higher.kind == "f":
        return higher
    if higher is not None and (higher.kind == "b" or (lower is not None and lower.kind == "f")):
        return _promote(higher, lower)
    return higher if higher is not None else lower


def result_type(a, b=None, true_divide=False):
    r"""The dtype torch gives ``a + b`` (or ``a / b`` with ``true_divide``): operands are
    numpy arrays (a tensor's data) or Python numbers, in three groups of falling
    priority: tensors with dimensions, 0-d tensors, numbers. A lower group changes the
    result only if its category is higher: ``float32 tensor * 2.5`` and ``float32
    tensor + 0-d float64 tensor`` stay float32; ``int tensor * 2.5`` is float32 (the
    default float dtype), not numpy's float64; ``int / int`` is float32."""
    groups = [None, None, None]
    for x in (a, b) if b is not None else (a,):
        if isinstance(x, np.ndarray):
            group, kind = (0 if x.ndim else 1), x.dtype
        elif isinstance(x, bool | np.bool_):
            group, kind = 2, _BOOL
        elif isinstance(x, int | np.integer):
            group, kind = 2, _INT
        else:  # a Python float (np.float64 is one): the default float dtype
            group, kind = 2, DEFAULT_FLOAT
        groups[group] = _promote(groups[group], kind)
    result = _combine(groups[0], _combine(groups[1], groups[2]))
    if true_divide and result.kind != "f":
        return DEFAULT_FLOAT
    return result


_BOOL = np.dtype(np.bool_)
_INT = np.dtype(np.int64)


def torch_name(numpy_dtype):
    """torch's scalar-type name in messages: Float, Double, Long, Bool."""
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
            "bool": "Bool"}.get(
        str(numpy_dtype), str(numpy_dtype))
