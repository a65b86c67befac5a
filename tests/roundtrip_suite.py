"""The instructor round trip shared by ``tests/test_nbgrader_roundtrip*.py`` (the first
one's docstring says what it checks): each file makes its own course folder over one
group of chapters and grades it, so the pytest workers share the work. The instructor's
submission holds the wrong-answer pass (``tests/wrong_answer_suite.py``): one file a group
runs both.
"""


import nbformat
import pytest
from nbgrader.api import Gradebook

from tests import wrong_answer_suite
from tests.notebook_tools import (
    BUSY_MACHINE,
    NOTEBOOKS,
    load_module,
    marked_lines,
    nbgrader_meta,
    visible_code_lines,
)


def _exercise_cells(nb):
    return [c for c in nb.cells if nbgrader_meta(c).get("solution") or _is_test(c)]


def _is_test(cell):
    return bool(nbgrader_meta(cell).get("grade"))


def _test_ids(nb):
    return [nbgrader_meta(c)["grade_id"] for c in nb.cells if _is_test(c)]


# Chapter groups, one test file each, of about equal grading cost: two, as a course's
# fixed cost (nbgrader's processes, the fork server's imports, the gradebook) is paid once a
# file, and the two files and the browser tests keep the three pytest workers busy. Kernel
# seconds of the instructor's submissions (the wrong-answer pass in) and the untouched
# ones, from the autograded notebooks: 01-10 65 s, 11-16 57 s (ten chapters' nbgrader work
# against six). Four groups cost some 20 CPU s more.
GROUPS = (("01", "02", "03", "04", "05", "06", "07", "08", "09", "10"),
          ("11", "12", "13", "14", "15", "16"))

CLASSROOM = load_module("instructor/classroom.py")
TAMPERED = NOTEBOOKS[0]  # one chapter shows it: nbgrader restores tests the same way in all


def _released(course, source_nb):
    return course / "release" / CLASSROOM.assignment_of(source_nb) / source_nb.name


def make_course(course, notebooks):
    """The instructor's course folder (``instructor/classroom.py setup``: each chapter an
    assignment, one ``generate_assignment "*"``), graded with one ``autograde "*"``."""
    CLASSROOM.setup(course, notebooks)
    with (course / "nbgrader_config.py").open("a") as f:
        f.write(BUSY_MACHINE)

    def submit(student, source_nb, nb):
        folder = course / "submitted" / student / CLASSROOM.assignment_of(source_nb)
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / source_nb.name)

    for source_nb in notebooks:
        released = nbformat.read(_released(course, source_nb), as_version=4)
        # The chapter as committed, with the wrong-answer pass in cells of its own.
        submit("instructor", source_nb,
               wrong_answer_suite.instructor_submission(source_nb.stem[:2]))
        submit("untouched", source_nb, released)
    if TAMPERED in notebooks:
        tampered = nbformat.read(_released(course, TAMPERED), as_version=4)
        tests = [c for c in tampered.cells if _is_test(c)]
        tests[0].source = "pass  # the student replaced the test"
        tampered.cells.remove(tests[-1])
        submit("tamperer", TAMPERED, tampered)
    CLASSROOM.nbgrader(["autograde", "*", "--force"], course)
    return course


def chapter_tests(numbers):
    """The course fixture and the tests of the chapters ``numbers``, for a test file."""
    notebooks = [nb for nb in NOTEBOOKS if nb.stem[:2] in numbers]

    @pytest.fixture(scope="module")
    def course(tmp_path_factory):
        return make_course(tmp_path_factory.mktemp("course"), notebooks)

    @pytest.fixture(params=notebooks, ids=[p.stem for p in notebooks])
    def graded(request, course):
        return graded_chapter(course, request.param)

    return {"course": course, "graded": graded, **wrong_answer_suite.chapter_tests(numbers),
            **{name: value for name, value in globals().items() if name.startswith("test_")}}


def autograded_path(course, student, source_nb):
    return course / "autograded" / student / CLASSROOM.assignment_of(source_nb) / source_nb.name


def graded_chapter(course, source_nb):
    """What the tests below look at, for one chapter of the course."""
    assignment = CLASSROOM.assignment_of(source_nb)
    students = ["instructor", "untouched"] + (["tamperer"] if source_nb == TAMPERED else [])
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        scores = {student: gb.find_submission_notebook(source_nb.stem, assignment, student)
                  for student in students}
        scores = {s: (nb.score, nb.max_score) for s, nb in scores.items()}
    autograded = {s: nbformat.read(autograded_path(course, s, source_nb), as_version=4)
                  for s in students[1:]}
    return {"source": nbformat.read(source_nb, as_version=4),
            "released": nbformat.read(_released(course, source_nb), as_version=4),
            "scores": scores, "autograded": autograded}


def test_instructor_version_gets_full_marks(graded):
    score, max_score = graded["scores"]["instructor"]
    assert max_score >= 2
    assert score == max_score


def test_student_version_holds_no_solution_text(graded):
    released = graded["released"]
    text = "\n".join(c.source for c in released.cells if c.cell_type == "code")
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    released_lines = {line.strip() for line in text.splitlines()}
    visible = visible_code_lines(graded["source"])
    for cell in _exercise_cells(graded["source"]):
        for line in marked_lines(cell.source):
            if len(line) > 12 and line not in visible:  # "return x" a stub might share
                assert line not in released_lines, f"solution line leaked: {line!r}"
    outputs = [o for c in released.cells if c.cell_type == "code" for o in c.outputs]
    assert not outputs, "the student version must not carry the instructor's outputs"


def test_unsolved_student_version_scores_zero(graded):
    score, max_score = graded["scores"]["untouched"]
    assert max_score >= 2
    assert score == 0, "an exercise's check passes on the unsolved stub"


def test_cells_outside_exercises_run_in_the_student_version(graded):
    for cell in graded["autograded"]["untouched"].cells:
        if cell.cell_type != "code" or cell in _exercise_cells(graded["autograded"]["untouched"]) \
                or "raises-exception" in cell.metadata.get("tags", []):
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, (f"cell {cell.get('id')} fails without the solutions: "
                            f"{errors[0].ename}: {errors[0].evalue}")


def test_edited_or_deleted_tests_are_graded_with_the_originals(graded):
    if "tamperer" not in graded["scores"]:
        pytest.skip("one chapter (01) shows it: nbgrader restores tests the same way in all")
    score, max_score = graded["scores"]["tamperer"]
    assert score == 0
    assert max_score == graded["scores"]["instructor"][1]
    restored = graded["autograded"]["tamperer"]
    assert _test_ids(restored) == _test_ids(graded["source"])
    assert "the student replaced the test" not in "\n".join(c.source for c in restored.cells)
