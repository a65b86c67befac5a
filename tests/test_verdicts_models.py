"""Verdicts outside the kernel for models and training (issue 19; chapters 08, 09, 10, 12,
13; :mod:`minigrad.course.verdicts_models`).

- a model (its class, parameters, ``.grad``, ``requires_grad``, a test class's plain
  attributes), an rng, a graph marker and grad mode cross as data, and what the learner's
  code changed is written back onto the judge's own objects (shared ones once);
- every honest answer of the 9 exercises keeps full marks outside the kernel;
- hostile answers (a sample of kinds across the exercises, built in
  ``tests/wrong_answers/hostile_models.py``) fail there, and the figure of how many pass
  the kernel's own check today is printed; learners' mistakes that only the crossing
  reveals (grad mode left off, a graph, frozen parameters, stale gradients, the rng's
  order) are still caught.
"""

import ast
import importlib
import io
import json
import sys

import numpy as np
import pytest

import minigrad
from minigrad.course import verdicts_models, verdicts_objects
from minigrad.course.verdicts_wire import decode, encode, loads
from tests.notebook_tools import NOTEBOOKS, SOURCES
from tests.test_verdicts import _cells, needs_sandbox
from tests.verdict_tables import verdicts_of
from tests.wrong_answers.hostile_models import hostile

MINE = list(verdicts_models.EXERCISES)
# (exercise, kind): a sample of the hostile kinds, each kind on several chapters.
SAMPLE = [("ex08-unequal", "caller-frame"), ("ex09-detach", "caller-frame"),
          ("ex12-debug-train", "caller-frame"), ("ex08-stale-skip", "silenced-grader"),
          ("ex09-freeze", "silenced-grader"), ("ex13-train-epoch", "silenced-grader"),
          ("ex09-predict", "lying-result"), ("ex10-decay", "lying-result"),
          ("ex13-backward", "lying-result"), ("ex13-backward", "copy-at-import"),
          ("ex13-train-epoch", "gc-restored")]
# (exercise, the named mistake of tests/wrong_answers/chNN.py): wrong only in what crosses.
CROSSING = [("ex08-unequal", "stale-not-cleared"), ("ex09-predict", "left-off"),
            ("ex09-predict", "detached-after"), ("ex09-freeze", "unfrozen-at-end"),
            ("ex09-detach", "norm-not-detached"), ("ex13-train-epoch", "no-shuffle")]


def _round_trip(args):
    """``args`` as the judge sends them and the learner's process rebuilds them."""
    verdicts_models.begin(True)
    message = verdicts_models.message(type("P", (), {"__name__": "f"})(), args, {}, [])
    judge_sent = verdicts_objects.STATE["sent"]
    verdicts_models.incoming({}, loads(json.dumps(message)))
    return decode(loads(json.dumps(message))["args"]), judge_sent


def _judge_side(judge_sent, answer):
    verdicts_objects.STATE.update(namespace=None, sent=judge_sent)
    verdicts_models.apply(loads(json.dumps(answer)))


def test_a_model_crosses_and_its_changes_come_back():
    seq = minigrad.nn.Sequential(minigrad.nn.Linear(3, 2, dtype=minigrad.float64),
                                 minigrad.nn.ReLU())
    seq[0].bias.grad = minigrad.tensor(np.full(2, 0.5))
    rng = np.random.default_rng(5)
    try:
        (model, frozen, gen), judge_sent = _round_trip([seq, [seq[0]], rng])
        assert type(model) is minigrad.nn.Sequential and frozen[0] is model[0]
        assert np.array_equal(model[0].weight.detach().numpy(), seq[0].weight.detach().numpy())
        assert np.array_equal(model[0].bias.grad.numpy(), [0.5, 0.5])
        with minigrad.no_grad():
            model[0].weight -= 1.0
        model[0].bias.requires_grad_(False)
        model[0].bias.grad = None
        gen.permutation(4)
        minigrad.set_grad_enabled(False)
        answer = verdicts_models.reply({"op": "result"})
    finally:
        minigrad.set_grad_enabled(True)
    answer["objects"][0]["extra"] |= {"_modules": {}, "forward": None}  # forged
    _judge_side(judge_sent, answer)
    assert len(list(seq.parameters())) == 2 and seq.forward is not None
    assert not minigrad.is_grad_enabled()
    minigrad.set_grad_enabled(True)
    assert np.array_equal(seq[0].weight.detach().numpy(),
                          model[0].weight.detach().numpy())
    assert seq[0].bias.requires_grad is False and seq[0].bias.grad is None
    assert rng.integers(1000) == gen.integers(1000)  # the same state after the call


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_a_graph_crosses_as_a_marker():
    verdicts_models.begin(True)
    verdicts_models.incoming({}, {"graphs": True})
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    sent = json.dumps(encode([(x * x).sum(), x.detach()]))
    verdicts_objects.STATE["namespace"] = None
    with_graph, without = decode(json.loads(sent))
    assert with_graph.grad_fn is not None and with_graph.requires_grad
    assert without.grad_fn is None and not without.requires_grad
    from minigrad.course.graph_memory import saved_arrays

    assert len(saved_arrays(with_graph)) == 1  # x, saved once for x * x
    verdicts_models.begin(False)  # other chapters: no marker read
    assert decode(json.loads(sent))[0].grad_fn is None


def test_the_judge_rebuilds_no_module_and_runs_no_class():
    verdicts_objects.STATE["namespace"] = None
    for forged in ({"t": "Module", "id": 0, "cls": {"name": "X", "source": "x = 1"},
                    "state": {}}, {"t": "learner", "name": "f"}):
        with pytest.raises(TypeError):
            decode(forged)


def test_prepare_attaches_sources_and_keeps_the_test():
    for notebook in NOTEBOOKS:
        for kind, grade_id, source in _cells(notebook):
            if kind == "test" and grade_id in verdicts_models.THERE:
                prepared = verdicts_models.prepare(grade_id, source)
                ast.parse(prepared)
                for name in verdicts_models.THERE[grade_id]:
                    assert prepared.count(f"{name}.__verdict_source__ = ") + prepared.count(
                        f"{name} = __import__") == 1, (grade_id, name)
    assert verdicts_models.prepare("ex05-grad-by-hand-test", "x = 1").endswith("\nx = 1")


def test_chapter_13_support_is_the_notebook_s():
    source = next(s for s in SOURCES if s.stem.startswith("13")).read_text()
    wanted = {n.name: ast.dump(n) for n in ast.parse(source).body
              if isinstance(n, ast.FunctionDef)}
    for node in ast.parse(verdicts_models.SUPPORT["ex13-backward-test"]).body:
        assert ast.dump(node) == wanted[node.name], node.name


def _cases():
    """[(grade_id, label, solution sources, test source)]: honest, hostile, mistakes."""
    cases = []
    for notebook in NOTEBOOKS:
        cells = _cells(notebook)
        solutions = [(g, s) for k, g, s in cells if k == "solution"]
        for kind, grade_id, test in cells:
            if kind != "test" or grade_id not in verdicts_models.EXERCISES:
                continue
            exercise = grade_id.removesuffix("-test")
            before = solutions[:[g for g, _ in solutions].index(exercise) + 1]
            earlier = [s for _, s in before[:-1]]
            wrong = importlib.import_module(f"tests.wrong_answers.ch{notebook.stem[:2]}").WRONG
            answers = [("honest", before[-1][1])]
            answers += [(k, hostile(exercise, before[-1][1], k).source)
                        for e, k in SAMPLE if e == exercise]
            answers += [(f"mistake {m}", next(w.source for w in wrong[exercise]
                                              if w.mistake == m))
                        for e, m in CROSSING if e == exercise]
            cases += [(grade_id, label, [*earlier, source], test) for label, source in answers]
    return cases


def _hostile(cases):
    return [c for c in cases if c[1] != "honest" and not c[1].startswith("mistake")]


def verdict_inputs():
    """This file's cases for ``tests/verdict_tables.py``: in the kernel, the hostile ones."""
    cases = _cases()
    return ([(verdicts_models.cells(c[0], c[2]), c[3]) for c in _hostile(cases)],
            [(c[0], c[3], c[2]) for c in cases])


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    cases = _cases()
    passed_in_kernel, outside, cost = verdicts_of("test_verdicts_models", tmp_path_factory)
    in_kernel = dict(zip([c[:2] for c in _hostile(cases)], passed_in_kernel, strict=True))
    rows = [(c[0], c[1], in_kernel.get(c[:2]), [o["evalue"] for o in out
                                                  if o["output_type"] == "error"])
            for c, out in zip(cases, outside, strict=True)]
    out = io.StringIO()
    print(f"\nverdict processes: {cost:.2f} CPU s per exercise", file=out)
    for kind in sorted({r[1] for r in rows if not r[1].startswith("mistake")}):
        mine = [r for r in rows if r[1] == kind]
        print(f"{kind:16} {len(mine):3} answers: pass in kernel "
              f"{sum(bool(r[2]) for r in mine) if kind != 'honest' else '-':>3}, "
              f"pass outside {sum(not r[3] for r in mine):3}", file=out)
    sys.stderr.write(out.getvalue())
    return rows


@pytest.mark.slow
@needs_sandbox
def test_honest_answers_keep_full_marks_outside_the_kernel(table):
    honest = [r for r in table if r[1] == "honest"]
    assert sorted(r[0] for r in honest) == sorted(MINE)
    assert not [r for r in honest if r[3]]


@pytest.mark.slow
@needs_sandbox
def test_hostile_answers_fail_outside_the_kernel(table):
    rows = [r for r in table if r[1] != "honest" and not r[1].startswith("mistake")]
    assert len(rows) == len(SAMPLE) and not [r[:2] for r in rows if not r[3]]
    for kind in {k for _, k in SAMPLE}:  # the kernel's own check is fooled by each kind
        assert any(r[2] for r in rows if r[1] == kind), kind


@pytest.mark.slow
@needs_sandbox
def test_mistakes_seen_only_through_what_crosses_are_named_outside(table):
    rows = [r for r in table if r[1].startswith("mistake")]
    assert len(rows) == len(CROSSING)
    for grade_id, label, _, errors in rows:
        assert errors and label.removeprefix("mistake ") in errors[0], (grade_id, errors)
