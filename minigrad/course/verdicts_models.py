r"""Models, optimisers' effects and rngs across a verdict (issue 19; chapters 08, 09, 10, 12, 13).

The exercises of these chapters hand the learner's code the test's own objects: a
``minigrad.nn`` model (its parameters, their ``.grad`` and ``requires_grad``), a test's
module class wrapped around it (8.2's ``RowCounter``, 9.1's ``Recorded``), a numpy
``Generator`` (13.6), or the test's training function that must differentiate through
the learner's loss (10.3's ``train_with``, 13.6's ``two_epochs``). They cross as data
(the kinds are :mod:`~minigrad.course.verdicts_objects`'s; the flow of a call is here):

- a module as its class (a ``minigrad`` class by name, a test class by its source,
  attached by :func:`prepare`) and its state (parameters as arrays, children, plain
  attributes), rebuilt in the learner's process; after the call its state goes back and
  is written onto the judge's own objects (the same objects, shared ones once), and so
  is a generator's state;
- a tensor with a graph carries a marker (``graph``: the number of arrays it saved),
  rebuilt in the judge as a stand-in ``grad_fn`` (``RemoteGraph``), and minigrad's
  grad mode crosses both ways (9.1, 9.2 look at both);
- a test function listed in :data:`THERE` runs in the learner's process, re-created from
  its source (:func:`there`); the learner's names it is given cross as names.

:data:`SUPPORT`: the chapter's own definitions a solution needs (13.5's ``forward``),
run in the learner's process before the solution cells. The judge never rebuilds a
module nor runs a learner's class: a learner's process answers only plain data.
"""

import ast
import sys
import textwrap

import numpy as np

from minigrad.course.verdicts_objects import STATE, state_of, write_module
from minigrad.course.verdicts_wire import decode, encode

__all__ = ["EXERCISES", "COUNTED", "THERE", "SUPPORT", "prepare", "cells", "begin", "there",
           "message", "apply", "incoming", "reply", "call_test"]

# grade_id of a test cell -> routes switched off in the learner's process (the kernel's
# forbid="torch.autograd" needs none: torch is not importable there).
_BY_HAND = ["minigrad.autograd", "minigrad.forward_ad", "minigrad.func"]
EXERCISES = {"ex08-unequal-test": [], "ex08-stale-skip-test": [], "ex09-predict-test": [],
             "ex09-freeze-test": [], "ex09-detach-test": [], "ex10-decay-test": [],
             "ex12-debug-train-test": [], "ex13-train-epoch-test": _BY_HAND,
             "ex13-backward-test": _BY_HAND}
COUNTED = ("ex08-unequal-test", "ex09-detach-test", "ex10-decay-test")
# The test's classes (sent by source) and functions (run over there) of each exercise.
THERE = {"ex08-unequal-test": ["RowCounter"], "ex09-predict-test": ["Recorded"],
         "ex10-decay-test": ["train_with"], "ex13-train-epoch-test": ["two_epochs"]}
# Chapter 13, section 2 (tests/test_verdicts_models.py checks it is the notebook's).
_CH13_FORWARD = '''
def lin(x, w, b):
    return x @ w + b


def log_softmax(z):
    shifted = z - z.max(dim=1, keepdim=True).values
    return shifted - shifted.exp().sum(dim=1, keepdim=True).log()


def nll(logp, labels):
    """The mean of -logp at each row's label: cross-entropy, given log-probabilities."""
    return -logp[np.arange(len(labels)), labels].mean()


def forward(x, p):
    """All the values of the forward pass, by name."""
    l1 = lin(x, p["w1"], p["b1"])
    a1 = l1.relu()
    logits = lin(a1, p["w2"], p["b2"])
    return {"x": x, "l1": l1, "a1": a1, "logits": logits, "logp": log_softmax(logits)}
'''
SUPPORT = {"ex13-backward-test": _CH13_FORWARD, "ex13-train-epoch-test": _CH13_FORWARD}
_HERE = "__import__('minigrad.course.verdicts_models', fromlist=['there'])"


def prepare(grade_id, source):
    """The test cell as the judge runs it: for these chapters, grad mode and graphs cross,
    and the test's names of :data:`THERE` get their source (a class) or run over there
    (a function), each by a line added after its definition."""
    mine = grade_id in EXERCISES
    lines = source.splitlines()
    if mine and THERE.get(grade_id):
        found = [n for n in ast.walk(ast.parse(source))
                 if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name in THERE[grade_id]]
        for node in sorted(found, key=lambda n: -n.end_lineno):
            text = textwrap.dedent("\n".join(lines[node.lineno - 1:node.end_lineno]))
            add = (f"{node.name}.__verdict_source__ = {text!r}" if isinstance(node, ast.ClassDef)
                   else f"{node.name} = {_HERE}.there({node.name}, {text!r})")
            lines.insert(node.end_lineno, " " * node.col_offset + add)
    return "\n".join([f"{_HERE}.begin({mine})", *lines])


def cells(grade_id, sources):
    """The learner's cells, with the chapter's definitions they need first."""
    return [SUPPORT[grade_id], *sources] if grade_id in SUPPORT else list(sources)


def begin(mine):
    """(judge) A test starts: grad mode and graphs cross for these chapters only."""
    STATE["graphs"] = bool(mine)


def there(fn, source):
    """(judge) The test's function ``fn``, run in the learner's process from ``source``."""
    from minigrad.course.verdicts_judge import Proxy

    channel = next((v._channel for v in sys._getframe(1).f_globals.values()
                    if type(v) is Proxy), None)
    if channel is None:
        return fn
    proxy = Proxy(channel, fn.__name__)
    proxy._source = source
    return proxy


# --- one call: the judge's message, the learner's answer, written back --------------
def message(proxy, args, kwargs, refs):
    """(judge) The message that calls ``proxy`` (over there, for a test function)."""
    import minigrad

    STATE["sent"] = []
    out = {"op": "call-test" if hasattr(proxy, "_source") else "call", "name": proxy.__name__,
           "args": encode(list(args), refs), "kwargs": encode(dict(kwargs), refs)}
    if hasattr(proxy, "_source"):
        out["source"] = proxy._source
    if STATE["graphs"]:
        out |= {"graphs": True, "grad_enabled": minigrad.is_grad_enabled()}
    return out


def incoming(namespace, message):
    """(learner) A call begins: the judge's grad mode, a fresh list of objects sent."""
    import minigrad

    STATE["namespace"], STATE["sent"] = namespace, []
    STATE["graphs"] = message.get("graphs") is True
    if type(message.get("grad_enabled")) is bool:
        minigrad.set_grad_enabled(message["grad_enabled"])


def reply(answer):
    """(learner) The answer, with the grad mode and the state of every object sent."""
    import minigrad

    if not STATE["graphs"]:
        return answer
    states = []
    for obj in STATE["sent"]:
        try:
            states.append({"rng": encode(obj.bit_generator.state)}
                          if type(obj) is np.random.Generator else state_of(obj))
        except Exception:  # noqa: BLE001 - not plain any more: not written back
            states.append(None)
    return answer | {"objects": states, "grad_enabled": minigrad.is_grad_enabled()}


def apply(answer):
    """(judge) Write the learner's changes onto the judge's own objects of this call."""
    import minigrad

    if not STATE["graphs"]:
        return
    if type(answer.get("grad_enabled")) is bool:
        minigrad.set_grad_enabled(answer["grad_enabled"])
    states, sent = answer.get("objects"), STATE["sent"]
    if states is None:
        return
    if type(states) is not list or len(states) != len(sent):
        raise RuntimeError("your code's process answered out of turn")
    for obj, state in zip(sent, states, strict=True):
        if state is None:
            continue
        if type(obj) is np.random.Generator:
            obj.bit_generator.state = decode(state["rng"])
            continue
        write_module(obj, state)


def call_test(server, message):
    """(learner) Run the test's function of ``message`` (its source) on the learner's
    names, as :meth:`Server.call` runs a learner's one."""
    import minigrad

    name = str(message["name"])
    namespace = {**server.namespace, "np": np, "minigrad": minigrad}
    try:
        exec(compile(str(message["source"]), f"<test {name}>", "exec"), namespace)  # noqa: S102
    except Exception as exc:  # noqa: BLE001
        return {"op": "raised", "type": type(exc).__name__, "message": str(exc)[:2000]}
    key = f"__verdict_test_{name}"
    server.namespace[key] = namespace[name]
    try:
        return server.call({**message, "name": key})
    finally:
        server.namespace.pop(key, None)
