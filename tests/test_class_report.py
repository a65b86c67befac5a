"""The class report (instructor/report.py, issue 19 item 4), opened in a real browser.

A small course of two assignments is graded by plain ``nbgrader autograde`` (one run over
all its students): the minimal assignment (tests/notebook_tools.py: two exercises, as
chapter 01 has, without its demo cells and their CPU) has an honest, a wrong, a timed-out, a
crashed and a tampered submission, chapter 04 an honest and a wrong one. The report is made, opened
in headless Chromium, and the numbers it shows are checked against nbgrader's gradebook
(pass rates, students) and against what each submission was made to do (timeouts, crashes,
tampering); its plots must render with a size. The mistakes table is checked on rows with
a ``mistake`` column (the export carries one where the checks name mistakes).
"""

import os
import re
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.browser_tools import ARTIFACTS, require_chromium
from tests.notebook_tools import NOTEBOOKS, ROOT, load_module, minimal_assignment, nbgrader_meta
from tests.wrong_answers import GENERIC_CHEATS
from tests.wrong_answers.ch04 import WRONG as WRONG04

CH04 = NOTEBOOKS[3]
report = load_module("instructor/report.py")
slow = pytest.mark.slow  # the tests on a graded course in Chromium


def _cell(nb, grade_id):
    return next(c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id)


def _with(chapter, grade_id, source):
    nb = nbformat.read(chapter, as_version=4)
    _cell(nb, grade_id).source = source
    return nb


def _submissions(minimal):
    tampered = nbformat.read(minimal, as_version=4)
    tampered.cells.insert(1, nbformat.v4.new_code_cell(GENERIC_CHEATS[0].source))
    return {"ch00": {"honest": nbformat.read(minimal, as_version=4),
                     "wrong": _with(minimal, "ex00-add-one",
                                    "def answer_1(x):\n    return x"),
                     # An endless loop that sleeps: the report needs its "timed out", not
                     # 10 s of a busy core (tests/test_autograde.py interrupts a busy one).
                     "loop": _with(minimal, "ex00-double",
                                   "import time\nwhile True:\n    time.sleep(0.05)"),
                     "crash": _with(minimal, "ex00-double", "import os\nos._exit(1)"),
                     "tampered": tampered},
            "ch04": {"honest": nbformat.read(CH04, as_version=4),
                     "wrong": _with(CH04, "ex04-softplus-local",
                                    WRONG04["ex04-softplus-local"][0].source)}}


def test_summarize_counts_named_mistakes_by_frequency():
    rows = [{"student": s, "chapter": "ch01", "exercise": "Exercise 1.1", "grade_id": "g",
             "score": sc, "max": 3.0, "status": st, "detail": "", "mistake": m}
            for s, sc, st, m in (("a", 3.0, "passed", ""), ("b", 0.0, "scored 0", "sign"),
                                 ("c", 0.0, "scored 0", "sign"), ("d", 0.0, "scored 0", "swap"),
                                 ("e", 0.0, "crashed in cell 7", ""))]
    exercises, summary = report.summarize(rows)
    x = exercises["ch01", "g"]
    assert x["mistakes"].most_common() == [("sign", 2), ("swap", 1)]
    assert x["pass_rate"] == 20.0 and x["statuses"]["crashed"] == 1
    page = report.render(exercises, summary, "t")
    assert page.index(">sign<") < page.index(">swap<") and 'id="plot-mistakes-g"' in page
    without = report.render(*report.summarize([{k: v for k, v in r.items() if k != "mistake"}
                                               for r in rows]), "t")
    assert "plot-mistakes" not in without and "no mistake column" in without


@pytest.fixture(scope="module")
def course(tmp_path_factory, released_course):
    require_chromium()
    classroom = load_module("instructor/classroom.py")
    minimal = minimal_assignment(tmp_path_factory.mktemp("minimal"))
    course = released_course(tmp_path_factory.mktemp("report_course"), [minimal, CH04])
    with (course / "nbgrader_config.py").open("a") as f:
        f.write("\nc.Execute.timeout = 10  # the endless loop need not take 60 s\n")
    for assignment, subs in _submissions(minimal).items():
        name = (minimal if assignment == "ch00" else CH04).name
        for student, nb in subs.items():
            folder = course / "submitted" / student / assignment
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / name)
    env = {**os.environ, **classroom.ONE_THREAD, "PYTHONPATH": str(ROOT),
           "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]])}
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "*"], cwd=course,
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    out = report.report(course)
    return {"course": course, "report": out}


@pytest.fixture(scope="module")
def page(course, browser):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(course["report"].as_uri())
    page.wait_for_selector("#summary")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "class_report.png"), full_page=True)
    yield page, requests
    page.close()


def _gradebook(course):
    """{grade_id: (students, passed)} and the students, straight from nbgrader's gradebook."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        students = [s.id for s in gb.students]
        counts = {}
        for assignment in gb.assignments:
            for notebook in assignment.notebooks:
                for cell in notebook.grade_cells:
                    passed = sum(1 for s in students
                                 if _score(gb, cell, notebook, assignment, s) == cell.max_score)
                    counts[cell.name] = (len(students), passed)
    return counts, students


def _score(gb, cell, notebook, assignment, student):
    try:
        return gb.find_grade(cell.name, notebook.name, assignment.name, student).score
    except Exception:  # nbgrader's MissingEntry: no submission
        return None


def _stat(locator, name):
    return locator.locator(f"[data-stat='{name}']").first.inner_text()


@slow
def test_the_page_loads_nothing_from_outside(course, page):
    _, requests = page
    assert requests == [course["report"].as_uri()]


@slow
def test_summary_matches_the_gradebook(course, page):
    page, _ = page
    counts, students = _gradebook(course["course"])
    summary = page.locator("#summary")
    assert _stat(summary, "students") == str(len(students)) == "5"
    assert _stat(summary, "exercises") == str(len(counts)) == "4"
    passed = sum(p for _, p in counts.values())
    assert _stat(summary, "pass-rate") == f"{100 * passed / (5 * 4):.1f}%"
    assert (_stat(summary, "timed-out"), _stat(summary, "crashed"),
            _stat(summary, "tampered")) == ("1", "1", "2")
    assert _stat(summary, "not-submitted") == "6"  # 3 students x chapter 04's 2 exercises


@slow
def test_each_exercise_shows_the_gradebooks_pass_rate(course, page):
    page, _ = page
    counts, _ = _gradebook(course["course"])
    for grade_id, (n, passed) in counts.items():
        row = page.locator(f"#exercises tr[data-grade-id='{grade_id}']")
        assert _stat(row, "pass-rate") == f"{100 * passed / n:.1f}%", grade_id
        assert _stat(row, "passed") == str(passed), grade_id
        section = page.locator(f"section[data-grade-id='{grade_id}']")
        assert _stat(section, "pass-rate") == f"{100 * passed / n:.1f}%"
        # a label from a submitted notebook, though the first student submitted none
        assert page.locator(f"#exercises tr[data-grade-id='{grade_id}'] td").nth(1) \
            .inner_text().startswith("Exercise "), grade_id
    assert counts["ex00-add-one-test"] == (5, 3)  # honest, loop, crash
    assert counts["ex04-softplus-local-test"] == (5, 1)


@slow
def test_timeouts_crashes_and_tampering_are_where_they_happened(page):
    page, _ = page
    want = {"ex00-double-test": {"timed-out": "1", "crashed": "1", "tampered": "1",
                                      "passed": "2"},
            "ex00-add-one-test": {"timed-out": "0", "crashed": "0", "tampered": "1",
                                    "scored-0": "1"}}
    for grade_id, stats in want.items():
        row = page.locator(f"#exercises tr[data-grade-id='{grade_id}']")
        assert {k: _stat(row, k) for k in stats} == stats, grade_id


@slow
def test_plots_render_with_a_size(page):
    page, _ = page
    plots = page.locator("svg.plot")
    # the class's two, two per exercise, and one per exercise where a mistake was named
    # (chapter 04's wrong submission's check names its mistake)
    named = page.locator("svg.plot[id^='plot-mistakes-']").count()
    assert named >= 1
    assert plots.count() == 2 + 2 * 4 + named
    for i in range(plots.count()):
        box = plots.nth(i).bounding_box()
        assert box and box["width"] > 100 and box["height"] > 30, i
    bars = page.locator("#plot-pass-rate rect.bar")
    widths = [bars.nth(i).bounding_box()["width"] for i in range(bars.count())]
    assert len(widths) == 4 and max(widths) > 50
    text = page.locator("#plot-pass-rate").text_content()
    assert re.search(r"\d+(\.\d+)?%", text)
