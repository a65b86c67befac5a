"""The course as a learner sees it: ``make lab``'s workspace in JupyterLab, in Chromium.

Starts JupyterLab from .venv on 127.0.0.1 over a workspace built as ``make lab`` builds
it (the student version of every chapter, in a temporary folder, so nothing committed is
touched), each chapter opened from JupyterLab's file browser in the one JupyterLab page of
the run. In chapter 01 it checks that no solution is in sight, runs the cells its tangent
explorer needs (tests/cell_needs.py) and the explorer, and moves the slider; then runs the
cells exercise 1.1 needs, types a wrong answer into the exercise, runs its check and sees
the failing table and hint, types a right one and sees it pass. In chapter 04 it steps
the backward stepper to the end and runs the next cell, which must still agree with
torch. Screenshots go to artifacts/browser/ (gitignored).

Needs Debian's chromium (``apt-get install -y chromium``); where it is absent the test
skips, except under CI, where that is a failure.
"""

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
    require_chromium,
    run_cells,
    wait_for_text,
)
from tests.cell_needs import needed_cells

require_chromium()
pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_chapter_01_learner_path(lab_page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name, page = "01_derivatives.ipynb", lab_page
    cells = open_chapter(page, name)
    assert "-a.data / b.data ** 2" not in page.locator(".jp-Notebook").inner_text()

    explorer = _cell_index(name, lambda c: "tangent_explorer(f" in "".join(c["source"]))
    run_cells(page, cells, needed_cells(name, (explorer,)))
    for i in needed_cells(name, (explorer,)):
        assert _errors_in(cells.nth(i)).count() == 0, _errors_in(cells.nth(i)).first.inner_text()
    readout = page.locator(".minigrad-readout")
    readout.wait_for(timeout=60_000)
    assert "x = 3.00" in readout.inner_text()
    assert "minigrad slope 6.0000" in readout.inner_text()
    assert "matches torch" in readout.inner_text()
    page.locator(".minigrad-x-slider").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_before.png"))
    handle = page.locator(".minigrad-x-slider .noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('.minigrad-readout').innerText.includes('x = 3.25')",
        timeout=30_000, polling=POLL_MS)
    text = readout.inner_text()
    assert "minigrad slope 6.5000" in text and "matches torch" in text
    _wait_idle(page)
    page.screenshot(path=str(ARTIFACTS / "01_after.png"))

    # Exercise 1.1: the cells it needs (its own and its check aside), in order, then a wrong
    # answer, then a right one.
    answer = _cell_index(name, _grade_id("ex01-value-div"))
    before = [i for i in needed_cells(name, (answer, answer + 1)) if i < answer]
    run_cells(page, cells, before)
    for i in before:
        assert _errors_in(cells.nth(i)).count() == 0, _errors_in(cells.nth(i)).first.inner_text()
    check = cells.nth(answer + 1)
    _type_into(page, cells.nth(answer),
               "def div_v1(a, b):\n"
               "    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, 1 / a.data)))\n")
    cells.nth(answer).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    _wait_idle(page)
    # The verdict table and its hint are two outputs: wait for both, never read half.
    wait_for_text(page, answer + 1, "Exercise 1.1", "FAIL", "Hint:")
    shown = check.locator(".jp-OutputArea").inner_text()
    assert shown.count("\n") < 40, "a failing check should not print a long traceback"
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_exercise_wrong.png"))

    _type_into(page, cells.nth(answer),
               "def div_v1(a, b):\n"
               "    a = a if isinstance(a, Value_v1) else Value_v1(a)\n"
               "    b = b if isinstance(b, Value_v1) else Value_v1(b)\n"
               "    return Value_v1(a.data / b.data,\n"
               "                    ((a, 1 / b.data), (b, -a.data / b.data ** 2)))\n")
    cells.nth(answer).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    _wait_idle(page)
    page.wait_for_function(
        "i => !document.querySelectorAll('.jp-Notebook .jp-Cell')[i].innerText"
        ".includes('FAIL')", arg=answer + 1, timeout=60_000, polling=POLL_MS)
    wait_for_text(page, answer + 1, "Exercise 1.1", "pass")
    shown = check.locator(".jp-OutputArea").inner_text()
    assert "pass" in shown and "FAIL" not in shown, shown
    assert _errors_in(check).count() == 0
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_exercise_right.png"))


def test_chapter_04_stepper_then_the_next_cell(lab_page):
    """Step chapter 04's backward stepper to the end, then run the cells after it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name, page = "04_local_and_upstream.ipynb", lab_page
    widget_cell = _cell_index(name, lambda c: "stepper_widget(zm)" in "".join(c["source"]))
    cells = open_chapter(page, name)
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
