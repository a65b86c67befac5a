"""Every chapter's widgets, driven in JupyterLab in Chromium as a learner would.

For each chapter, tests/widget_drivers/chNN.py names its widget cells and how to drive
them. The test opens the chapter in ``make lab``'s workspace (from JupyterLab's file
browser, in the one JupyterLab page of the run), runs the cells its widgets need and the
widget cells with Shift+Enter (tests/cell_needs.py finds them; nbval runs every cell of
every chapter elsewhere), checks that none printed an error, and for each widget takes a
screenshot, moves or presses its control, sees the output change, and takes another:
artifacts/browser/NN_<widget>_before.png and _after.png.

Two learner paths besides, in the same page (a JupyterLab server, Chromium and the page's
load cost some 20 CPU s; one pytest worker runs this file), each in its chapter's tab and
kernel (a chapter's opening costs some 7 CPU s): in chapter 01 no solution is in sight
when it opens, and after its widgets exercise 1.1 gets a wrong answer (its check shows the
failing table and hint) and a right one (it passes); in chapter 04, before its widget, the
backward stepper steps to the end and the next cells still agree with torch.
Screenshots: artifacts/browser/01_*.png, 04_*.png.
"""

import importlib
import pathlib

import pytest

from tests.browser_tools import (
    ARTIFACTS,
    POLL_MS,
    _cell_index,
    _errors_in,
    _grade_id,
    _type_into,
    _wait_idle,
    open_chapter,
    run_cells,
    run_without_errors,
    wait_for_text,
    widget_area,
)
from tests.cell_needs import needed_cells
from tests.notebook_tools import ROOT

CHAPTERS = sorted(p.stem[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DRIVERS = sorted(p.stem[2:] for p in (ROOT / "tests" / "widget_drivers").glob("ch[0-9][0-9].py"))


def test_every_chapter_has_a_widget_driver():
    assert [c for c in CHAPTERS if c not in DRIVERS] == []


def test_every_committed_chapter_carries_its_widgets_saved_state():
    """A viewer without a kernel (GitHub, nbviewer, the book) draws each widget's first picture
    from the state saved in the notebook's metadata."""
    import json

    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text())
        state = (nb["metadata"].get("widgets", {})
                 .get("application/vnd.jupyter.widget-state+json", {}).get("state", {}))
        views = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
                 for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
                 if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert views, f"{path.name} shows no widget"
        missing = [v for v in views if v not in state]
        assert not missing, f"{path.name}: widget views without saved state: {missing}"


def _raising_cells(name):
    """Indices of the cells that may show an error: tagged raises-exception (on purpose),
    and, in the learner's unsolved copy, each exercise's answer stub and its test."""
    import json

    cells = json.loads((ROOT / "notebooks" / name).read_text())["cells"]
    return {i for i, c in enumerate(cells)
            if "raises-exception" in c.get("metadata", {}).get("tags", [])
            or (c["cell_type"] == "code" and (_grader(c).get("solution")
                                              or _grader(c).get("grade")))}


def _grader(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("chapter", DRIVERS)
def test_chapter_widgets_respond(chapter, lab_page):
    """Every chapter in one file, so in one JupyterLab page on one pytest worker: the page
    loads once, and each chapter is opened from the file browser with a kernel of its own.
    Chapters 01 and 04 walk their learner paths (LEARNER_PATHS) in the same tab and kernel:
    a chapter's opening costs some 7 CPU s (its cells drawn, its kernel started)."""
    drive_chapter(chapter, lab_page, *LEARNER_PATHS.get(chapter, (None, None)))


def drive_chapter(chapter, page, first=None, then=None):
    """Open the chapter, run ``first(page, cells)`` if given, run the cells its widgets need
    and drive each widget, then run ``then(page, cells)`` if given."""
    driver = importlib.import_module(f"tests.widget_drivers.ch{chapter}")
    name = driver.NOTEBOOK
    assert pathlib.Path(ROOT / "notebooks" / name).exists()
    indices = [_cell_index(name, lambda c, m=w.marker: m in "".join(c["source"]))
               for w in driver.WIDGETS]
    needed = needed_cells(name, tuple(indices))
    cells = open_chapter(page, name)
    if first:
        first(page, cells)
    run_without_errors(page, cells, needed, _raising_cells(name))
    for widget, index in zip(driver.WIDGETS, indices, strict=True):
        cell = cells.nth(index)
        widget_area(cell).scroll_into_view_if_needed()
        _wait_idle(page)
        page.screenshot(path=str(ARTIFACTS / f"{chapter}_{widget.name}_before.png"))
        widget.drive(page, cell, index)
        _wait_idle(page)
        assert _errors_in(cell).count() == 0, _errors_in(cell).first.inner_text()
        page.screenshot(path=str(ARTIFACTS / f"{chapter}_{widget.name}_after.png"))
    if then:
        then(page, cells)


def _answer_and_check(page, cells, answer, code):
    """Type ``code`` into the answer cell, run it and the check after it (Shift+Enter
    twice, as a learner does), and wait for the kernel."""
    _type_into(page, cells.nth(answer), code)
    cells.nth(answer).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    _wait_idle(page)


def _chapter_01_no_solution_in_sight(page, cells):
    assert "-a.data / b.data ** 2" not in page.locator(".jp-Notebook").inner_text()


def _chapter_01_exercise(page, cells):
    """After the widgets (the tangent explorer's slider moved its readout): exercise 1.1
    with a wrong answer (the failing table and hint) and a right one (it passes)."""
    name = "01_derivatives.ipynb"

    # Exercise 1.1: the cells it needs (its own and its check aside), in order, then a wrong
    # answer, then a right one.
    answer = _cell_index(name, _grade_id("ex01-value-div"))
    before = [i for i in needed_cells(name, (answer, answer + 1)) if i < answer]
    run_without_errors(page, cells, before)
    check = cells.nth(answer + 1)
    _answer_and_check(page, cells, answer,
                      "def div_v1(a, b):\n"
                      "    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, 1 / a.data)))\n")
    # The verdict table and its hint are two outputs: wait for both, never read half.
    wait_for_text(page, answer + 1, "Exercise 1.1", "FAIL", "Hint:")
    shown = check.locator(".jp-OutputArea").inner_text()
    assert shown.count("\n") < 40, "a failing check should not print a long traceback"
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_exercise_wrong.png"))

    _answer_and_check(page, cells, answer,
                      "def div_v1(a, b):\n"
                      "    a = a if isinstance(a, Value_v1) else Value_v1(a)\n"
                      "    b = b if isinstance(b, Value_v1) else Value_v1(b)\n"
                      "    return Value_v1(a.data / b.data,\n"
                      "                    ((a, 1 / b.data), (b, -a.data / b.data ** 2)))\n")
    page.wait_for_function(
        "i => !document.querySelectorAll('.jp-Notebook .jp-Cell')[i].innerText"
        ".includes('FAIL')", arg=answer + 1, timeout=60_000, polling=POLL_MS)
    wait_for_text(page, answer + 1, "Exercise 1.1", "pass")
    shown = check.locator(".jp-OutputArea").inner_text()
    assert "pass" in shown and "FAIL" not in shown, shown
    assert _errors_in(check).count() == 0
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_exercise_right.png"))


def _chapter_04_stepper_then_the_next_cell(page, cells):
    """Before the widgets: step chapter 04's backward stepper to the end, then run the cells
    after it."""
    name = "04_local_and_upstream.ipynb"
    widget_cell = _cell_index(name, lambda c: "stepper_widget(zm)" in "".join(c["source"]))
    ran = needed_cells(name, (widget_cell,))
    run_cells(page, cells, ran)
    readout = page.locator(".minigrad-stepper-readout")
    readout.wait_for(timeout=120_000)
    assert "press Step" in readout.inner_text()
    step = page.locator(".minigrad-stepper-next")
    step.scroll_into_view_if_needed()
    step.click()
    page.wait_for_function(
        "() => document.querySelector('.minigrad-stepper-readout').innerText"
        ".includes('a: local 10 × upstream 1 = 10 → a.grad 0 → 10')", timeout=30_000,
        polling=POLL_MS)
    step.click()
    page.wait_for_function(
        "() => document.querySelector('.minigrad-stepper-readout').innerText"
        ".includes('x: local 1 × upstream 10 = 10 → x.grad 0 → 10')", timeout=30_000,
        polling=POLL_MS)
    assert "done" in readout.inner_text()
    page.screenshot(path=str(ARTIFACTS / "04_stepper.png"))
    # The next cells (up to three), after stepping to the end, with what they need that has
    # not run yet (nothing that ran before is run again, so the stepped graph stays as it
    # is): no error, torch still agrees.
    after = range(widget_cell + 1, widget_cell + 4)
    new = [i for i in needed_cells(name, tuple(after)) if i not in ran]  # code cells only
    assert new, "no code cell after the stepper"
    run_cells(page, cells, new)
    for i in [*ran, *new]:
        errors = _errors_in(cells.nth(i))
        assert errors.count() == 0, errors.first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "04_after_stepper.png"))


# {chapter: (before its widgets, after them)}: the learner paths, in the chapter's own tab.
LEARNER_PATHS = {"01": (_chapter_01_no_solution_in_sight, _chapter_01_exercise),
                 "04": (_chapter_04_stepper_then_the_next_cell, None)}
