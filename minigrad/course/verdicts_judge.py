r"""The judge's process of a verdict (issue 19): the exercise's test runs here, no learner code.

Started by :mod:`minigrad.course.verdicts` under bubblewrap. For each exercise it runs the
test cell's source (from the instructor's notebook) with every name the learner's
solution cells define bound to a :class:`Proxy`: calling one sends the arguments as plain
data to the learner's process (:mod:`minigrad.course.verdicts_learner`), and the answer
comes back as plain data, with the ``grad`` and ``g`` the learner's code set on the
tensors it was given written onto the judge's own. The references and the pass/fail are
computed here, so the learner's code cannot reach them. The cell's outputs are collected
as nbformat outputs (the same table and messages the kernel shows).
"""

import contextlib
import io
import sys

from minigrad.course import verdicts_models
from minigrad.course.verdicts_classes import prepare
from minigrad.course.verdicts_wire import decode, dumps, encode, loads, tensors

__all__ = ["Proxy", "judge"]


class _Channel:
    def __init__(self, stdin, stdout):
        self.stdin, self.stdout = stdin, stdout

    def ask(self, message):
        self.stdout.write(dumps(message))
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise SystemExit("the grader went away")
        return loads(line)


def _raised(reply):
    from minigrad.course.grading import Forbidden

    kind, text = str(reply.get("type")), str(reply.get("message"))
    if kind == "Forbidden":
        return Forbidden(text)
    if kind == "GradcheckError":  # 11.2 names the mistake by this type (a RuntimeError)
        from minigrad.autograd import GradcheckError

        return GradcheckError(text)
    import builtins

    cls = getattr(builtins, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)) or kind == "AssertionError":
        cls = type(kind if kind.isidentifier() else "Error", (Exception,), {})
    return cls(text)


class Proxy:
    """A name the learner's solution cells define; calling it runs it over there."""

    def __init__(self, channel, name):
        self._channel, self.__name__, self.__qualname__ = channel, name, name

    def __call__(self, *args, **kwargs):
        refs = []
        given = tensors((args, kwargs))
        reply = self._channel.ask(verdicts_models.message(self, args, kwargs, refs))
        while reply.get("op") == "callback":
            reply = self._channel.ask(self._callback(refs, reply))
        _add_calls(reply.get("calls"))
        verdicts_models.apply(reply)
        if reply.get("op") == "raised":
            raise _raised(reply)
        if reply.get("op") != "result":
            raise RuntimeError(str(reply.get("message", "your code's process stopped")))
        back = reply.get("writeback") or []
        if len(back) != len(given):
            raise RuntimeError("your code's process answered out of turn")
        for tensor, fields in zip(given, back, strict=True):
            _write_data(tensor, fields.get("data"))
            for key, value in fields.items():
                if key in ("grad", "g"):
                    value = decode(value)
                    if value is not None or hasattr(tensor, key):
                        setattr(tensor, key, value)
        return decode(reply["value"])

    def _callback(self, refs, reply):
        try:
            fn = refs[int(reply["ref"])]
            mine = lambda r, n: refs[int(r)]  # noqa: E731 - the learner hands back ours
            result = fn(*decode(reply["args"], mine), **decode(reply["kwargs"], mine))
            return {"op": "return", "value": encode(result, refs)}
        except Exception as exc:  # noqa: BLE001 - its name and text go to the learner
            return {"op": "raised", "type": type(exc).__name__, "message": str(exc)}


def _add_calls(calls):
    """The learner's process counted the calls of the exercise's counted routes: add
    them where the running check (``g.call(..., count=...)``) counts them."""
    from minigrad.course.grading import _COUNTING

    if type(calls) is not dict:
        return
    for label, n in calls.items():
        if label in _COUNTING and type(n) is int and 0 <= n < 10 ** 9:
            _COUNTING[label][0] += n


def _write_data(tensor, value):
    """The numbers the learner's code left in a tensor it was given (an optimiser's step
    changes ``.data`` in place): set here too, only where they changed."""
    import numpy as np

    import minigrad

    if value is None or type(tensor).__name__ != "Tensor":
        return
    new = decode(value)
    old = tensor.detach().numpy()
    if type(new) is not np.ndarray:
        raise RuntimeError("your code's process answered out of turn")
    if new.shape != old.shape or new.dtype != old.dtype or new.tobytes() != old.tobytes():
        tensor.data = minigrad.tensor(new)


def _error_output(exc):
    render = getattr(exc, "_render_traceback_", None)
    lines = render() if render else [f"{type(exc).__name__}: {exc}"]
    return {"output_type": "error", "ename": type(exc).__name__, "evalue": str(exc),
            "traceback": lines}


_SINK = []  # where the graded block's table goes (set before the first check runs)


def _display(obj):
    _SINK[-1](obj)


def run_test(source, namespace):
    """Run one test cell's ``source``; its outputs as nbformat output dicts."""
    outputs, out = [], io.StringIO()

    def flush():
        if out.getvalue():
            outputs.append({"output_type": "stream", "name": "stdout", "text": out.getvalue()})
            out.seek(0)
            out.truncate()

    def display(obj):
        flush()
        data = {"text/plain": repr(obj)}
        if hasattr(obj, "_repr_html_"):
            data["text/html"] = obj._repr_html_()
        outputs.append({"output_type": "display_data", "data": data, "metadata": {}})

    _SINK.append(display)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(source, "<string>", "exec"), namespace)  # noqa: S102 - the test
    except BaseException as exc:  # noqa: BLE001 - a failing test is an error output
        flush()
        outputs.append(_error_output(exc))
    flush()
    return outputs


def judge(stdin=None, stdout=None):
    """Grade every exercise the grader sends: one ``start``, calls, ``finish`` each."""
    from minigrad.course import grading
    from minigrad.course.verdicts_graphs import proxy

    grading._display = _display  # before the first check takes integrity's fingerprint
    channel = _Channel(stdin or sys.stdin, stdout or sys.stdout)
    setup = loads(channel.stdin.readline())
    results = []
    for exercise in setup["exercises"]:
        ready = channel.ask({"op": "start", "index": exercise["index"]})
        if ready.get("op") != "ready":
            results.append([_error_output(RuntimeError(
                "your solution could not be run on its own: "
                + str(ready.get("message", "its process stopped"))))])
            channel.ask({"op": "finish"})
            continue
        namespace = {"__name__": "__main__"}
        for name, is_callable in ready["names"].items():
            if is_callable:
                namespace[name] = proxy(ready, channel, name)  # chapters 01-06: graphs
            else:
                reply = channel.ask({"op": "value", "name": name})
                if reply.get("op") == "result":
                    namespace[name] = decode(reply["value"])
        _preamble_names(namespace)
        from minigrad.course.verdicts_callables import judge_side  # the test's functions
        exercise = {**exercise, "source": judge_side(exercise, namespace, channel)}
        results.append(run_test(prepare(exercise, namespace, channel), namespace))
        channel.ask({"op": "finish"})
    from minigrad.course.verdicts_learner import cpu_seconds

    channel.stdout.write(dumps({"op": "done", "results": results, "cpu": cpu_seconds()}))
    channel.stdout.flush()


if __name__ == "__main__":
    judge()


def _preamble_names(namespace):
    """The preamble's ``math``, ``np`` and ``minigrad``, as the kernel has them, where the
    learner's names do not bind them (a test's named mistake may use ``math``: 14.1)."""
    import math

    import numpy as np

    import minigrad

    for name, module in (("math", math), ("np", np), ("minigrad", minigrad)):
        namespace.setdefault(name, module)
