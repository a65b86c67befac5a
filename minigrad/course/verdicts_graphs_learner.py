r"""The learner's side of the graph verdicts (issue 19; chapters 01-04 and 06).

:func:`server_class` gives the learner's process of an exercise of
:data:`minigrad.course.verdicts_graphs.GRAPHS` a server (built on
:class:`minigrad.course.verdicts_learner.Server`) that rebuilds the judge's Values,
tensors and functions for each call (:class:`LearnerDecoder`), answers with plain data,
the judge's own objects by their place, or handles to its own (:class:`LearnerEncoder`),
writes back the grads and data the call left in the judge's objects, and serves the
operations on handles (attribute reads and writes, calls, arithmetic). While the test
watches call depth it measures its own (:class:`_Depth`).
"""

import base64
import builtins
import importlib
import marshal
import operator
import sys
import types

import numpy as np

from minigrad.course.verdicts_graphs_wire import OPERATORS, _kinds
from minigrad.course.verdicts_wire import WireError
from minigrad.course.verdicts_wire import decode as plain_decode
from minigrad.course.verdicts_wire import encode as plain_encode

__all__ = ["MODE", "server_class", "LearnerDecoder", "LearnerEncoder"]

MODE = "# verdicts: graphs and handles\n"


def server_class(setup, base):
    """The learner's server: :class:`GraphServer` (built on ``base``) for :data:`GRAPHS`."""
    if setup.get("cells", [None])[:1] != [MODE]:
        return base

    class GraphServer(base):
        """Calls with graphs, functions and handles; and the operations on handles."""

        def __init__(self, stdin, stdout):
            super().__init__(stdin, stdout)
            self.handles, self.handle_ids = [], {}

        def handle(self, x):
            if id(x) not in self.handle_ids:  # kept alive: the id stays this object's
                self.handle_ids[id(x)] = len(self.handles)
                self.handles.append(x)
            return self.handle_ids[id(x)]

        def send(self, message):
            if message.get("op") == "ready":
                message["handles"] = True
            super().send(message)

        def serve(self):
            while True:
                message = self.receive()
                op = message.get("op")
                if op == "call":
                    fn = self.namespace[message["name"]]
                    self.send(self.run(message, lambda a, k, fn=fn: fn(*a, **k)))
                elif op == "hop":
                    self.send(self.run(message, _hop(message.get("kind"))))
                elif op == "value":
                    try:
                        self.send({"op": "result",
                                   "value": plain_encode(self.namespace[message["name"]])})
                    except Exception as exc:  # noqa: BLE001 - not plain data: not offered
                        self.send({"op": "raised", "type": type(exc).__name__,
                                   "message": str(exc)})
                else:
                    super().send({"op": "bye", "cpu": _learner().cpu_seconds()})
                    raise SystemExit(0)

        def run(self, message, action):
            learner = _learner()
            decoder = LearnerDecoder(self, message.get("objs", []))
            args, kwargs = decoder.dec(message["args"]), decoder.dec(message["kwargs"])
            for entry in learner._COUNTS.values():
                entry[0] = 0
            depth = _Depth() if message.get("watch") else None
            try:
                if depth:
                    with depth:
                        result = action(args, kwargs)
                else:
                    result = action(args, kwargs)
                encoder = LearnerEncoder(self, decoder)
                return {"op": "result", "value": encoder.enc(result),
                        "writeback": decoder.write_back(encoder), "calls": learner._calls(),
                        "depth": depth.deepest if depth else 0}
            except BaseException as exc:  # noqa: BLE001 - its name and text go to the judge
                return {"op": "raised", "type": type(exc).__name__, "message": str(exc)[:2000],
                        "where": learner._where(exc), "calls": learner._calls()}

    return GraphServer


def _learner():
    from minigrad.course import verdicts_learner

    return verdicts_learner


def _hop(kind):
    """What one operation on a handle does, given its decoded arguments."""
    if kind == "getattr":
        return lambda a, k: getattr(a[0], str(a[1]))
    if kind == "setattr":
        return lambda a, k: setattr(a[0], str(a[1]), a[2])
    if kind == "call":
        return lambda a, k: a[0](*a[1], **a[2])
    if kind == "float":
        return lambda a, k: float(a[0])
    if kind == "op":
        return lambda a, k: getattr(operator, a[0] if a[0] in OPERATORS else "_")(*a[1:])
    raise ValueError(f"unknown operation {kind!r}")


class _Depth:
    """The deepest Python call under this block, as the test's profiler counts them."""

    def __enter__(self):
        self.now = self.low = self.deepest = 0
        self.previous = sys.getprofile()
        sys.setprofile(self.watch)
        return self

    def watch(self, frame, event, arg):
        if event == "call":
            self.now += 1
            self.deepest = max(self.deepest, self.now - self.low)
        elif event == "return":
            self.now -= 1
            self.low = min(self.low, self.now)

    def __exit__(self, *exc):
        sys.setprofile(self.previous)
        return False


class LearnerDecoder:
    """The judge's message, rebuilt in the learner's process (``server``: its handles
    and namespace)."""

    def __init__(self, server, objs):
        value_type, _ = _kinds()
        self.server, self.built = server, []
        for d in objs:  # first every object, empty, so that any may refer to any
            if d["k"] == "value":
                self.built.append(value_type.__new__(value_type))
            elif d["k"] == "tensor":
                self.built.append(plain_decode(d["v"]))  # a leaf, with its grad
            else:
                code = marshal.loads(base64.b64decode(d["code"]))
                cells = tuple(types.CellType() for _ in code.co_freevars)
                self.built.append(types.FunctionType(
                    code, {"__builtins__": builtins}, str(d["name"]), None, cells))
        for x, d in zip(self.built, objs, strict=True):
            if d["k"] == "value":
                x.data, x.grad, x.label, x._op = float(d["data"]), self.dec(d["grad"]), \
                    d["label"], d["op"]
                x._prev = tuple(self.built[int(i)] for i in d["prev"])
                x._local_grads, x._saved = self.dec(d["local"]), self.dec(d["saved"])
            elif d["k"] == "fn":
                for cell, v in zip(x.__closure__ or (), d["closure"], strict=True):
                    if v != {"t": "empty"}:
                        cell.cell_contents = self.dec(v)
                x.__globals__.update({n: self.dec(v) for n, v in d["globals"].items()})
                x.__defaults__, x.__kwdefaults__ = self.dec(d["defaults"]), \
                    self.dec(d["kwdefaults"])
        self.index = {id(x): i for i, x in enumerate(self.built)}

    def dec(self, d):
        t = d.get("t") if type(d) is dict else None
        if t in ("list", "tuple"):
            items = [self.dec(v) for v in d["v"]]
            return items if t == "list" else tuple(items)
        if t == "dict":
            return {self.dec(k): self.dec(v) for k, v in d["v"]}
        if t == "h":
            return self.server.handles[int(d["h"])]
        if t == "j":
            return self.built[int(d["i"])]
        if t == "lname":
            return self.server.namespace[str(d["name"])]
        if t == "module":
            return importlib.import_module(str(d["name"]))
        if t == "pkg":
            obj = importlib.import_module(str(d["module"]))
            for part in str(d["qualname"]).split("."):
                obj = getattr(obj, part)
            return obj
        return plain_decode(d)

    def write_back(self, encoder):
        """The grad and data of every object of the judge's, after the call."""
        value_type, _ = _kinds()
        out = []
        for x in self.built:
            try:
                if type(x) is value_type:
                    out.append({"grad": encoder.enc(x.grad), "data": encoder.enc(x.data)})
                elif type(x).__name__ == "Tensor":
                    out.append({"grad": encoder.enc(x.grad),
                                "data": plain_encode(np.array(x.data.numpy()))})
                else:
                    out.append({})
            except Exception:  # noqa: BLE001 - not plain: not written back
                out.append({})
        return out


class LearnerEncoder:
    """An answer of the learner's code: the judge's objects by their place, plain data
    as itself, anything else as a handle the learner's process keeps."""

    def __init__(self, server, decoder):
        self.server, self.decoder = server, decoder

    def enc(self, x):
        value_type, tensor_type = _kinds()
        if type(x) in (value_type, tensor_type, types.FunctionType) and \
                id(x) in self.decoder.index and self.decoder.built[self.decoder.index[id(x)]] is x:
            return {"t": "j", "i": self.decoder.index[id(x)]}
        if type(x) in (list, tuple):
            return {"t": type(x).__name__, "v": [self.enc(v) for v in x]}
        if type(x) is dict:
            return {"t": "dict", "v": [[self.enc(k), self.enc(v)] for k, v in x.items()]}
        try:
            return plain_encode(x)
        except WireError:
            return {"t": "h", "h": self.server.handle(x), "type": type(x).__name__}
