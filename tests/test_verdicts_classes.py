"""Verdicts outside the kernel for the learner's classes and hooks (issue 19, item 2;
chapters 10.2, 11.3, 14.1, 16.1-16.3; minigrad/course/verdicts_classes.py).

- the data path, in one process: the test's functions of
  :data:`~minigrad.course.verdicts_classes.REMOTE` cross as their source, a lambda given
  to them as its own, never as the judge's object; tensors and arrays they change come
  back; what is not plain data does not;
- the sandboxed verdict: every covered exercise's honest answer keeps full marks in the
  kernel and outside it; the hostile answers of ``tests/wrong_answers/hostile_classes.py``
  (sampled kinds) fail outside, while some of them pass the in-kernel check today.
"""

import ast
import io
import json
import sys

import numpy as np
import pytest

import minigrad
from minigrad.course import verdicts, verdicts_classes
from minigrad.course.verdicts_judge import Proxy, run_test
from minigrad.course.verdicts_learner import Server
from minigrad.course.verdicts_wire import dumps, loads
from tests.notebook_tools import NOTEBOOKS
from tests.test_verdicts import _cells, needs_sandbox, passed
from tests.verdict_tables import inputs, verdicts_of
from tests.wrong_answers.hostile import KINDS
from tests.wrong_answers.hostile_classes import SAMPLE, hostile

MINE = sorted(verdicts_classes.REMOTE)


class _InProcess:
    """The judge's channel to a learner's :class:`Server` in this same process (each
    message through JSON, as over the pipes; no sandbox, no routes off)."""

    def __init__(self, cells):
        self.server = Server(io.StringIO(), io.StringIO())
        self.server.run_cells([verdicts.PREAMBLE, *cells])
        verdicts_classes.install(self.server.namespace)
        self.sent = []

    def ask(self, message):
        message = loads(dumps(message))
        self.sent.append(message)
        assert message["op"] == "call"
        return loads(dumps(self.server.call(message)))


LEARNER = '''
class Doubler:
    def __init__(self, params):
        self.params = list(params)

    def step(self):
        for p in self.params:
            p.data = p.data * 2

def lay_out(f, a, b):
    b[0] = 7.0  # an array given, changed in place
    return f(Doubler([a]))

def double(x):
    return 2 * x
'''
TEST = '''
def use(a, b, f):
    d = Doubler([a])
    d.step()
    return lay_out(f, a, b)

a = minigrad.tensor([1.0, 2.0], requires_grad=True)
b = np.zeros(2)
got = use(a, b, lambda d: (d.step(), d.params[0].data.numpy().sum())[1])

def apply_to(f, x):
    return f(x)

six = apply_to(double, 3.0)
'''


def test_the_tests_functions_run_in_the_learners_process_from_their_source():
    channel = _InProcess([LEARNER])
    namespace = {"__name__": "__main__", "np": np, "minigrad": minigrad,
                 "double": Proxy(channel, "double")}
    tree = verdicts_classes.prepare({"grade_id": "g", "source": TEST}, namespace, channel)
    assert tree == TEST  # an exercise not of REMOTE runs as it is
    verdicts_classes.REMOTE["g"] = {"use": "test", "apply_to": "test"}
    try:
        code = verdicts_classes.prepare({"grade_id": "g", "source": TEST}, namespace, channel)
    finally:
        del verdicts_classes.REMOTE["g"]
    assert isinstance(code, ast.Module)
    exec(compile(code, "<string>", "exec"), namespace)  # noqa: S102 - the test above
    assert type(namespace["use"]) is verdicts_classes.RemoteTest
    # a doubled in use(), again in lay_out's f, which ran over there from its source
    assert namespace["got"] == 12.0
    assert np.array_equal(namespace["a"].detach().numpy(), [4.0, 8.0])  # both steps
    assert np.array_equal(namespace["b"], [7.0, 0.0])  # changed in place, written back
    assert namespace["six"] == 6.0  # the learner's function, by its name over there
    call = channel.sent[0]
    assert call["name"] == "test"
    source, args, _ = call["args"]["v"]
    assert source.startswith("def use(a, b, f):")
    assert "lambda d:" in json.dumps(args)  # the lambda crossed as its source


def test_what_is_not_plain_data_does_not_cross():
    channel = _InProcess(["class Secret:\n    pass\n\ndef make():\n    return Secret()\n"])
    namespace = {"__name__": "__main__"}
    verdicts_classes.REMOTE["g"] = {"get": "test"}
    try:
        code = verdicts_classes.prepare(
            {"grade_id": "g", "source": "def get():\n    return make()\n\nget()\n"},
            namespace, channel)
    finally:
        del verdicts_classes.REMOTE["g"]
    outputs = run_test(code, namespace)
    assert outputs[-1]["output_type"] == "error" and "not plain data" in outputs[-1]["evalue"]


def test_every_covered_exercise_has_its_routes_and_its_remote_functions():
    tests = {g: s for n in NOTEBOOKS for k, g, s in _cells(n) if k == "test"}
    for grade_id, remote in verdicts_classes.REMOTE.items():
        assert grade_id in verdicts.EXERCISES
        names = {n.name for n in ast.walk(ast.parse(tests[grade_id]))
                 if isinstance(n, ast.FunctionDef)}
        dotted = {ast.unparse(n) for n in ast.walk(ast.parse(tests[grade_id]))
                  if isinstance(n, ast.Attribute)}
        for name, group in remote.items():
            assert name in (dotted if "." in name else names), (grade_id, name)
            assert group == "test" or group in verdicts.OWN[grade_id], (grade_id, group)


def _cases():
    """[(exercise, kind, solution sources, test source)]: honest and hostile, mine only."""
    cases = []
    for notebook in NOTEBOOKS:
        cells = _cells(notebook)
        solutions = [(g, s) for k, g, s in cells if k == "solution"]
        for kind, grade_id, test in cells:
            if kind != "test" or grade_id not in verdicts_classes.REMOTE:
                continue
            exercise = grade_id.removesuffix("-test")
            before = solutions[:[g for g, _ in solutions].index(exercise) + 1]
            honest = dict(before)[exercise]
            answers = [("honest", honest)] + [(h.kind, h.source)
                                               for h in hostile(exercise, honest)]
            for label, source in answers:
                cases.append((grade_id, label, [s for g, s in before[:-1]] + [source], test))
    return cases


def verdict_inputs():
    """This file's cases for ``tests/verdict_tables.py``."""
    return inputs(_cases(), 0, 2, 3)


@pytest.fixture(scope="module")
def verdict_table(tmp_path_factory):
    cases = _cases()
    in_kernel, outside, cost = verdicts_of("test_verdicts_classes", tmp_path_factory)
    rows = [(*c[:2], k, passed(out), out)
            for c, k, out in zip(cases, in_kernel, outside, strict=True)]
    out = io.StringIO()
    print(f"\nverdict processes: {cost:.2f} CPU s per exercise", file=out)
    for kind in ("honest", *KINDS):
        mine = [r for r in rows if r[1] == kind]
        print(f"{kind:16} {len(mine):3} answers: pass in kernel {sum(r[2] for r in mine):3}, "
              f"pass outside {sum(r[3] for r in mine):3}", file=out)
    sys.stderr.write(out.getvalue())
    return rows


@pytest.mark.slow
@needs_sandbox
def test_honest_answers_keep_full_marks_in_the_kernel_and_outside(verdict_table):
    honest = [r for r in verdict_table if r[1] == "honest"]
    assert sorted(r[0] for r in honest) == MINE
    assert all(r[2] and r[3] for r in honest), [(r[0], r[4]) for r in honest
                                                if not (r[2] and r[3])]


@pytest.mark.slow
@needs_sandbox
def test_hostile_answers_fail_outside_the_kernel(verdict_table):
    rows = [r for r in verdict_table if r[1] != "honest"]
    assert len(rows) == sum(len(k) for k in SAMPLE.values())
    assert not [r[:2] for r in rows if r[3]]


@pytest.mark.slow
@needs_sandbox
def test_hostile_answers_pass_the_in_kernel_check_today(verdict_table):
    """The figure: each sampled kind fools the kernel's own check on some exercise."""
    passed = {r[1] for r in verdict_table if r[1] != "honest" and r[2]}
    assert passed == {k for kinds in SAMPLE.values() for k in kinds}, passed
