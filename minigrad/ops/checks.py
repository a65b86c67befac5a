"""torch's refusals that come before an op computes anything (chapters 05, 12): the
``alpha`` of ``add``/``sub``, an in-place op whose operand overlaps the tensor it
writes, a dimension named twice in a reduction, a number where a function of
``minigrad`` or ``F`` takes a tensor. Each raises torch's exception type
with torch's words, then a "Fix:" line."""

import functools

import numpy as np

from minigrad.dtypes import result_type

__all__ = ["alpha_operand", "check_overlap", "check_unique_dims", "tensor_arguments"]


def alpha_operand(a, other, alpha, subtract=False):
    """``other * alpha`` for ``a.add(other, alpha=alpha)``, refused as torch refuses: a
    float alpha with integer tensors, a bool tensor in a subtraction. A bool result
    stays bool (``alpha`` is then True or False)."""
    from minigrad.ops.arithmetic import _check_bool_sub

    if subtract:
        _check_bool_sub(a, other)
    dtype = result_type(a._data, getattr(other, "_data", other))
    if dtype.kind in "iub" and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number. Fix: an int alpha, or make the tensors float first, "
                           "t.float().")
    if alpha == 1:
        return other
    if dtype.kind == "b":
        return other if alpha else other * False
    from minigrad.ops.promotion import promote

    return promote(a, other)[1] * alpha  # in the result's dtype, as torch


def _dense(array):
    return array.flags.c_contiguous or array.flags.f_contiguous


def check_overlap(out, other):
    """An in-place op reading ``other`` while writing ``out``: torch refuses when both
    are dense and their memory overlaps without being the very same elements."""
    if not isinstance(other, np.ndarray) or not out.size or not other.size:
        return
    start_a = out.__array_interface__["data"][0]
    start_b = other.__array_interface__["data"][0]
    if not (start_a < start_b + other.nbytes and start_b < start_a + out.nbytes):
        return
    if not (_dense(out) and _dense(other)):
        return  # torch: too hard to tell, allowed
    same = start_a == start_b and out.shape == other.shape and all(
        s == t for s, t, n in zip(out.strides, other.strides, out.shape, strict=True) if n > 1)
    if not same:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please "
                           "clone() the tensor before performing the operation. Fix: "
                           "t.add_(t.t().clone()), not t.add_(t.t()).")


def check_unique_dims(dims):
    """``t.sum((0, -1))`` on a vector names dimension 0 twice: torch refuses."""
    seen = set()
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims. Fix: "
                               "name each dimension once (0 and -1 are the same one of a "
                               "vector).")
        seen.add(d)


def tensor_arguments(name, *arguments):
    """Decorate a function taking tensors, named ``arguments`` (a trailing ``?``: may be
    None; ``~``: may be a numpy array, as minigrad's ``cross_entropy`` target): anything
    else is torch's TypeError (``torch.exp(3)``), not an AttributeError."""

    def decorate(function):
        @functools.wraps(function)
        def checked(*args, **kwargs):
            for i, (arg, argument) in enumerate(zip(args, arguments, strict=False)):
                if hasattr(arg, "grad_fn") or arg is None and argument.endswith("?") or (
                        isinstance(arg, np.ndarray) and argument.endswith("~")):
                    continue
                raise TypeError(f"{name}(): argument '{argument.rstrip('?~')}' (position "
                                f"{i + 1}) must be Tensor, not {type(arg).__name__}. Fix: "
                                "make it a tensor first, minigrad.tensor(x).")
            return function(*args, **kwargs)

        return checked

    return decorate
