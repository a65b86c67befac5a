"""The dtypes and the ``Size`` of a tensor, named as PyTorch names them (chapter 05).

A minigrad tensor keeps its numbers in a numpy array. Its ``dtype`` is one of the
small objects below (``minigrad.float32`` by default, like torch), each wrapping the
numpy dtype that stores it, and its ``shape`` is a :class:`Size`, a tuple that prints
as ``minigrad.Size([3, 4])`` the way torch's prints as ``torch.Size([3, 4])``.
"""

import numpy as np

__all__ = ["Size", "dtype", "float32", "float64", "int64", "bool_", "to_dtype", "from_numpy"]


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
bool_ = dtype("bool", np.bool_, "BoolTensor")

_BY_NUMPY = {d.numpy: d for d in (float32, float64, int64, bool_)}
_BY_NAME = {"float32": float32, "float": float32, "float64": float64, "double": float64,
            "int64": int64, "long": int64, "bool": bool_}


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
        return np.dtype(spec)
    except TypeError:
        raise TypeError(f"unknown dtype {spec!r}: use minigrad.float32, minigrad.float64 "
                        "or minigrad.int64") from None
