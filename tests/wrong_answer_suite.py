"""The wrong-answer pass shared by ``tests/test_wrong_answers*.py`` (its docstring says
what it checks). The chapters are split into groups, one test file a group, so that
``pytest -n 2 --dist loadfile`` can run them on both cores: one file holding every
chapter kept one core busy for minutes after the other had finished.
"""

import functools
import importlib
import re

import nbformat
import pytest

from minigrad.course.mistakes import named_mistake
from tests.notebook_tools import (
    NOTEBOOKS,
    Kernel,
    as_outputs,
    nbgrader_meta,
    nbval_view,
    output_text,
)
from tests.wrong_answers import GENERIC_CHEATS

HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*(?:\n|\Z)",
                    re.DOTALL | re.MULTILINE)

# Runs in the kernel: save and restore the namespace and every watched module attribute.
SETUP = """
import sys as _sys, types as _types
import minigrad.course.integrity as _integrity
_integrity.install()
_wa = _sys.modules.setdefault("_wrong_answers", _types.ModuleType("_wrong_answers"))
def _wa_save():
    from minigrad.course.integrity import _watched_modules
    _wa.ns = dict(get_ipython().user_ns)
    _wa.attrs = {(m, k): v for n, m in _watched_modules() for k, v in list(vars(m).items())}
    _wa.classes = {c: dict(vars(c)) for c in _wa_classes()}
def _wa_classes():
    import numpy, torch, minigrad.course.grading, minigrad.value, minigrad.tensors
    return [torch.Tensor, minigrad.course.grading.Grader, minigrad.value.Value,
            minigrad.tensors.Tensor]
def _wa_restore(wa=_wa, integrity=_integrity):
    ns = get_ipython().user_ns
    ns.clear()
    ns.update(wa.ns)
    for (m, k), v in wa.attrs.items():
        if vars(m).get(k, wa) is not v:
            setattr(m, k, v)
    for c, d in wa.classes.items():
        for k, v in d.items():
            if vars(c).get(k, wa) is not v and not k.startswith("__"):
                setattr(c, k, v)
    integrity._state["first_change"] = None
"""


def visible(test_source):
    """The test cell as nbgrader releases it: hidden tests removed."""
    shown = HIDDEN.sub("", test_source)
    assert "HIDDEN TESTS" not in shown, "hidden tests not removed"
    return shown


def _chapters():
    found = {}
    for nb_path in NOTEBOOKS:
        number = nb_path.stem[:2]
        try:
            module = importlib.import_module(f"tests.wrong_answers.ch{number}")
        except ModuleNotFoundError:
            continue
        found[number] = (nb_path, module.WRONG)
    return found


CHAPTERS = _chapters()


def _exercises(nb):
    """[(solution cells, test cell)] in notebook order, and the index of each test cell."""
    exercises, pending = [], []
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_meta(cell)
        if meta.get("solution"):
            pending.append(cell)
        elif meta.get("grade"):
            exercises.append((index, pending, cell))
            pending = []
    return exercises


@functools.cache
def chapter_results(number):
    """Run one chapter with every wrong answer; {(grade_id, label): outcome}."""
    nb_path, wrong = CHAPTERS[number]
    nb = nbformat.read(nb_path, as_version=4)
    exercises = {idx: (solutions, test) for idx, solutions, test in _exercises(nb)}
    solution_ids = {id(c) for _, (sols, _) in exercises.items() for c in sols}
    results = {}
    kernel = Kernel(nb_path.parent)

    def as_committed(cells, messages):
        """Note in results if a first run showed what ``cells`` show in the committed
        chapter, as nbval compares them (the cells' outputs joined: one solution may span
        cells)."""
        if any("nbval-ignore-output" in c.metadata.get("tags", []) for c in cells):
            return
        committed = nbval_view([o for c in cells for o in c.outputs])
        shown = nbval_view(as_outputs(messages))
        if shown != committed:
            results[("as committed", cells[0].id)] = (committed, shown)

    def twice(cell, source, first=None):
        """Run ``source`` twice; note in results if the two runs showed different things
        (and, if ``first`` names the committed cells, if the first run differs from them)."""
        runs = []
        for _ in range(2):
            outputs = []
            ok, error = kernel.run(source, outputs=outputs)
            if first is not None and not runs:
                as_committed(first, outputs)
            runs.append(output_text(outputs))
        if runs[0] != runs[1] and "nbval-ignore-output" not in cell.metadata.get("tags", []):
            results[("run again", cell.id)] = (runs[0], runs[1])
        return ok, error

    try:
        assert kernel.run(SETUP)[0]
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or id(cell) in solution_ids:
                continue
            if index not in exercises:
                if not cell.source.strip():
                    continue
                ok, error = twice(cell, cell.source, first=[cell])
                tagged = "raises-exception" in cell.metadata.get("tags", [])
                assert ok or tagged, f"chapter {number}, cell {cell.id}: {error}"
                continue
            solutions, test = exercises[index]
            grade_id = nbgrader_meta(solutions[0])["grade_id"]
            reference = "\n\n".join(c.source for c in solutions)
            assert kernel.run("_wa_save()")[0]

            def attempt(answer, test_source, shown=(None, None)):
                ok, error = kernel.run(answer, outputs=shown[0])
                if ok:
                    ok, error = kernel.run(test_source, outputs=shown[1])
                else:
                    error = "answer cell: " + error
                restored = kernel.run("_wa_restore()")
                assert restored[0], restored[1]
                return ok, error

            # The reference's first run is where nbval would run it: its outputs and its
            # test's must be the committed ones.
            shown = ([], [])
            results[(grade_id, "reference")] = (attempt(reference, test.source, shown),
                                                attempt(reference, visible(test.source)))
            as_committed(solutions, shown[0])
            as_committed([test], shown[1])
            first = not any(key[1] == "reference" for key in results if key[0] != grade_id)
            cheats = [type(w)(w.label, w.kind, reference + "\n" + w.source)
                      for w in GENERIC_CHEATS] if first else []
            for answer in wrong.get(grade_id, []) + cheats:
                full = attempt(answer.source, test.source)
                shown = attempt(answer.source, visible(test.source)) \
                    if answer.kind == "slip" else None
                results[(grade_id, answer.label)] = (full, shown)
            # The reference after the wrong answers: run twice below, its test must pass.
            for cell_, source in ((solutions[-1], reference), (test, test.source)):
                ok, error = twice(cell_, source)
                assert ok, f"{grade_id}: the reference fails after the wrong answers: {error}"
    finally:
        kernel.close()
    return results


def _cases():
    """(chapter, exercise, wrong answer); the generic cheats go to each chapter's first."""
    cases = []
    for number, (_, wrong) in CHAPTERS.items():
        for i, (grade_id, answers) in enumerate(wrong.items()):
            cases += [(number, grade_id, w) for w in answers + (GENERIC_CHEATS if i == 0 else [])]
    return cases


CASES = _cases()

# Chapter groups, one test file each (tests/test_wrong_answers.py, _2.py, ...), of about
# equal cost (the later chapters are the longest).
GROUPS = (("01", "02", "03", "04", "05", "06", "07", "08"),
          ("09", "10", "11", "12", "13"),
          ("14", "15", "16"))


def chapter_tests(numbers):
    """The tests of the chapters ``numbers``, for a test file's namespace."""
    numbers = sorted(n for n in numbers if n in CHAPTERS)
    cases = [case for case in CASES if case[0] in numbers]

    @pytest.mark.parametrize("number", numbers)
    def test_reference_solutions_pass(number):
        nb = nbformat.read(CHAPTERS[number][0], as_version=4)
        results = chapter_results(number)
        for _, solutions, _ in _exercises(nb):
            grade_id = nbgrader_meta(solutions[0])["grade_id"]
            (full, shown) = results[(grade_id, "reference")]
            assert full == (True, ""), f"{grade_id}: reference fails the full test: {full[1]}"
            assert shown == (True, ""), (
                f"{grade_id}: reference fails the visible test: {shown[1]}")

    @pytest.mark.parametrize("number", numbers)
    def test_every_cell_gives_the_same_result_when_run_again(number):
        """A learner who runs a cell again, or runs a widget and then the next cell, sees
        what the chapter shows."""
        differ = [f"cell {cell_id}:\n  first:  {first[:300]!r}\n  second: {second[:300]!r}"
                  for (kind, cell_id), (first, second) in chapter_results(number).items()
                  if kind == "run again"]
        assert not differ, "run twice, these cells differ:\n" + "\n".join(differ)

    @pytest.mark.parametrize("number", numbers)
    def test_every_cell_shows_what_the_committed_chapter_shows(number):
        """What ``pytest --nbval`` checked, in the same kernel pass: every code cell's
        first run (an exercise's reference and test before any wrong answer) shows the
        committed outputs, compared and sanitized as nbval compares them
        (``tests/sanitize.cfg``; cells tagged ``nbval-ignore-output`` are not compared)."""
        differ = [f"cell {cell_id}:\n  committed: {str(committed)[:400]}\n"
                  f"  this run:  {str(shown)[:400]}"
                  for (kind, cell_id), (committed, shown) in chapter_results(number).items()
                  if kind == "as committed"]
        assert not differ, "run top to bottom, these cells differ:\n" + "\n".join(differ)

    @pytest.mark.parametrize("number", numbers)
    def test_every_exercise_has_four_kinds_of_wrong_answers(number):
        nb = nbformat.read(CHAPTERS[number][0], as_version=4)
        wrong = CHAPTERS[number][1]
        for _, solutions, _ in _exercises(nb):
            grade_id = nbgrader_meta(solutions[0])["grade_id"]
            kinds = {w.kind for w in wrong.get(grade_id, [])}
            assert len(wrong.get(grade_id, [])) >= 4, f"{grade_id}: fewer than 4 wrong answers"
            assert {"slip", "bypass", "hardcoded", "ignores"} <= kinds, (
                f"{grade_id}: kinds {sorted(kinds)}")

    @pytest.mark.parametrize(
        "number,grade_id,wrong", cases,
        ids=[f"ch{n}-{g}-{w.label}" for n, g, w in cases])
    def test_wrong_answer_fails(number, grade_id, wrong):
        (full, shown) = chapter_results(number)[(grade_id, wrong.label)]
        ok, error = full
        assert not ok, f"the full test passes a wrong answer ({wrong.kind}): {wrong.label}"
        assert not error.startswith("answer cell"), f"the wrong answer itself fails: {error}"
        assert "NameError" not in error and "SyntaxError" not in error, error
        if wrong.kind == "cheat":
            assert "replaced" in error, f"a cheat not named as one: {error}"
        if wrong.kind == "slip":
            assert shown is not None and not shown[0], (
                f"the visible test passes a conceptual slip: {wrong.label}")

    named = [case for case in cases if case[2].kind != "cheat"]

    @pytest.mark.parametrize(
        "number,grade_id,wrong", named,
        ids=[f"ch{n}-{g}-{w.label}" for n, g, w in named])
    def test_the_check_names_exactly_the_mistake_of_each_wrong_answer(number, grade_id, wrong):
        """A wrong answer tagged ``mistake=`` is named by that id in the full test (and, for a
        slip, in the visible test too); an untagged one is named by none."""
        (full, shown) = chapter_results(number)[(grade_id, wrong.label)]
        assert named_mistake(full[1]) == wrong.mistake, (
            f"full test: named {named_mistake(full[1])!r}, expected {wrong.mistake!r}:\n{full[1]}")
        if wrong.kind == "slip":
            assert named_mistake(shown[1]) == wrong.mistake, (
                f"visible test: named {named_mistake(shown[1])!r}, expected "
                f"{wrong.mistake!r}:\n{shown[1]}")

    return {name: value for name, value in locals().items() if name.startswith("test_")}
