r"""Graphs, functions and handles between the judge and the learner (issue 19; chapters 01-06).

:mod:`minigrad.course.verdicts_graphs` uses this for the exercises whose test and the
learner's code share objects, not only numbers:

- the **judge's** objects go to the learner's process as data, rebuilt there for one
  call: a ``Value`` with its whole graph (data, grad, parents, op, local-gradient
  function), a ``Tensor`` (numbers, ``requires_grad``, ``grad``), a test function (its
  code, its closure's and globals' values, rebuilt the same way), a module or a function
  of the package by name. After the call their ``grad`` and ``data`` are written back
  onto the judge's originals; one the learner's code returns comes back as itself.
- the **learner's** objects that are not plain data (an instance of the chapter's
  ``Value_v1``, a bound method) stay in the learner's process: the judge gets a
  :class:`Remote` handle whose attribute reads and writes, calls and arithmetic are
  asked of the learner's process, each answer plain data or another handle. A handle
  never runs code in the judge, and never takes part in a comparison (``==`` is identity).

This module is the judge's side (:class:`JudgeEncoder`, :class:`JudgeDecoder`);
:mod:`minigrad.course.verdicts_graphs_learner` the learner's. No pickle: the judge's
code objects go one way only, to the learner; what comes back is plain data or handles.
"""

import base64
import dis
import marshal
import sys
import types

from minigrad.course.verdicts_wire import WireError
from minigrad.course.verdicts_wire import decode as plain_decode
from minigrad.course.verdicts_wire import encode as plain_encode

__all__ = ["Remote", "JudgeEncoder", "JudgeDecoder", "OPERATORS"]

MODULES = ("minigrad", "numpy", "math", "builtins", "operator", "functools", "itertools")
# The arithmetic a handle forwards (reflected forms swap the operands); no comparisons.
OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
             "neg", "pos", "abs")


def _kinds():
    from minigrad.tensors import Tensor
    from minigrad.value import Value

    return Value, Tensor


def _package_name(x):
    """("module", "qualname") of a function or class of an allowed module, or None."""
    module = getattr(x, "__module__", None)
    qualname = getattr(x, "__qualname__", None) or getattr(x, "__name__", None)
    if type(module) is not str or type(qualname) is not str or "<" in qualname \
            or module.partition(".")[0] not in MODULES or module not in sys.modules:
        return None
    obj = sys.modules[module]
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return (module, qualname) if obj is x else None


def _names(code):
    """The global names ``code`` (and the functions it defines) reads or writes: not
    its attribute names, so a global that only shares an attribute's name stays here."""
    names = {i.argval for i in dis.get_instructions(code)
             if i.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


class Remote:
    """One of the learner's objects, left in the learner's process (see the module doc)."""

    __slots__ = ("_session", "_h", "__weakref__")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._session.hop("getattr", self, name)

    def __setattr__(self, name, value):
        if name in Remote.__slots__:
            object.__setattr__(self, name, value)
        else:
            self._session.hop("setattr", self, name, value)

    def __call__(self, *args, **kwargs):
        return self._session.hop("call", self, args, kwargs)

    def __float__(self):
        return self._session.hop("float", self)

    def __repr__(self):
        return f"<your {type(self).__name__}>"


def _operator(name, reflected=False):
    if name in ("neg", "pos", "abs"):
        return lambda self: self._session.hop("op", name, self)
    if reflected:
        return lambda self, other: self._session.hop("op", name, other, self)
    return lambda self, other: self._session.hop("op", name, self, other)


for _name in OPERATORS:
    setattr(Remote, f"__{_name}__", _operator(_name))
    if _name not in ("neg", "pos", "abs"):
        setattr(Remote, f"__r{_name}__", _operator(_name, reflected=True))


class JudgeEncoder:
    """The judge's side of one message: its objects as a flat table ``objs``."""

    def __init__(self):
        self.originals, self.objs, self.index, self.todo = [], [], {}, []

    def ref(self, x):
        if id(x) not in self.index:
            self.index[id(x)] = len(self.originals)
            self.originals.append(x)
            self.objs.append(None)
            self.todo.append(x)
        return self.index[id(x)]

    def enc(self, x):
        from minigrad.course.verdicts_judge import Proxy

        value_type, tensor_type = _kinds()
        if isinstance(x, Remote):
            return {"t": "h", "h": x._h}
        if isinstance(x, Proxy):
            return {"t": "lname", "name": x.__name__}
        if type(x) in (list, tuple):
            return {"t": type(x).__name__, "v": [self.enc(v) for v in x]}
        if type(x) is dict:
            return {"t": "dict", "v": [[self.enc(k), self.enc(v)] for k, v in x.items()]}
        if type(x) in (value_type, tensor_type, types.FunctionType):
            return {"t": "j", "i": self.ref(x)}
        if type(x) is types.ModuleType and x.__name__.partition(".")[0] in MODULES:
            return {"t": "module", "name": x.__name__}
        name = None if type(x) in (bool, int, float, str) else _package_name(x)
        if name:
            return {"t": "pkg", "module": name[0], "qualname": name[1]}
        return plain_encode(x)  # numbers, arrays; anything else raises WireError

    def finish(self):
        """Describe every object referred to (their parents, closures... in turn)."""
        value_type, tensor_type = _kinds()
        while self.todo:
            x = self.todo.pop()
            i = self.index[id(x)]
            if type(x) is value_type:
                self.objs[i] = {"k": "value", "data": plain_encode(float(x.data)),
                                "grad": self.enc(x.grad), "label": str(x.label),
                                "op": str(x._op), "prev": [self.ref(p) for p in x._prev],
                                "local": self.enc(x._local_grads), "saved": self.enc(x._saved)}
            elif type(x) is tensor_type:
                self.objs[i] = {"k": "tensor", "v": plain_encode(x)}
            else:
                code = x.__code__
                self.objs[i] = {
                    "k": "fn", "name": x.__name__,
                    "code": base64.b64encode(marshal.dumps(code)).decode("ascii"),
                    "defaults": self.enc(x.__defaults__), "kwdefaults": self.enc(x.__kwdefaults__),
                    "closure": [self.enc(c.cell_contents) if _full(c) else {"t": "empty"}
                                for c in x.__closure__ or ()],
                    "globals": {n: self.enc(x.__globals__[n]) for n in sorted(_names(code))
                                if n in x.__globals__}}
        return self.objs


def _full(cell):
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
        return True
    except ValueError:
        return False


class JudgeDecoder:
    """The learner's answer to one message, in the judge: plain data, handles, or the
    judge's own objects (by their place in the message's table)."""

    def __init__(self, session, encoder):
        self.session, self.encoder = session, encoder

    def dec(self, d):
        if type(d) is dict and d.get("t") in ("list", "tuple"):
            items = [self.dec(v) for v in d["v"]]
            return items if d["t"] == "list" else tuple(items)
        if type(d) is dict and d.get("t") == "dict":
            return {self.dec(k): self.dec(v) for k, v in d["v"]}
        if type(d) is dict and d.get("t") == "h":
            return self.session.remote(int(d["h"]), str(d.get("type", "object")))
        if type(d) is dict and d.get("t") == "j":
            i = int(d["i"])
            if not 0 <= i < len(self.encoder.originals):
                raise WireError("your code's process answered out of turn")
            return self.encoder.originals[i]
        return plain_decode(d)

    def write_back(self, fields_list):
        """The grads and data the learner's code left in the judge's objects."""
        from minigrad.course.verdicts_judge import _write_data

        value_type, tensor_type = _kinds()
        if type(fields_list) is not list or len(fields_list) != len(self.encoder.originals):
            raise WireError("your code's process answered out of turn")
        for x, fields in zip(self.encoder.originals, fields_list, strict=True):
            if type(fields) is not dict:
                continue
            if type(x) is value_type:
                for key in ("grad", "data"):
                    if key in fields:
                        value = self.dec(fields[key])
                        setattr(x, key, float(value) if key == "data" else value)
            elif type(x) is tensor_type:
                _write_data(x, fields.get("data"))
                if "grad" in fields:
                    grad = self.dec(fields["grad"])
                    if grad is None or type(grad) is tensor_type:
                        x.grad = grad
