"""Real ``nbgrader autograde`` runs with the instructor's configuration: cheats score zero
and are named, every submission gets a grade, and the per-exercise export tells "not
submitted", "crashed in cell N", "timed out" and "scored 0" apart.

The odd submissions are of the minimal assignment (tests/notebook_tools.py: two exercises,
3 and 2 points, as chapter 01 has, without its demo cells and their CPU); the honest one,
under a name nbgrader does not expect, is all of chapter 01.

The course folder is made by ``instructor/classroom.py setup`` and graded by its
``grade`` command (two workers, one thread each), as an instructor would; a submission
that kills the worker grading it stops no one else.
"""

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.notebook_tools import (
    MINIMAL_POINTS,
    NOTEBOOKS,
    load_module,
    minimal_assignment,
    nbgrader_meta,
)
from tests.wrong_answers import GENERIC_CHEATS

pytestmark = pytest.mark.slow

CHAPTER = NOTEBOOKS[0]  # 01_derivatives: the renamer's, graded in full
FIRST, SECOND = "ex00-add-one", "ex00-double"  # the minimal assignment's, 3 and 2 points
# One cheat of each way in: a module's function (numpy), a class's method (the grader),
# a builtin. tests/test_wrong_answers.py runs all of GENERIC_CHEATS against every
# chapter's first exercise under the same guard; here they go through nbgrader itself.
CHEATS = {f"cheat{i}": w for i, w in enumerate(GENERIC_CHEATS)
          if w.label in ("numpy's isclose always true", "the grader's check replaced",
                         "a builtin shadowed")}


def _cell(nb, grade_id):
    return next(c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id)


def _submissions(minimal):
    """{student: notebook} of the minimal assignment, built from its source (answers
    right). The honest submission is the renamer's (below): full marks under a name
    nbgrader does not expect, for all of chapter 01."""
    subs = {}

    noisy = nbformat.read(minimal, as_version=4)
    _cell(noisy, FIRST).source += (
        "\n\n_right = answer_1\n"
        "def answer_1(x):\n"
        "    import sys, warnings\n"
        "    print('debugging', file=sys.stderr)\n"
        "    warnings.warn('a warning from the answer')\n"
        "    return _right(x)\n")
    subs["noisy"] = noisy

    for student, cheat in CHEATS.items():
        nb = nbformat.read(minimal, as_version=4)
        nb.cells.insert(1, nbformat.v4.new_code_cell(cheat.source))
        subs[student] = nb

    crash = nbformat.read(minimal, as_version=4)
    _cell(crash, SECOND).source = "import os\nos._exit(1)"
    subs["crash"] = crash

    deleted = nbformat.read(minimal, as_version=4)
    for grade_id in (SECOND, f"{SECOND}-test"):
        deleted.cells.remove(_cell(deleted, grade_id))
    subs["deleted"] = deleted

    killer = nbformat.read(minimal, as_version=4)  # kills the process that runs its kernel
    killer.cells.insert(1, nbformat.v4.new_code_cell(
        "import os, signal\nif os.getppid() > 1:\n    os.kill(os.getppid(), signal.SIGKILL)"))
    subs["killer"] = killer

    loop = nbformat.read(minimal, as_version=4)
    _cell(loop, SECOND).source = "while True:\n    pass"
    subs["loop"] = loop
    return subs


@pytest.fixture(scope="module")
def course(tmp_path_factory, released_course):
    classroom = load_module("instructor/classroom.py")
    minimal = minimal_assignment(tmp_path_factory.mktemp("minimal"))
    course = released_course(tmp_path_factory.mktemp("course"), [CHAPTER, minimal])
    with (course / "nbgrader_config.py").open("a") as f:
        f.write("\nc.Execute.timeout = 10  # the test's endless loop need not take 60 s\n")
    assignment = classroom.assignment_of(minimal)
    for student, nb in _submissions(minimal).items():
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / minimal.name)
    released = nbformat.read(course / "release" / assignment / minimal.name, as_version=4)
    (course / "submitted" / "untouched" / assignment).mkdir(parents=True)
    nbformat.write(released, course / "submitted" / "untouched" / assignment / minimal.name)
    chapter = classroom.assignment_of(CHAPTER)
    (course / "submitted" / "renamer" / chapter).mkdir(parents=True)
    nbformat.write(nbformat.read(CHAPTER, as_version=4),
                   course / "submitted" / "renamer" / chapter / "my chapter 1 (1).ipynb")
    results = classroom.grade(course, jobs=2)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_student("absent")
    rows = classroom.export(course)
    return {"results": results, "rows": rows, "course": course, "assignment": assignment,
            "minimal": minimal}


def _by(course, student):
    """{grade_id: export row} of the student's assignment (chapter 01 for the renamer,
    the minimal one for the others; both for "absent", who submitted neither)."""
    chapter = {"renamer": "ch01", "absent": None}.get(student, course["assignment"])
    return {r["grade_id"]: r for r in course["rows"]
            if r["student"] == student and chapter in (None, r["chapter"])}


def _total(course, student):
    return sum(r["score"] for r in _by(course, student).values())


def test_every_submission_is_graded(course):
    failed = [(a, s, err[-500:]) for a, s, rc, _, err in course["results"]
              if rc and s != "killer"]
    assert not failed
    # + untouched and renamer
    assert len(course["results"]) == len(_submissions(course["minimal"])) + 2


def test_a_submission_that_kills_its_grader_stops_no_one_else(course):
    """classroom.py grades many submissions in one worker process: killing it (the
    kernel's parent, unless a sandbox hides it) costs the others nothing; the worker is
    replaced, the killer tried three times and reported failed (or, sandboxed, graded)."""
    graded = {s for _, s, rc, _, _ in course["results"] if not rc}
    assert graded >= set(_submissions(course["minimal"])) - {"killer"} | {"untouched", "renamer"}
    assert _total(course, "renamer") == 5


def test_an_honest_submission_under_another_name_gets_full_marks(course):
    rows = _by(course, "renamer")
    assert rows and all(r["status"] == "passed" for r in rows.values()), rows
    assert _total(course, "renamer") == sum(r["max"] for r in rows.values()) == 5


def test_stderr_from_a_right_answer_costs_nothing(course):
    assert _total(course, "noisy") == MINIMAL_POINTS


@pytest.mark.parametrize("student", sorted(CHEATS))
def test_a_cheat_scores_zero_and_is_named(course, student):
    rows = _by(course, student)
    assert _total(course, student) == 0, f"{CHEATS[student].label} scores"
    for row in rows.values():
        assert row["status"] == "tampered", row
        assert "In [" in row["detail"] and "replaced" in row["detail"], row["detail"]


def test_a_dead_kernel_keeps_what_it_reached(course):
    rows = _by(course, "crash")
    assert rows[f"{FIRST}-test"]["status"] == "passed"
    assert rows[f"{SECOND}-test"]["status"].startswith("crashed in cell "), rows
    assert rows[f"{SECOND}-test"]["score"] == 0
    assert _total(course, "crash") == 3


def test_a_deleted_exercise_is_put_back_and_graded(course):
    rows = _by(course, "deleted")
    assert rows[f"{SECOND}-test"]["status"] == "not submitted"
    assert rows[f"{SECOND}-test"]["score"] == 0
    assert _total(course, "deleted") == 3
    autograded = nbformat.read(course["course"] / "autograded" / "deleted"
                               / course["assignment"] / course["minimal"].name, as_version=4)
    ids = [nbgrader_meta(c).get("grade_id") for c in autograded.cells
           if nbgrader_meta(c).get("grade_id")]
    source = [nbgrader_meta(c).get("grade_id") for c in nbformat.read(course["minimal"], 4).cells
              if nbgrader_meta(c).get("grade_id")]
    assert ids == source, "the restored cells are not in their place"


def test_an_endless_loop_times_out_and_the_rest_is_graded(course):
    rows = _by(course, "loop")
    assert rows[f"{FIRST}-test"]["status"] == "passed"
    assert rows[f"{SECOND}-test"]["status"] == "timed out"
    assert _total(course, "loop") == 3


def test_statuses_tell_apart_not_submitted_and_scored_zero(course):
    assert {r["status"] for r in _by(course, "absent").values()} == {"not submitted"}
    untouched = _by(course, "untouched")
    assert {r["status"] for r in untouched.values()} == {"scored 0"}
    assert all("not written yet" in r["detail"] for r in untouched.values())


def test_the_gradebook_holds_the_schema_revision_alembic_names(course):
    """The course's config reads the schema's alembic revision in nbgrader's own process
    (``nbgrader_plugins.alembic_head``) where nbgrader would ask ``alembic heads`` in a new
    one: the gradebook ``generate_assignment`` made holds what that command prints."""
    import sqlite3
    import subprocess
    import sys
    from pathlib import Path

    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:
        heads = subprocess.run([str(Path(sys.executable).parent / "alembic"), "-c", ini, "heads"],
                               capture_output=True, text=True, check=True).stdout
    with sqlite3.connect(course["course"] / "gradebook.db") as db:
        (stored,) = db.execute("SELECT version_num FROM alembic_version").fetchone()
    assert stored == heads.split()[0]
