r"""Verdicts the learner's code cannot reach (issue 19, item 2; 18 exercises of chapters 01-16).

Under ``nbgrader autograde`` the submission still runs in its sandboxed kernel (its
outputs are the learner's feedback); then :class:`minigrad.course.nbgrader_plugins.Verdicts`
calls :func:`decide`, which re-decides each exercise of :data:`EXERCISES` outside it, with
two fresh processes under the same bubblewrap sandbox (:func:`minigrad.course.sandbox.bwrap_args`):

- the **learner's** (:mod:`~minigrad.course.verdicts_learner`): only the preamble and the
  submission's solution cells run there, after the exercise's routes were switched off
  for good and every module but the standard library, numpy and minigrad made unimportable;
- the **judge's** (:mod:`~minigrad.course.verdicts_judge`): the exercise's test cell, with
  the learner's names as proxies; no learner code runs there.

This process relays their messages (plain data, :mod:`~minigrad.course.verdicts_wire`),
one line at a time, and stops the learner's process at the exercise's time limit.
A failing verdict replaces the test cell's outputs (an error output: 0 points); a passing
one keeps the kernel's outputs, so what the kernel found (tampering, say) still counts.
"""

import os
import pathlib
import select
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

from minigrad.course.grading import ROUTES
from minigrad.course.sandbox import LAUNCHER, GiB, bwrap_args
from minigrad.course.verdicts_wire import MAX_LINE, dumps, loads

__all__ = ["EXERCISES", "decide", "PREAMBLE"]

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
    "ex16-checkpoint-plan-test": ["minigrad.course.checkpoint_plan:measure_plan",
                                  "minigrad.course.graph_memory:saved_bytes"],
}
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
sys.path[:0] = [root]
sys.path += setup.pop("site")
from minigrad.course.verdicts_learner import serve
serve(setup, root)
"""
JUDGE = ("import sys; sys.path.insert(0, '/opt/minigrad')\n"
         "from minigrad.course.verdicts_judge import judge; judge()")


def _package_files():
    root = pathlib.Path(__file__).resolve().parents[1]
    return {str(p.relative_to(root.parent)): p.read_text() for p in sorted(root.rglob("*.py"))
            if "widgets" not in p.parts}


class _Process:
    """A sandboxed Python reading and writing one JSON line at a time."""

    def __init__(self, argv, bwrap, package_dir, memory=6 * GiB, cpu=300):
        self.runtime = tempfile.mkdtemp(prefix="minigrad-verdict-")
        limits = [f"RLIMIT_AS={memory}", f"RLIMIT_CPU={cpu}",
                  f"RLIMIT_FSIZE={64 * 1024 ** 2}", "RLIMIT_CORE=0"]
        cmd = [sys.executable, "-I", "-S", "-c", LAUNCHER, "", *limits, "--",
               *bwrap_args(shutil.which(bwrap) or bwrap, None, self.runtime, package_dir,
                           256 * 1024 ** 2), sys.executable, *argv]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=None if os.environ.get("MINIGRAD_VERDICT_DEBUG")
                                     else subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"},
                                     start_new_session=True)
        self.buffer = b""

    def send(self, message):
        try:
            self.proc.stdin.write(dumps(message).encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def receive(self, deadline):
        """The next message, or None when the process stopped, timed out or spoke nonsense."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or len(self.buffer) > MAX_LINE:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return loads(line.decode())
        except (ValueError, TypeError, UnicodeDecodeError):
            return None

    def close(self, grace=5):
        try:  # end of input: the process ends by itself (its CPU time is then counted)
            self.proc.stdin.close()
            self.proc.wait(grace)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        shutil.rmtree(self.runtime, ignore_errors=True)


COST = {"cpu": 0.0}  # CPU seconds the verdict processes reported, since this process began


def _add_cost(seconds):
    if type(seconds) in (int, float) and 0 <= seconds < 1e6:
        COST["cpu"] += seconds


def _stopped(why):
    return {"op": "raised", "type": "RuntimeError", "message": why}


def _learner(bwrap, forbid, cells):
    process = _Process(["-I", "-S", "-c", BOOT], bwrap, None)
    process.send({"files": _package_files(), "forbid": list(forbid), "preamble": PREAMBLE,
                  "site": sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")}),
                  "cells": cells})
    return process


def decide(exercises, bwrap="bwrap", time_limit=TIME_LIMIT):
    """``exercises``: [(grade_id, test source, [solution cell sources])]; the judge's
    outputs of each test cell ([nbformat output dicts]; None for an exercise not in
    :data:`EXERCISES`), in order, or None when the judge itself failed. ``time_limit``:
    seconds one exercise's learner process may take (its solution cells and calls)."""
    chosen = [i for i, e in enumerate(exercises) if e[0] in EXERCISES]
    if not chosen:
        return [None] * len(exercises)
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    judge = _Process(["-c", JUDGE], bwrap, package_dir)
    learner = None
    deadline = time.monotonic() + 120
    try:
        judge.send({"exercises": [{"index": i, "source": exercises[i][1]} for i in chosen]})
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
                learner = _learner(bwrap, EXERCISES[grade_id], cells)
                deadline = time.monotonic() + time_limit
                reply = learner.receive(deadline) or _stopped("your solution cells did "
                                                              "not finish")
            elif op == "finish":
                if learner is not None and learner.send(message):
                    _add_cost((learner.receive(time.monotonic() + 5) or {}).get("cpu"))
                if learner is not None:
                    learner.close()
                learner, reply = None, {"op": "ok"}
            elif learner is None or not learner.send(message):
                reply = _stopped("your code's process stopped")
            else:
                reply = learner.receive(deadline)
                if reply is None:
                    learner.close(grace=0)
                    learner = None
                    reply = _stopped(f"your code stopped or ran past {time_limit} s "
                                     "(or answered something that is not plain data)")
            if not judge.send(reply):
                return None
    finally:
        if learner is not None:
            learner.close()
        judge.close()
