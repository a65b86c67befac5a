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
import sys

from minigrad.course.verdicts_graphs_learner import MODE
from minigrad.course.verdicts_graphs_wire import JudgeDecoder, JudgeEncoder, Remote

__all__ = ["GRAPHS", "MARK", "MODE", "context_cell", "cells_for", "proxy"]

# The test cells (grade ids) decided with graphs and handles.
GRAPHS = {"ex01-value-div-test", "ex02-slope-along-test", "ex02-descent-test",
          "ex03-topo-sort-test", "ex04-softplus-local-test", "ex04-find-the-bug-test",
          "ex06-split-network-test", "ex06-jacobian-test"}
MARK = "# verdicts: the chapter's definitions\n"
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
