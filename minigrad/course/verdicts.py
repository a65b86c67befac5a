r"""Verdicts the learner's code cannot reach (issue 19, item 2; all 54 exercises, chapters 01-16).

Under ``nbgrader autograde`` the submission still runs in its sandboxed kernel (its
outputs are the learner's feedback); then :class:`minigrad.course.nbgrader_plugins.Verdicts`
calls :func:`decide`, which re-decides each exercise of :data:`EXERCISES` outside it, with
two processes of its own under the same bubblewrap sandbox
(:func:`minigrad.course.sandbox.bwrap_args`), each forked from a server where one starts
(the judge from the kernels' fork server, the learner's from
:mod:`minigrad.course.forkserver_learner`), else a new Python:

- the **learner's** (:mod:`~minigrad.course.verdicts_learner`): only the preamble and the
  submission's solution cells run there, after the exercise's routes were switched off
  for good and every module but the standard library, numpy and minigrad made unimportable;
- the **judge's** (:mod:`~minigrad.course.verdicts_judge`): the exercise's test cell, with
  the learner's names as proxies; no learner code runs there.

A name of :data:`OWN` runs in a learner's process of its own, with more routes off (the
test forbids more for it than for the exercise's other functions). The calls of the
routes of :data:`COUNT` are counted in the learner's process and added to the test's
``g.calls`` (self-reported: the numbers a check compares are still the judge's). Tensors
given to the learner's code, in lists too, get back its ``grad``, ``g`` and ``.data``.

This process relays their messages (plain data, :mod:`~minigrad.course.verdicts_wire`),
one line at a time, and stops the learner's process at the exercise's time limit.
A failing verdict replaces the test cell's outputs (an error output: 0 points); a passing
one keeps the kernel's outputs, so what the kernel found (tampering, say) still counts.
"""

import os
import pathlib
import sysconfig
import time

from minigrad.course import verdicts_models
from minigrad.course.grading import ROUTES
from minigrad.course.verdicts_graphs import cells_for
from minigrad.course.verdicts_process import Process

__all__ = ["EXERCISES", "OWN", "COUNT", "decide", "PREAMBLE"]

PREAMBLE = "import math\nimport numpy as np\nimport minigrad\n"
# Every route to a derivative but the learner's own code (torch is not importable there).
BY_HAND = [*ROUTES["minigrad.autograd"], *ROUTES["minigrad.forward_ad"], *ROUTES["minigrad.func"]]
NO_VALUES = [*BY_HAND, "minigrad.value:Value.__init__"]
LINEAR_BACKWARDS = ["minigrad.ops.linear:Linear.backward", "minigrad.ops.matmul:Mm.backward",
                    "minigrad.ops.matmul:Matmul.backward"]
CROSS_ENTROPY = ["minigrad.ops.losses:CrossEntropy.backward"]
# grade_id of the test cell -> the routes switched off in the learner's process.
EXERCISES = {
    "ex01-error-order-test": BY_HAND,
    "ex02-numeric-gradient-test": BY_HAND,
    "ex03-by-hand-test": NO_VALUES,
    "ex03-read-graph-test": NO_VALUES,
    "ex05-grad-by-hand-test": BY_HAND,
    "ex05-unbroadcast-test": [*BY_HAND, "minigrad.autograd.engine:sum_to_shape"],
    "ex05-row-scale-by-hand-test": BY_HAND,
    "ex06-weighted-sum-test": BY_HAND,
    "ex07-two-layer-backward-test": [*BY_HAND, *LINEAR_BACKWARDS],
    "ex07-mae-grad-test": BY_HAND,
    "ex07-seq-grads-test": [*BY_HAND, *LINEAR_BACKWARDS],
    "ex11-numerical-grad-test": [*BY_HAND, "minigrad.autograd.gradcheck:numerical_jacobian"],
    "ex13-loss-steps-grad-test": [*BY_HAND, *CROSS_ENTROPY],
    "ex13-cross-entropy-grad-test": [*BY_HAND, *CROSS_ENTROPY],
    "ex13-layer-grads-test": BY_HAND,
    "ex13-batchnorm-test": BY_HAND,
    "ex13-embedding-test": BY_HAND,
    "ex13-ninja-test": BY_HAND,
    "ex10-sgd-step-test": [*BY_HAND, "minigrad.optim.sgd:SGD.step"],
    # as in the kernel, only torch's autograd is off (not importable there); the calls of
    # minigrad's reverse mode are counted (COUNT); 8.1's predicted_grad runs apart (OWN)
    "ex08-predict-test": [],
    "ex12-hidden-grad-test": [],
    "ex16-checkpoint-plan-test": ["minigrad.course.checkpoint_plan:measure_plan",
                                  "minigrad.course.graph_memory:saved_bytes"],
}
# Chapters 11, 12, 14, 15 (the test's functions cross as source: verdicts_callables), as
# in the kernel: torch's routes are not importable there; minigrad's the test forbids are off
EXERCISES.update({
    "ex11-find-bugs-test": [],
    "ex12-softmax-test": [],
    "ex12-inplace-safe-test": [],
    "ex14-jacobian-columns-test": [*ROUTES["minigrad.autograd"], *ROUTES["minigrad.jacobian"]],
    "ex14-double-vjp-test": [*ROUTES["minigrad.forward_ad"], *ROUTES["minigrad.func"]],
    "ex15-nth-derivative-test": ROUTES["minigrad.func"],
    "ex15-hvp-test": ROUTES["minigrad.func"],
    "ex15-newton-step-test": ROUTES["minigrad.func"],
    "ex15-power-iteration-test": ROUTES["minigrad.func"],
})
# Chapters 01-04 and 06: graphs, test functions and the learner's objects cross
# (minigrad.course.verdicts_graphs); the chapter's definitions run before the solutions.
# 2.2, 2.3: the gradient from minigrad.Value (its backward() counted), no other route.
NOT_VALUE_BACKWARD = [*ROUTES["minigrad.forward_ad"], *ROUTES["minigrad.func"],
                      "minigrad.autograd.engine:run_backward"]
ORDERINGS = ["minigrad.value:backward_order", "minigrad.autograd.engine:topological_order",
             "minigrad.course.graph:_first_seen"]
EXERCISES |= {
    "ex01-value-div-test": NO_VALUES,
    "ex02-slope-along-test": NOT_VALUE_BACKWARD,
    "ex02-descent-test": NOT_VALUE_BACKWARD,
    "ex03-topo-sort-test": ORDERINGS,
    "ex04-softplus-local-test": [*NO_VALUES, "minigrad.value:_sigmoid_local"],
    "ex04-find-the-bug-test": BY_HAND,
    "ex06-split-network-test": [*ROUTES["minigrad.func"], *ROUTES["minigrad.forward_ad"]],
    "ex06-jacobian-test": [*ROUTES["minigrad.jacobian"], *ROUTES["minigrad.forward_ad"],
                           "minigrad.autograd.gradcheck:analytical_jacobian"],
}
# chapters 08, 09, 10, 12, 13: models, optimisers, rngs cross (verdicts_models)
EXERCISES |= {k: [r for p in v for r in ROUTES[p]] for k, v in verdicts_models.EXERCISES.items()}
# Chapters 10, 11, 14, 16: the learner's classes and hooks, used by the test cell's own
# functions, which run in the learner's process (minigrad.course.verdicts_classes.REMOTE);
# where the test differentiates through the learner's Function, in OWN's "test:autograd".
EXERCISES.update({
    "ex10-momentum-test": [*BY_HAND, "minigrad.optim.sgd:SGD.step"],
    "ex11-fix-backward-test": BY_HAND,
    "ex14-dual-rules-test": [*BY_HAND, "minigrad.dual:Dual.__mul__", "minigrad.dual:Dual.tanh"],
    "ex16-softplus-test": BY_HAND,
    "ex16-sign-st-test": BY_HAND,
    "ex16-clip-hook-test": [],
})
# grade_id -> {name: routes}: names whose calls run in a process of their own, with these
# routes off (the test forbids more for them than for the exercise's other functions).
OWN = {
    "ex08-predict-test": {"predicted_grad": BY_HAND},
}
OWN.update({grade_id: {"test:autograd": []} for grade_id in  # chapters 11 and 16
            ("ex11-fix-backward-test", "ex16-softplus-test", "ex16-sign-st-test")})
# grade_id -> routes whose calls the learner's process counts (the test's ``g.calls``).
COUNT = {
    "ex08-predict-test": ROUTES["minigrad.autograd"],
    "ex12-hidden-grad-test": ROUTES["minigrad.autograd"],
}
COUNT.update({  # chapters 14, 15
    "ex14-jacobian-columns-test": ["minigrad.autograd.forward_ad:make_dual"],
    "ex14-double-vjp-test": ROUTES["minigrad.autograd"],
    "ex15-hvp-test": ROUTES["minigrad.autograd"],
    "ex15-power-iteration-test": ROUTES["minigrad.autograd"],
})
COUNT |= {  # chapters 02 and 06 (minigrad.course.verdicts_graphs)
    "ex02-slope-along-test": ROUTES["minigrad.Value.backward"],
    "ex02-descent-test": ROUTES["minigrad.Value.backward"],
    "ex06-jacobian-test": ["minigrad.autograd:grad"],
}
COUNT |= dict.fromkeys(verdicts_models.COUNTED, ROUTES["minigrad.autograd"])  # 08, 09, 10
TIME_LIMIT = 60  # seconds of one exercise's learner process, as a kernel cell's
BOOT = r"""
import json, os, sys
setup = json.loads(sys.stdin.readline())
root = "/tmp/verdict-pkg"
for rel, text in setup.pop("files").items():
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
del rel, text, path, f  # a file's source, kept by __main__ no more
sys.path[:0] = [root]
sys.path += setup.pop("site")
from minigrad.course.verdicts_learner import prepare, exercise
prepare(root)
exercise(setup)
"""
JUDGE = ("import sys; sys.path.insert(0, '/opt/minigrad')\n"
         "from minigrad.course.verdicts_judge import judge; judge()")


def _package_files():
    """minigrad's source for the learner's process, less the grader's side."""
    from minigrad.course.verdicts_learner import host_only

    root = pathlib.Path(__file__).resolve().parents[1]
    files = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        if not host_only(module):
            files[str(path.relative_to(root.parent))] = path.read_text()
    return files


COST = {"cpu": 0.0}  # CPU seconds the verdict processes reported, since this process began


def _add_cost(seconds):
    if type(seconds) in (int, float) and 0 <= seconds < 1e6:
        COST["cpu"] += seconds


def _stopped(why):
    return {"op": "raised", "type": "RuntimeError", "message": why}


def _learner(bwrap, forbid, cells, count=()):
    process = Process(["-I", "-S", "-c", BOOT], bwrap, None)
    setup = {"forbid": list(forbid), "count": list(count), "preamble": PREAMBLE,
             "cells": cells}
    if not process.forked:  # a new Python: minigrad's source too (forked: imported)
        setup.update(files=_package_files(), site=sorted(
            {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}))
    process.send(setup)
    return process


class _Learners:
    """The learner's processes of one exercise: one for the names of :data:`OWN` (each
    with its routes off) and one for every other name, started when first needed."""

    def __init__(self, bwrap, grade_id, cells, time_limit):
        self.bwrap, self.grade_id, self.cells = bwrap, grade_id, cells_for(grade_id, cells)
        self.deadline = time.monotonic() + time_limit
        self.running, self.current = {}, None

    def ready(self, name=None):
        """The process serving ``name`` (started if need be) and its ``ready``."""
        key = name if name in OWN.get(self.grade_id, {}) else None
        if key in self.running:
            self.current = self.running[key]
            return self.current, {"op": "ready"}
        forbid = OWN[self.grade_id][key] if key else EXERCISES[self.grade_id]
        self.current = self.running[key] = _learner(self.bwrap, forbid, self.cells,
                                                    COUNT.get(self.grade_id, ()))
        return self.current, self.current.receive(self.deadline)

    def close(self):
        for process in self.running.values():
            if process.send({"op": "finish"}):
                _add_cost((process.receive(time.monotonic() + 5) or {}).get("cpu"))
            process.close()
        self.running, self.current = {}, None


def _relay(learners, message, time_limit):
    """The learner's answer to one of the judge's messages (a call, a value, a return)."""
    if message.get("op") in ("call", "value"):
        process, ready = learners.ready(message.get("name"))
        if not ready or ready.get("op") != "ready":
            return _stopped("your solution cells did not finish")
    process = learners.current
    if process is None or not process.send(message):
        return _stopped("your code's process stopped")
    reply = process.receive(learners.deadline)
    if reply is None:
        learners.close()
        return _stopped(f"your code stopped or ran past {time_limit} s "
                        "(or answered something that is not plain data)")
    return reply


def decide(exercises, bwrap="bwrap", time_limit=TIME_LIMIT):
    """``exercises``: [(grade_id, test source, [solution cell sources])]; the judge's
    outputs of each test cell ([nbformat output dicts]; None for an exercise not in
    :data:`EXERCISES`), in order, or None when the judge itself failed. ``time_limit``:
    seconds one exercise's learner processes may take (its solution cells and calls)."""
    chosen = [i for i, e in enumerate(exercises) if e[0] in EXERCISES]
    if not chosen:
        return [None] * len(exercises)
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    judge = Process(["-c", JUDGE], bwrap, package_dir)
    learners = None
    try:
        judge.send({"exercises": [{"index": i, "grade_id": exercises[i][0],
                                   "source": verdicts_models.prepare(*exercises[i][:2])}
                                  for i in chosen]})
        while True:
            message = judge.receive(time.monotonic() + 120)
            if message is None:
                return None
            op = message.get("op")
            if op == "done":
                _add_cost(message.get("cpu"))
                results = message.get("results")
                if type(results) is not list or len(results) != len(chosen):
                    return None
                out = [None] * len(exercises)
                for i, outputs in zip(chosen, results, strict=True):
                    out[i] = outputs
                return out
            if op == "start" and message.get("index") in chosen:
                grade_id, _, cells = exercises[message["index"]]
                learners = _Learners(bwrap, grade_id, verdicts_models.cells(grade_id, cells),
                                     time_limit)
                reply = learners.ready()[1] or _stopped("your solution cells did not finish")
            elif op == "finish":
                if learners is not None:
                    learners.close()
                learners, reply = None, {"op": "ok"}
            elif learners is None:
                reply = _stopped("your code's process stopped")
            else:
                reply = _relay(learners, message, time_limit)
            if not judge.send(reply):
                return None
    finally:
        if learners is not None:
            learners.close()
        judge.close()
