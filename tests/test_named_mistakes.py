"""Named mistakes: a failing check names the common mistake it recognises in the answer's
outputs, and the instructor's export carries it.

The grading API (``mistakes=`` of ``Grader.check`` and ``Grader.require``) is tested on
plain functions here; the exercises' checks on the wrong-answer suite
(``tests/wrong_answers/``, each answer's ``mistake=``) through the chapter runs of
``tests/test_wrong_answers.py`` (slow: one kernel a chapter, shared with that file when
both run in one session).
"""

import nbformat
import pytest

from minigrad.course.grading import ExerciseFailed, graded
from minigrad.course.mistakes import named_mistake, tag
from tests.notebook_tools import load_module

SLOPE_MISTAKES = {
    "one-side": ("your slope leans to one side: is x in the middle of your secant?", None),
    "half": ("your slope is off by a factor 2 where h = 1: which distance does the "
             "secant cover?", None),
}


def _slope_check(slope, x=3.0, h=1.0):
    """The check of a central slope of x**3, with two named mistakes."""
    def f(t):
        return t ** 3

    reference = (f(x + h) - f(x - h)) / (2 * h)
    mistakes = {"one-side": (SLOPE_MISTAKES["one-side"][0], lambda: (f(x + h) - f(x)) / h),
                "half": (SLOPE_MISTAKES["half"][0], reference * 2)}
    with graded("Exercise 0.1", hint="the secant through x - h and x + h") as g:
        got = g.call(slope, f, x, h)
        g.check("central slope", got, reference, rtol=1e-12, mistakes=mistakes)


def _failure(slope):
    with pytest.raises(ExerciseFailed) as info:
        _slope_check(slope)
    return str(info.value), info.value


def test_a_matching_mistake_is_named_with_its_nudge_and_tag():
    text, exc = _failure(lambda f, x, h: (f(x + h) - f(x - h)) / h)
    assert exc.mistake == "half"
    assert named_mistake(text) == "half"
    assert SLOPE_MISTAKES["half"][0] in text
    assert text.splitlines()[-1] == tag("half")
    assert "Hint: the secant" in text  # the exercise's hint stays
    text, exc = _failure(lambda f, x, h: (f(x + h) - f(x)) / h)
    assert exc.mistake == "one-side" and named_mistake(text) == "one-side"


def test_an_unknown_wrong_value_names_no_mistake():
    text, exc = _failure(lambda f, x, h: (f(x + h) - f(x - h)) / (3 * h))
    assert exc.mistake is None and named_mistake(text) is None
    assert "Likely mistake" not in text


def test_a_right_answer_names_nothing_and_a_lazy_mistake_is_not_computed():
    computed = []
    with graded("Exercise 0.2") as g:
        g.check("x", 2.0, 2.0, mistakes={"never": ("?", lambda: computed.append(1) or 4.0)})
    assert computed == []


def test_a_mistake_matches_with_the_checks_own_tolerance_and_shape():
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.3") as g:
        g.check("w.grad", [[1.0, 3.0], [2.0, 4.0 + 1e-9]], [[1.0, 2.0], [3.0, 4.0]],
                rtol=1e-12, atol=1e-12, mistakes={
                    "loose": ("?", [[1.0, 3.0], [2.0, 4.0]]),
                    "transposed": ("your gradient has the weight's entries in the wrong "
                                   "places: which index is the output?", [[1.0, 3.0], [2.0, 4.0]]),
                })
    assert info.value.mistake is None  # 1e-9 off both mistakes at atol 1e-12
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.3") as g:
        g.check("w.grad", [[1.0, 3.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]],
                mistakes={"wrong-shape": ("?", [1.0, 3.0, 2.0, 4.0]),
                          "transposed": ("which index is the output?", [[1, 3], [2, 4]])})
    assert info.value.mistake == "transposed"


def test_a_mistake_that_matches_the_reference_too_is_passed_over():
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.4") as g:
        g.check("y", 5.0, 0.0, mistakes={"sign": ("?", -0.0), "five": ("?", 5.0)})
    assert info.value.mistake == "five"


def test_a_mistake_whose_value_cannot_be_computed_is_passed_over():
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.5") as g:
        g.check("y", 5.0, 1.0, mistakes={"broken": ("?", lambda: 1 / 0), "five": ("?", 5.0)})
    assert info.value.mistake == "five"


def test_a_requirement_names_the_mistake_whose_condition_holds():
    parents = ["a"]
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.6") as g:
        g.require("two parents", len(parents) == 2, "record both inputs", mistakes={
            "no-parents": ("?", lambda: not parents),
            "one-parent": ("did b's change reach the result?", lambda: len(parents) == 1)})
    assert info.value.mistake == "one-parent"
    assert str(info.value).endswith(tag("one-parent"))


def test_an_exception_of_the_learners_code_names_its_mistake():
    def div(a, b):
        return a.data / b

    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.8") as g:
        g.call(div, 1.0, 2.0, mistakes={"zero": ("?", ZeroDivisionError),
                                        "number-not-wrapped": ("a number has no .data?",
                                                               AttributeError)})
    assert info.value.mistake == "number-not-wrapped"
    assert "raised AttributeError" in str(info.value)
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.8") as g:
        g.call(div, 1.0, 2.0, mistakes={"zero": ("?", ZeroDivisionError)})
    assert info.value.mistake is None


def test_a_nan_mistake_matches_a_nan_answer():
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.9") as g:
        g.check("d", [float("nan"), 1.0], [0.0, 0.0], mistakes={
            "nan": ("?", [float("nan"), 1.0])})
    assert info.value.mistake == "nan"


def test_an_inf_mistake_matches_only_the_same_inf():
    overflow = {"overflow": ("?", [0.0, float("inf")])}
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.10") as g:
        g.check("y", [0.0, float("inf")], [0.0, 800.0], rtol=1e-12, atol=0, mistakes=overflow)
    assert info.value.mistake == "overflow"
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.10") as g:
        g.check("y", [0.0, 799.0], [0.0, 800.0], rtol=1e-12, atol=0, mistakes=overflow)
    assert info.value.mistake is None


def test_a_mistake_id_is_one_word():
    with pytest.raises(ExerciseFailed, match="ValueError: a mistake's id"), \
            graded("Exercise 0.7") as g:
        g.check("y", 5.0, 1.0, mistakes={"two words": ("?", 5.0)})


def _autograded(cells):
    nb = nbformat.v4.new_notebook()
    for grade_id, evalue in cells:
        cell = nbformat.v4.new_code_cell("with graded(\"Exercise 1.1\") as g: ...")
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": 1}
        if evalue is not None:
            cell.outputs = [nbformat.v4.new_output("error", ename="ExerciseFailed",
                                                   evalue=evalue, traceback=[])]
        nb.cells.append(cell)
    return nbformat.reads(nbformat.writes(nb), as_version=4)


def test_the_export_reads_the_named_mistake_per_exercise():
    classroom = load_module("instructor/classroom.py")
    assert classroom.FIELDS[-1] == "mistake"
    failed = ("Exercise 1.1: slope is 54.0, torch gives 27.0\nLikely mistake: ...?\n"
              "Hint: ...\n" + tag("half"))
    nb = _autograded([("ex-a", failed), ("ex-b", "Exercise 1.2: y is 1.0, torch gives 2.0"),
                      ("ex-c", None)])
    mistakes = {}
    statuses = classroom.exercise_statuses(nb, mistakes)
    assert mistakes == {"ex-a": "half"}
    assert statuses["ex-a"][0] == ("failed", "Exercise 1.1: slope is 54.0, torch gives 27.0")
    assert statuses["ex-b"][0][0] == "failed" and statuses["ex-c"][0][0] == "passed"
    assert classroom.exercise_statuses(nb) == statuses  # unchanged without the dict

# The exercises' checks on the wrong-answer suite (each wrong answer tagged ``mistake=`` is
# named by exactly that id) run in tests/wrong_answer_suite.py, in the same kernel pass as the
# wrong answers themselves, so no chapter runs twice for it.
