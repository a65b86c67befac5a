r"""Verdicts outside the kernel for the scalar-graph exercises (issue 19; chapters 01-04, 06).

Their tests and the learner's code share objects, not only numbers
(:mod:`minigrad.course.verdicts_graphs_wire`): the test's ``Value`` graphs, tensors and
functions go to the learner's process as data (grads written back after each call), the
learner's objects (an instance of the chapter's ``Value_v1``) stay there behind handles.
Hooks, one line each: :func:`cells_for` in :mod:`minigrad.course.verdicts`,
:func:`server_class` in :mod:`minigrad.course.verdicts_learner`, :func:`proxy` in
:mod:`minigrad.course.verdicts_judge`, :func:`context_cell` in the ``Verdicts``
preprocessor (:mod:`minigrad.course.nbgrader_plugins`).

- **The chapter's definitions.** The learner's code may use what the chapter's own cells
  define (``Value_v1``, ``gradient``, ``backward_order``): :func:`context_cell` keeps a
  non-solution cell's imports, ``def``\ s, ``class``\ es and call-free assignments, each
  on its own (no demo runs), and only the exercises of :data:`GRAPHS` run them.
- **Call depth.** While the test watches how deep the calls go (``sys.setprofile``, 3.2),
  the learner's process measures its own depth and the judge's proxy goes that deep
  (at most :data:`REPLAY`) where the test's watcher sees it; self-reported, like counts.
"""

import ast
import operator
import sys

from minigrad.course.verdicts_graphs_wire import (
    OPERATORS,
    JudgeDecoder,
    JudgeEncoder,
    LearnerDecoder,
    LearnerEncoder,
    Remote,
)
from minigrad.course.verdicts_wire import encode as plain_encode

__all__ = ["GRAPHS", "MARK", "MODE", "context_cell", "cells_for", "server_class", "proxy"]

# The test cells (grade ids) decided with graphs and handles.
GRAPHS = {"ex01-value-div-test", "ex02-slope-along-test", "ex02-descent-test",
          "ex03-topo-sort-test", "ex04-softplus-local-test", "ex04-find-the-bug-test",
          "ex06-split-network-test", "ex06-jacobian-test"}
MARK = "# verdicts: the chapter's definitions\n"
MODE = "# verdicts: graphs and handles\n"
REPLAY = 600  # the deepest call the judge's proxy replays
_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def context_cell(source):
    """A non-solution code cell's definitions, each statement on its own (one failing
    import does not stop the others), marked for :func:`cells_for`."""
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line
             for line in source.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return MARK
    kept = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom | ast.Import) and len(node.names) > 1:
            kept += [type(node)(**{**node.__dict__, "names": [alias]}) for alias in node.names]
        elif isinstance(node, _KEPT) or (isinstance(node, ast.Assign | ast.AnnAssign)
                                          and node.value is not None and _cheap(node.value)):
            kept.append(node)
    body = "".join(f"try:\n{_indent(ast.unparse(node))}\nexcept Exception:\n    pass\n"
                   for node in kept)
    return MARK + body


def _cheap(node):
    """A constant, a name, an attribute, a lambda, or a container of those."""
    if isinstance(node, ast.Constant | ast.Name | ast.Lambda):
        return True
    if isinstance(node, ast.Attribute):
        return _cheap(node.value)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_cheap(n) for n in node.elts)
    if isinstance(node, ast.Dict):
        return all(n is not None and _cheap(n) for n in [*node.keys, *node.values])
    return False


def _indent(text):
    return "\n".join("    " + line for line in text.splitlines())


def cells_for(grade_id, cells):
    """The cells the learner's process of ``grade_id`` runs: the chapter's definitions
    only for :data:`GRAPHS`, which also get graphs and handles (:data:`MODE`)."""
    if grade_id in GRAPHS:
        return [MODE, *cells]
    return [c for c in cells if not c.startswith(MARK)]


# --- the learner's process -----------------------------------------------------------

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


# --- the judge's process ---------------------------------------------------------------

class Session:
    """One exercise's handles in the judge: one :class:`Remote` per learner object."""

    def __init__(self, channel):
        self.channel, self.remotes, self.types = channel, {}, {}

    def remote(self, h, type_name):
        if h not in self.remotes:
            name = type_name if type_name.isidentifier() else "object"
            if name not in self.types:
                self.types[name] = type(name, (Remote,), {"__slots__": ()})
            r = object.__new__(self.types[name])
            r._session, r._h = self, h
            self.remotes[h] = r
        return self.remotes[h]

    def hop(self, kind, *args):
        if kind == "call":
            target, call_args, call_kwargs = args
            args = (target, list(call_args), dict(call_kwargs))
        return self.ask({"op": "hop", "kind": kind}, list(args), {})

    def ask(self, message, args, kwargs):
        from minigrad.course.verdicts_judge import _add_calls, _raised

        encoder = JudgeEncoder()
        message = {**message, "args": encoder.enc(args), "kwargs": encoder.enc(kwargs)}
        message["objs"] = encoder.finish()
        if sys.getprofile() is not None:
            message["watch"] = True
        reply = self.channel.ask(message)
        _add_calls(reply.get("calls"))
        if reply.get("op") == "raised":
            raise _raised(reply)
        if reply.get("op") != "result":
            raise RuntimeError(str(reply.get("message", "your code's process stopped")))
        decoder = JudgeDecoder(self, encoder)
        decoder.write_back(reply.get("writeback"))
        depth = reply.get("depth")
        if type(depth) is int and depth > 0 and sys.getprofile() is not None:
            _deeper(min(depth, REPLAY))
        return decoder.dec(reply["value"])


def _deeper(n):
    if n > 1:
        _deeper(n - 1)


def proxy(ready, channel, name):
    """The judge's stand-in for the learner's name ``name``: with graphs and handles when
    the learner's process offers them (``ready["handles"]``), else the plain one."""
    from minigrad.course.verdicts_judge import Proxy

    if ready.get("handles") is not True:
        return Proxy(channel, name)
    if "_session" not in ready:
        ready["_session"] = Session(channel)
    session = ready["_session"]

    class GraphProxy(Proxy):
        def __call__(self, *args, **kwargs):
            return session.ask({"op": "call", "name": self.__name__}, list(args), dict(kwargs))

    return GraphProxy(channel, name)
