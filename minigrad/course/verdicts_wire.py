r"""Plain data between the judge and the learner's process (issue 19; every converted chapter).

One message is one line of JSON. What crosses is plain data only: ``None``, booleans,
numbers, strings, lists, tuples, dicts, numpy arrays and scalars of numeric dtypes, and
minigrad ``Tensor``\ s and ``Value``\ s as their numbers (a leaf rebuilt on the other
side, never the object). A callable crosses as a reference: calling it asks the side that
owns it to call the real one (:mod:`minigrad.course.verdicts_learner` and
:mod:`minigrad.course.verdicts_judge`). :func:`decode` accepts nothing else, so a
learner's answer that reads the reference (an ``__eq__``, ``__float__`` or ``detach``
that looks for it) cannot cross: only its numbers do, computed where no reference is.
"""

import base64
import json
import math

import numpy as np

__all__ = ["encode", "decode", "dumps", "loads", "tensors", "Ref", "WireError", "MAX_LINE"]

MAX_LINE = 64 * 1024 ** 2  # bytes of one message
_KINDS = "biufc"  # bool, int, uint, float, complex: the dtypes that cross
_LIMIT = 10_000_000  # elements of one array
# Extra kinds (minigrad.course.verdicts_callables, chapters 11, 12, 14, 15): encoders tried
# before a callable becomes a reference; decoders a process installs for itself (only the
# learner's: they re-create the test's functions)
ENCODERS, DECODERS = [], {}


class Ref:
    """A callable of the other side, handed back: crosses as its reference."""

    _ref, __name__ = 0, "f"


class WireError(TypeError):
    """A value that is not plain data."""


def _array(a):
    a = np.array(a, order="C", copy=True)
    if a.dtype.kind not in _KINDS:
        raise WireError(f"an array of dtype {a.dtype} is not plain numbers")
    return {"t": "nd", "dtype": a.dtype.str, "shape": list(a.shape),
            "b64": base64.b64encode(a.tobytes()).decode("ascii")}


def encode(x, refs=None):
    """``x`` as JSON-ready plain data; callables become references kept in ``refs``."""
    from minigrad.tensors import Tensor
    from minigrad.value import Value

    if x is None or type(x) in (bool, str):
        return x
    if type(x) is int:
        return x if abs(x) < 2 ** 53 else {"t": "bigint", "v": str(x)}
    if type(x) is float:
        return x if math.isfinite(x) else {"t": "float", "v": repr(x)}
    if type(x) in (list, tuple):
        return {"t": type(x).__name__, "v": [encode(v, refs) for v in x]}
    if type(x) is dict:
        return {"t": "dict", "v": [[encode(k, refs), encode(v, refs)] for k, v in x.items()]}
    if type(x) is np.ndarray:
        return _array(x)
    if isinstance(x, np.generic) and type(x).__module__ == "numpy":
        return {"t": "np", "v": _array(np.asarray(x))}
    if type(x) is Tensor:  # its numbers, and the gradients it carries (grad, the course's g)
        extra = {k: encode(getattr(x, k)) for k in ("grad", "g")
                 if type(getattr(x, k, None)) in (Tensor, np.ndarray)}
        return {"t": "Tensor", "v": _array(np.asarray(x.data)),
                "requires_grad": bool(x.requires_grad), **extra}
    if type(x) is Value:
        return {"t": "Value", "v": encode(x.data), "grad": encode(x.grad)}
    if type(x).__module__ == "torch" and type(x).__name__ in ("Tensor", "Parameter"):
        return _array(x.detach().cpu().numpy())
    for encoder in ENCODERS:
        if (shipped := encoder(x)) is not None:
            return shipped
    if isinstance(x, Ref):
        return {"t": "fn", "ref": x._ref, "name": x.__name__}
    if refs is not None and callable(x):
        refs.append(x)
        return {"t": "fn", "ref": len(refs) - 1, "name": str(getattr(x, "__name__", "f"))}
    raise WireError(f"a {type(x).__name__} is not plain data (numbers, arrays, tensors, "
                    "or lists, tuples and dicts of them)")


def _decode_array(d):
    dtype = np.dtype(d["dtype"])
    if dtype.kind not in _KINDS or dtype.hasobject:
        raise WireError(f"dtype {dtype} does not cross")
    shape = tuple(int(n) for n in d["shape"])
    if any(n < 0 for n in shape) or math.prod(shape) > _LIMIT:
        raise WireError(f"shape {shape} does not cross")
    data = base64.b64decode(d["b64"], validate=True)
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def decode(d, fn=None):
    """The value of :func:`encode`'s output ``d``; ``fn(ref, name)`` rebuilds a callable."""
    if d is None or type(d) in (bool, int, float, str):
        return d
    if type(d) is not dict or type(d.get("t")) is not str:
        raise WireError(f"{type(d).__name__} is not a message part")
    t = d["t"]
    if t in ("list", "tuple"):
        items = [decode(v, fn) for v in d["v"]]
        return items if t == "list" else tuple(items)
    if t == "dict":
        return {decode(k, fn): decode(v, fn) for k, v in d["v"]}
    if t == "nd":
        return _decode_array(d)
    if t == "np":
        return _decode_array(d["v"])[()]
    if t == "bigint":
        return int(d["v"])
    if t == "float":
        return float(d["v"])
    if t == "Tensor":
        import minigrad

        t = minigrad.tensor(_decode_array(d["v"]), requires_grad=bool(d["requires_grad"]))
        for key in ("grad", "g"):
            if key in d:
                value = decode(d[key])
                if type(value) is not type(t):
                    raise WireError(f"a tensor's {key} is a tensor")
                setattr(t, key, value)
        return t
    if t == "Value":
        from minigrad.value import Value

        v = Value(float(decode(d["v"])))
        v.grad = float(decode(d["grad"]))
        return v
    if t == "fn" and fn is not None:
        return fn(int(d["ref"]), str(d["name"]))
    if t in DECODERS:
        return DECODERS[t](d, fn)
    raise WireError(f"{t!r} does not cross")


def dumps(message):
    """One line of JSON (NaN and infinities are encoded before)."""
    return json.dumps(message, allow_nan=False) + "\n"


def loads(line):
    if len(line) > MAX_LINE:
        raise WireError("message too long")
    message = json.loads(line)
    if type(message) is not dict:
        raise WireError("a message is a JSON object")
    return message


def tensors(x):
    """The minigrad tensors and values in ``x`` and its lists, tuples and dicts, in order:
    the learner's process and the judge walk a call's arguments with this one function, so
    the n-th tensor written back is the n-th tensor given."""
    if type(x).__name__ in ("Tensor", "Value") and type(x).__module__.startswith("minigrad"):
        return [x]
    if type(x) in (list, tuple):
        return [t for v in x for t in tensors(v)]
    if type(x) is dict:
        return [t for v in x.values() for t in tensors(v)]
    return []
