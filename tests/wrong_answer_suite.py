"""The wrong-answer pass shared by the round trip's files (``tests/test_wrong_answers.py``
says what it checks): ``tests/wrong_answer_submission.py`` makes it the instructor's
submission of each chapter, ``nbgrader autograde`` runs it in the round trip's course
(``tests/roundtrip_suite.py``), and the tests below read its outcomes.
"""

import importlib

import nbformat
import pytest

from minigrad.course.mistakes import named_mistake
from tests.notebook_tools import NOTEBOOKS, nbgrader_meta
from tests.wrong_answer_submission import exercises, outcomes, submission
from tests.wrong_answers import GENERIC_CHEATS


def _chapters():
    found = {}
    for nb_path in NOTEBOOKS:
        number = nb_path.stem[:2]
        try:
            module = importlib.import_module(f"tests.wrong_answers.ch{number}")
        except ModuleNotFoundError:
            continue
        found[number] = (nb_path, module)
    return found


CHAPTERS = _chapters()


def instructor_submission(number):
    """The instructor's submission of chapter ``number``: the chapter with the pass in it."""
    return submission(number, CHAPTERS[number][1])[0]


_RESULTS = {}


def chapter_results(course, number):
    """{(grade_id, label): outcome} of chapter ``number``, graded in ``course``."""
    key = (str(course), number)
    if key not in _RESULTS:
        from tests.roundtrip_suite import autograded_path

        nb = nbformat.read(autograded_path(course, "instructor", CHAPTERS[number][0]),
                           as_version=4)
        results = outcomes(nb, submission(number, CHAPTERS[number][1])[1])
        broken = [f"cell {cell_id}: {error}" for (kind, cell_id), error in results.items()
                  if kind == "broken"]
        assert not broken, f"chapter {number}: these cells fail:\n" + "\n".join(broken)
        _RESULTS[key] = results
    return _RESULTS[key]


def _cases():
    """(chapter, exercise, wrong answer); the generic cheats go to each chapter's first."""
    cases = []
    for number, (_, module) in CHAPTERS.items():
        for i, (grade_id, answers) in enumerate(module.WRONG.items()):
            cases += [(number, grade_id, w) for w in answers + (GENERIC_CHEATS if i == 0 else [])]
    return cases


CASES = _cases()


def chapter_tests(numbers):
    """The tests of the chapters ``numbers``, for a test file's namespace."""
    numbers = sorted(n for n in numbers if n in CHAPTERS)
    cases = [case for case in CASES if case[0] in numbers]

    @pytest.mark.parametrize("number", numbers)
    def test_reference_solutions_pass(course, number):
        nb = nbformat.read(CHAPTERS[number][0], as_version=4)
        results = chapter_results(course, number)
        for _, solutions, _ in exercises(nb):
            grade_id = nbgrader_meta(solutions[0])["grade_id"]
            (full, shown) = results[(grade_id, "reference")]
            assert full == (True, ""), f"{grade_id}: reference fails the full test: {full[1]}"
            assert shown == (True, ""), (
                f"{grade_id}: reference fails the visible test: {shown[1]}")

    @pytest.mark.parametrize("number", numbers)
    def test_every_cell_gives_the_same_result_when_run_again(course, number):
        """A learner who runs a cell again, or runs a widget and then the next cell, sees
        what the chapter shows."""
        differ = [f"cell {cell_id}:\n  first:  {first[:300]!r}\n  second: {second[:300]!r}"
                  for (kind, cell_id), (first, second) in chapter_results(course, number).items()
                  if kind == "run again"]
        assert not differ, "run twice, these cells differ:\n" + "\n".join(differ)

    @pytest.mark.parametrize("number", numbers)
    def test_every_cell_shows_what_the_committed_chapter_shows(course, number):
        """What ``pytest --nbval`` checked, in nbgrader's run of the instructor's submission:
        every code cell's first run (an exercise's reference and test before any wrong
        answer, where nbval runs them) shows the
        committed outputs, compared and sanitized as nbval compares them
        (``tests/sanitize.cfg``; cells tagged ``nbval-ignore-output`` are not compared)."""
        differ = [f"cell {cell_id}:\n  committed: {str(committed)[:400]}\n"
                  f"  this run:  {str(shown)[:400]}"
                  for (kind, cell_id), (committed, shown)
                  in chapter_results(course, number).items() if kind == "as committed"]
        assert not differ, "run top to bottom, these cells differ:\n" + "\n".join(differ)

    @pytest.mark.parametrize("number", numbers)
    def test_every_exercise_has_four_kinds_of_wrong_answers(number):
        nb = nbformat.read(CHAPTERS[number][0], as_version=4)
        wrong = CHAPTERS[number][1].WRONG
        for _, solutions, _ in exercises(nb):
            grade_id = nbgrader_meta(solutions[0])["grade_id"]
            kinds = {w.kind for w in wrong.get(grade_id, [])}
            assert len(wrong.get(grade_id, [])) >= 4, f"{grade_id}: fewer than 4 wrong answers"
            assert {"slip", "bypass", "hardcoded", "ignores"} <= kinds, (
                f"{grade_id}: kinds {sorted(kinds)}")

    @pytest.mark.parametrize(
        "number,grade_id,wrong", cases,
        ids=[f"ch{n}-{g}-{w.label}" for n, g, w in cases])
    def test_wrong_answer_fails(course, number, grade_id, wrong):
        (full, shown) = chapter_results(course, number)[(grade_id, wrong.label)]
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
    def test_the_check_names_exactly_the_mistake_of_each_wrong_answer(course, number, grade_id,
                                                                     wrong):
        """A wrong answer tagged ``mistake=`` is named by that id in the full test (and, for a
        slip, in the visible test too); an untagged one is named by none."""
        (full, shown) = chapter_results(course, number)[(grade_id, wrong.label)]
        assert named_mistake(full[1]) == wrong.mistake, (
            f"full test: named {named_mistake(full[1])!r}, expected {wrong.mistake!r}:\n{full[1]}")
        if wrong.kind == "slip":
            assert named_mistake(shown[1]) == wrong.mistake, (
                f"visible test: named {named_mistake(shown[1])!r}, expected "
                f"{wrong.mistake!r}:\n{shown[1]}")

    return {name: value for name, value in locals().items() if name.startswith("test_")}
