"""Every chapter's widgets, driven in JupyterLab in Chromium as a learner would.

For each chapter, tests/widget_drivers/chNN.py names its widget cells and how to drive
them. The test opens the chapter in ``make lab``'s workspace (from JupyterLab's file
browser, in the one JupyterLab page of the run), runs the cells its widgets need and the
widget cells with Shift+Enter (tests/cell_needs.py finds them; nbval runs every cell of
every chapter elsewhere), checks that none printed an error, and for each widget takes a
screenshot, moves or presses its control, sees the output change, and takes another:
artifacts/browser/NN_<widget>_before.png and _after.png.
"""

import importlib
import pathlib

import pytest

from tests.browser_tools import (
    ARTIFACTS,
    _cell_index,
    _errors_in,
    _wait_idle,
    open_chapter,
    require_chromium,
    run_cells,
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
    loads once, and each chapter is opened from the file browser with a kernel of its own."""
    drive_chapter(chapter, lab_page)


def drive_chapter(chapter, page):
    require_chromium()
    driver = importlib.import_module(f"tests.widget_drivers.ch{chapter}")
    name = driver.NOTEBOOK
    assert pathlib.Path(ROOT / "notebooks" / name).exists()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    indices = [_cell_index(name, lambda c, m=w.marker: m in "".join(c["source"]))
               for w in driver.WIDGETS]
    needed = needed_cells(name, tuple(indices))
    cells = open_chapter(page, name)
    raising = _raising_cells(name)
    run_cells(page, cells, needed, raising)
    for i in needed:
        errors = _errors_in(cells.nth(i))
        if i not in raising:
            assert errors.count() == 0, errors.first.inner_text()
    for widget, index in zip(driver.WIDGETS, indices, strict=True):
        cell = cells.nth(index)
        widget_area(cell).scroll_into_view_if_needed()
        _wait_idle(page)
        page.screenshot(path=str(ARTIFACTS / f"{chapter}_{widget.name}_before.png"))
        widget.drive(page, cell, index)
        _wait_idle(page)
        assert _errors_in(cell).count() == 0, _errors_in(cell).first.inner_text()
        page.screenshot(path=str(ARTIFACTS / f"{chapter}_{widget.name}_after.png"))
