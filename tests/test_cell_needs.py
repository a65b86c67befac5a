"""tests/cell_needs.py, which picks the cells the browser test runs before a widget: on small
made-up chapters (what it must run, what it may skip), and on every chapter: each name a
widget cell reads is bound by a cell it runs (or is a builtin)."""

import builtins
import importlib
import json

import pytest

from tests.cell_needs import _names, needed_cells, needed_in
from tests.notebook_tools import ROOT
from tests.test_browser_widgets import DRIVERS


def _chapter(*sources):
    return [{"cell_type": "markdown", "source": ["# a chapter"]},
            *({"cell_type": "code", "source": [s]} for s in sources)]


def test_runs_the_cells_that_bind_or_change_what_the_widget_reads():
    cells = _chapter("import torch\nimport minigrad",          # 1
                     "x = minigrad.tensor(2.0)",                # 2: overwritten at 4
                     "unrelated = 3",                           # 3
                     "x = minigrad.tensor(3.0, requires_grad=True)",  # 4
                     "y = x * x",                               # 5
                     "y.backward()",                            # 6: changes y's graph
                     "x.grad = None",                           # 7: changes x
                     "torch.manual_seed(0)",                    # 8: changes torch's state
                     "z = torch.mm(a, b).sum()",                # 9: torch unchanged
                     "widget(x, y, torch.randn(2))")            # 10
    assert needed_in(cells, (10,)) == [1, 4, 5, 6, 7, 8, 10]


def test_reads_inside_functions_and_comprehensions_are_not_the_cells_own():
    cells = _chapter("x = 1", "k = 2",
                     "def f(x):\n    return x * k\n\nsquares = [x * x for x in range(3)]",
                     "widget(f, squares)")
    assert needed_in(cells, (4,)) == [2, 3, 4]


def test_a_name_read_before_the_cell_binds_it_needs_the_earlier_cell():
    cells = _chapter("n = 1", "n = n + 1", "m = 5\nm = m + n", "widget(m)")
    assert needed_in(cells, (4,)) == [1, 2, 3, 4]
    assert _names("a, b = 1, 2", frozenset())[2] == {"a", "b"}


@pytest.mark.parametrize("chapter", DRIVERS)
def test_every_name_a_widget_reads_is_bound_by_a_cell_that_runs(chapter):
    driver = importlib.import_module(f"tests.widget_drivers.ch{chapter}")
    cells = json.loads((ROOT / "notebooks" / driver.NOTEBOOK).read_text())["cells"]
    widgets = [next(i for i, c in enumerate(cells) if w.marker in "".join(c["source"]))
               for w in driver.WIDGETS]
    chosen = needed_cells(driver.NOTEBOOK, tuple(widgets))
    bound = set(dir(builtins)) | {"display", "get_ipython"}
    for i in chosen:
        reads, changes, _ = _names("".join(cells[i]["source"]), frozenset())
        missing = reads - changes - bound  # a name the cell binds itself: read after, here
        assert not missing, f"cell {i} of {driver.NOTEBOOK} reads {missing}, bound by no cell run"
        bound |= changes
    assert set(widgets) <= set(chosen) and len(chosen) < sum(
        c["cell_type"] == "code" for c in cells[:max(widgets) + 1]) + 1
