r"""The learner's process of a verdict (issue 19): the submission's code runs here alone.

Started by :mod:`minigrad.course.verdicts` as ``python -I -S`` under bubblewrap, with no
minigrad package mounted: its source arrives on stdin and is written to the private
``/tmp``, imported whole, then deleted, so no fresh copy of a route can be loaded later
(:func:`prepare`); or forked, after that part, from the learners' fork server
(:mod:`minigrad.course.forkserver_learner`), which did it once. Per exercise
(:func:`exercise`), before any learner code runs, the routes the exercise forbids
(``module:qualname`` as in :data:`minigrad.course.grading.ROUTES`) get a raiser as their
code, the originals are dropped and collected; an import blocker makes every module outside
the standard library, numpy and minigrad unimportable (torch first). Then the preamble and
the submission's solution cells run, and calls are served: plain data in, plain data out
(:mod:`minigrad.course.verdicts_wire`), with the ``grad`` and ``g`` of every tensor given
written back. The exercise's test, its references and its pass/fail never come here.
"""

import gc
import importlib.abc
import importlib.util
import os
import shutil
import sys
import traceback

import numpy as np

from minigrad.course import verdicts_classes, verdicts_models
from minigrad.course.verdicts_wire import Ref, decode, dumps, encode, loads, tensors

__all__ = ["serve", "prepare", "exercise", "forbid", "count", "Blocker", "host_only"]

ALLOWED = ("numpy", "minigrad")
# The grader's side (sandboxes, fork server, nbgrader's hooks, the widgets):
# never sent here nor imported (about 5% of a learner process's start-up)
HOST_ONLY = ("minigrad.course.widgets", "minigrad.course.nbgrader_plugins",
             "minigrad.course.forkserver", "minigrad.course.sandbox",
             "minigrad.course.verdicts_process")


def host_only(module):
    """Whether ``module`` stays on the grader's side: :data:`HOST_ONLY`, and
    ``minigrad.course.verdicts`` itself (it decides; its siblings are the learner's)."""
    return module.startswith(HOST_ONLY) or module == "minigrad.course.verdicts"


class Blocker(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Every module outside the standard library and ``ALLOWED`` imports as an empty
    stand-in whose every use raises :class:`Forbidden` (an ``import torch`` at the top of
    a solution cell does not stop the cell; using torch fails the call that uses it)."""

    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top in ALLOWED or top.startswith("_"):
            return None
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        import types

        module = types.ModuleType(spec.name)
        module.__path__ = []

        def absent(attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            raise Forbidden(f"{spec.name}.{attr} (not available while this exercise is "
                            "graded)")

        module.__getattr__ = absent
        return module

    def exec_module(self, module):
        pass


def _raiser(label):
    source = ("def forbidden(*args, **kwargs):\n"
              "    raise __import__('minigrad.course.verdicts_learner', fromlist=['Forbidden'])"
              f".Forbidden({label!r})\n")
    namespace = {}
    exec(source, namespace)  # noqa: S102 - a fixed template, the label is repr()'d
    return namespace["forbidden"].__code__


class Forbidden(Exception):  # noqa: N818 - the kernel's name, so the judge says the same
    """A route the exercise switches off was called."""


def forbid(specs):
    """Give every function of ``specs`` a raiser as its code; drop the originals."""
    for spec in specs:
        module_name, _, qualname = spec.partition(":")
        if module_name not in sys.modules:  # it did not import here: not a route at all
            continue
        obj = sys.modules[module_name]
        for part in qualname.split("."):
            obj = getattr(obj, part)
        obj = getattr(obj, "__func__", obj)
        obj.__code__ = _raiser(spec.replace(":", "."))
        del obj
    gc.collect()


_COUNTS = {}  # label -> [calls during the current call, a copy of the original function]


def _counted(label, args, kwargs):
    entry = _COUNTS[label]
    entry[0] += 1
    return entry[1](*args, **kwargs)


def count(specs):
    """Count the calls of every function of ``specs`` (``module:qualname``), each under
    the label the kernel's check counts it by (``module.qualname``): the calls of one
    call go back with its answer, for the test's ``g.calls``."""
    import types

    for spec in specs:
        module_name, _, qualname = spec.partition(":")
        obj = sys.modules[module_name]
        for part in qualname.split("."):
            obj = getattr(obj, part)
        func = getattr(obj, "__func__", obj)
        label = spec.replace(":", ".")
        original = types.FunctionType(func.__code__, func.__globals__, func.__name__,
                                      func.__defaults__, func.__closure__)
        original.__kwdefaults__ = func.__kwdefaults__
        _COUNTS[label] = [0, original]
        source = ("def counted(*args, **kwargs):\n"
                  "    return __import__('minigrad.course.verdicts_learner', "
                  f"fromlist=['_counted'])._counted({label!r}, args, kwargs)\n")
        namespace = {}
        exec(source, namespace)  # noqa: S102 - a fixed template, the label is repr()'d
        func.__code__ = namespace["counted"].__code__


def _import_everything(root, also=()):
    """Import all of minigrad from ``root`` (the grader's side left out), then ``also`` (the
    learners' fork server's own modules), then delete ``root``; the names ``also`` added to
    ``sys.modules`` (a forked learner drops them)."""
    import pkgutil

    import minigrad

    for info in pkgutil.walk_packages(minigrad.__path__, "minigrad."):
        if host_only(info.name):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: S112 - a module needing what is not here is not offered
            continue
    before = set(sys.modules)
    for name in also:
        importlib.import_module(name)
    added = set(sys.modules) - before
    shutil.rmtree(root, ignore_errors=True)
    sys.path_importer_cache.clear()
    import linecache

    linecache.clearcache()
    return added


class _Remote(Ref):
    """A callable of the judge's (the test's ``f``): called there, with plain data."""

    def __init__(self, server, ref, name):
        self._server, self._ref, self.__name__ = server, ref, name

    def __call__(self, *args, **kwargs):
        return self._server.callback(self._ref, args, kwargs)


class Server:
    def __init__(self, stdin, stdout):
        self.stdin, self.stdout = stdin, stdout
        self.namespace = {"__name__": "__main__"}

    def send(self, message):
        self.stdout.write(dumps(message))
        self.stdout.flush()

    def receive(self):
        line = self.stdin.readline()
        if not line:
            raise SystemExit(0)
        return loads(line)

    def callback(self, ref, args, kwargs):
        self.send({"op": "callback", "ref": ref, "args": encode(list(args)),
                   "kwargs": encode(dict(kwargs))})
        reply = self.receive()
        if reply.get("op") == "raised":
            raise _exception(reply)
        return decode(reply["value"], lambda r, n: _Remote(self, r, n))

    def run_cells(self, cells):
        failed = []
        for i, source in enumerate(cells):
            try:
                exec(compile(source, f"<cell {i}>", "exec"), self.namespace)  # noqa: S102
            except BaseException as exc:  # noqa: BLE001 - a failing cell, as in the kernel
                failed.append(f"{type(exc).__name__}: {exc}")
        names = {k: callable(v) for k, v in self.namespace.items()
                 if not k.startswith("_") and not isinstance(v, type(sys))}
        return names, failed

    def call(self, message):
        verdicts_models.incoming(self.namespace, message)
        fn = self.namespace[message["name"]]
        remote = lambda r, n: _Remote(self, r, n)  # noqa: E731
        args = decode(message["args"], remote)
        kwargs = decode(message["kwargs"], remote)
        given = tensors((args, kwargs))
        for entry in _COUNTS.values():
            entry[0] = 0
        try:
            result = encode(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - its name and text go to the judge
            return verdicts_models.reply({"op": "raised", "type": type(exc).__name__,
                                          "message": str(exc)[:2000], "where": _where(exc),
                                          "calls": _calls()})
        back = []
        for t in given:
            try:
                fields = {k: encode(getattr(t, k, None)) for k in ("grad", "g")}
                fields["data"] = encode(np.array(t.data.numpy()))  # a step changed it
                back.append(fields)
            except Exception:  # noqa: BLE001 - something not plain: not written back
                back.append({})
        return verdicts_models.reply({"op": "result", "value": result, "writeback": back,
                                      "calls": _calls()})

    def serve(self):
        while True:
            message = self.receive()
            if message.get("op") == "call":
                self.send(self.call(message))
            elif message.get("op") == "call-test":  # a test's function (chapters 10, 13)
                self.send(verdicts_models.call_test(self, message))
            elif message.get("op") == "value":
                try:
                    self.send({"op": "result", "value": encode(self.namespace[message["name"]])})
                except Exception as exc:  # noqa: BLE001
                    self.send({"op": "raised", "type": type(exc).__name__, "message": str(exc)})
            else:
                self.send({"op": "bye", "cpu": cpu_seconds()})
                raise SystemExit(0)


def _calls():
    return {label: entry[0] for label, entry in _COUNTS.items() if type(entry[0]) is int}


def cpu_seconds():
    """CPU seconds of this process (and its children): the verdict's cost, self-reported."""
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def _exception(reply):
    import builtins

    kind = getattr(builtins, str(reply.get("type")), None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    return kind(str(reply.get("message")))


def _where(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename.startswith("<cell")]
    if not frames:
        return None
    f = frames[-1]
    name = "your cell" if f.name == "<module>" else f.name
    return f"  in {name}, line {f.lineno}"


def prepare(root, also=()):
    """The part of a learner process done once: the import blocker, all of minigrad
    imported from ``root``, the files deleted (a fresh learner's start, or the learners'
    fork server's, :mod:`minigrad.course.forkserver_learner`, with ``also`` its own
    modules); the names ``also`` added to ``sys.modules``."""
    sys.meta_path.insert(0, Blocker())
    return _import_everything(root, also)


def exercise(setup):
    """The part of a learner process done per exercise: ``setup`` is its first message
    (already read): routes off, counts, the cells, then calls served until the end."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the learner's prints go to stderr, not into the messages
    sys.stdout = sys.stderr
    forbid(setup["forbid"])
    count(setup.get("count", ()))
    for name in [n for n in sys.modules if n.partition(".")[0] not in
                 (*ALLOWED, *sys.stdlib_module_names) and not n.startswith("_")]:
        sys.modules.pop(name, None)  # anything imported on the way (none expected)
    from minigrad.course.verdicts_graphs_learner import server_class  # ch. 01-06: graphs

    server = server_class(setup, Server)(sys.stdin, out)
    from minigrad.course.verdicts_callables import install  # the test's functions (11-15)
    install(server)
    names, failed = server.run_cells([setup["preamble"], *setup["cells"]])
    verdicts_classes.install(server.namespace)  # the test's functions (10-16's classes)
    server.send({"op": "ready", "names": names, "failed": failed})
    server.serve()


def serve(setup, root):
    """Run one exercise's learner side in a new process: ``setup`` is the first message
    (already read)."""
    prepare(root)
    exercise(setup)
