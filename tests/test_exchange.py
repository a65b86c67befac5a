"""nbgrader's exchange, the whole round trip, with nbgrader's own commands (README's
instructor guide, "Handing out and collecting"; issue 19, item 6).

The instructor works in a course folder made by ``instructor/classroom.py setup``; each
student has a home of their own (HOME, JUPYTER_DATA_DIR and cwd), the exchange is a folder
in the test's temporary directory. Steps: release_assignment, fetch_assignment (two
students), one solves Exercise 0.1 with the reference solution and the other hands in the
assignment untouched, submit, collect, autograde, generate_feedback, release_feedback,
fetch_feedback. Each step's files are checked where nbgrader puts them. The assignment is
the minimal one (tests/notebook_tools.py: two exercises, 3 and 2 points): the exchange
moves files and does not care what they hold, and chapter 01's kernels are CPU spent
elsewhere (tests/test_autograde.py, tests/test_sandbox.py grade it in full).
"""

import os
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.notebook_tools import NOTEBOOKS, minimal_assignment, nbgrader_meta

pytestmark = pytest.mark.slow

CHAPTER = NOTEBOOKS[0]  # 01_derivatives: in the course (one cached course with the others)
ASSIGNMENT = "ch00"  # the minimal assignment, the one handed out here
STEM = "00_minimal"
NOTEBOOK = f"{STEM}.ipynb"
STUDENTS = ("ada", "bob")  # ada solves Exercise 0.1, bob leaves everything
SOLVED = "ex00-add-one"


def _run(args, cwd, home=None, exchange=None):
    """One nbgrader command as a user in ``cwd`` (a student when ``home`` is given)."""
    env = {**os.environ,
           "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]])}
    if home is not None:
        env.update(HOME=str(home), JUPYTER_DATA_DIR=str(home / ".local" / "share" / "jupyter"),
                   JUPYTER_CONFIG_DIR=str(home / ".jupyter"))
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args,
                             f"--Exchange.root={exchange}"] if exchange else
                            [sys.executable, "-m", "nbgrader", *args],
                            cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"nbgrader {args[0]}:\n{result.stderr[-3000:]}"
    return result.stdout + result.stderr


def _cell(nb, grade_id):
    return next(c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id)


@pytest.fixture(scope="module")
def trip(tmp_path_factory, released_course):
    root = tmp_path_factory.mktemp("exchange_trip")
    course, exchange = root / "course", root / "exchange"
    exchange.mkdir()
    minimal = minimal_assignment(root)
    released_course(course, [CHAPTER, minimal])
    logs = {"release": _run(["release_assignment", ASSIGNMENT], course, exchange=exchange)}
    homes = {}
    for student in STUDENTS:
        home = root / "home" / student
        home.mkdir(parents=True)
        homes[student] = home
        logs[f"fetch {student}"] = _run(
            ["fetch_assignment", ASSIGNMENT, "--course", "minigrad"], home, home, exchange)
    fetched = {s: homes[s] / ASSIGNMENT / NOTEBOOK for s in STUDENTS}
    # What each student found, before editing: the student version, as released.
    found = {s: nbformat.read(fetched[s], as_version=4) for s in STUDENTS}
    nb = nbformat.read(fetched["ada"], as_version=4)
    _cell(nb, SOLVED).source = _cell(nbformat.read(minimal, as_version=4), SOLVED).source
    nbformat.write(nb, fetched["ada"])
    for student in STUDENTS:
        logs[f"submit {student}"] = _run(
            ["submit", ASSIGNMENT, "--course", "minigrad", "--student", student],
            homes[student], homes[student], exchange)
    logs["collect"] = _run(["collect", ASSIGNMENT], course, exchange=exchange)
    logs["autograde"] = _run(["autograde", ASSIGNMENT], course)
    logs["generate_feedback"] = _run(["generate_feedback", ASSIGNMENT], course)
    logs["release_feedback"] = _run(["release_feedback", ASSIGNMENT], course, exchange=exchange)
    for student in STUDENTS:
        logs[f"fetch_feedback {student}"] = _run(
            ["fetch_feedback", ASSIGNMENT, "--course", "minigrad", "--student", student],
            homes[student], homes[student], exchange)
    return {"course": course, "exchange": exchange, "homes": homes, "found": found,
            "logs": logs}


def test_release_puts_the_student_version_in_the_exchange(trip):
    released = trip["exchange"] / "minigrad" / "outbound" / ASSIGNMENT / NOTEBOOK
    assert released.exists(), trip["logs"]["release"]
    nb = nbformat.read(released, as_version=4)
    assert "### BEGIN SOLUTION" not in _cell(nb, SOLVED).source
    assert "BEGIN HIDDEN TESTS" not in _cell(nb, f"{SOLVED}-test").source


def test_each_student_fetches_into_their_own_home(trip):
    for student, home in trip["homes"].items():
        assert (home / ASSIGNMENT / NOTEBOOK).exists()
        nb = trip["found"][student]
        assert "### BEGIN SOLUTION" not in _cell(nb, SOLVED).source
        assert "raise NotImplementedError" in _cell(nb, SOLVED).source, student
    assert trip["found"]["ada"] == trip["found"]["bob"]


def test_submit_reaches_the_inbound_and_the_students_cache(trip):
    inbound = sorted(p.name for p in (trip["exchange"] / "minigrad" / "inbound").iterdir())
    assert [name.split("+")[:2] for name in inbound] == [[s, ASSIGNMENT] for s in STUDENTS]
    for student, home in trip["homes"].items():
        cache = home / ".local" / "share" / "jupyter" / "nbgrader_cache" / "minigrad"
        (submission,) = cache.iterdir()
        assert submission.name.startswith(f"{student}+{ASSIGNMENT}+")
        assert (submission / NOTEBOOK).exists() and (submission / "timestamp.txt").exists()


def test_collect_puts_each_submission_under_submitted(trip):
    for student in STUDENTS:
        folder = trip["course"] / "submitted" / student / ASSIGNMENT
        assert (folder / NOTEBOOK).exists(), trip["logs"]["collect"]
        assert (folder / "timestamp.txt").exists()
    solved = nbformat.read(trip["course"] / "submitted" / "ada" / ASSIGNMENT / NOTEBOOK, 4)
    assert "### BEGIN SOLUTION" in _cell(solved, SOLVED).source


def test_autograde_scores_the_solved_exercise_only(trip):
    scores = {}
    with Gradebook(f"sqlite:///{trip['course'] / 'gradebook.db'}") as gb:
        for student in STUDENTS:
            submission = gb.find_submission(ASSIGNMENT, student)
            (notebook,) = submission.notebooks
            scores[student] = {g.name: g.score for g in notebook.grades if g.cell.max_score}
            assert submission.timestamp is not None
    assert scores["ada"] == {f"{SOLVED}-test": 3, "ex00-double-test": 0}
    assert scores["bob"] == {f"{SOLVED}-test": 0, "ex00-double-test": 0}


def test_feedback_reaches_each_students_home(trip):
    released = list((trip["exchange"] / "minigrad" / "feedback").glob("*.html"))
    assert len(released) == len(STUDENTS), trip["logs"]["release_feedback"]
    for student, home in trip["homes"].items():
        assert (trip["course"] / "feedback" / student / ASSIGNMENT
                / f"{STEM}.html").exists()
        (html,) = (home / ASSIGNMENT / "feedback").glob(f"*/{STEM}.html")
        text = html.read_text()
        total = "3.0" if student == "ada" else "0.0"
        assert f"Score: {total} / 5.0" in text or f"{total} / 5.0" in text, text[:2000]
        assert "Exercise 0.1" in text
