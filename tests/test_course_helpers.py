"""The course helpers that notebooks use: show_source and the tangent explorer."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from minigrad import Value, show_source  # noqa: E402
from minigrad.course.widgets.explorers import slopes_at, tangent_explorer, torch_slope  # noqa: E402


def test_show_source_comes_from_the_package_and_names_the_file():
    shown = show_source(Value.__pow__)
    assert repr(shown).startswith("# minigrad/value.py: Value.__pow__")
    assert "def __pow__" in shown.text
    assert "def __pow__" in shown._repr_html_() or "__pow__" in shown._repr_html_()


@pytest.mark.parametrize("x", [-2.0, 0.0, 3.0])
def test_slopes_agree_with_torch_and_calculus(x):
    slopes = slopes_at(lambda v: v ** 2, x)
    assert slopes["minigrad"] == pytest.approx(2 * x, abs=1e-12)
    assert slopes["torch"] == pytest.approx(2 * x, abs=1e-12)
    assert slopes["numeric"] == pytest.approx(2 * x, abs=1e-5)


def test_torch_slope_of_a_cubic():
    assert torch_slope(lambda v: v ** 3, 2.0) == pytest.approx(12.0)


def test_explorer_readout_follows_the_slider():
    box = tangent_explorer(lambda v: v ** 2, x=3.0)
    slider, readout = box.children[0], box.children[1]
    assert "x = 3.00" in readout.value and "6.0000" in readout.value
    slider.value = -1.0
    assert "x = -1.00" in readout.value and "-2.0000" in readout.value
    assert "matches torch" in readout.value


def test_helpers_use_the_engines_and_never_the_reverse():
    """No engine module imports minigrad.course; the old helper paths are gone."""
    import ast
    import pathlib

    import minigrad

    package = pathlib.Path(minigrad.__file__).parent
    for path in package.rglob("*.py"):
        if "course" in path.relative_to(package).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert not name.startswith("minigrad.course"), f"{path.name} imports {name}"
    for old in ["compare", "source", "graph", "stepper", "explorers", "graph_memory"]:
        assert not (package / f"{old}.py").exists()


def test_from_minigrad_import_check_still_works():
    import minigrad
    from minigrad import check, draw_graph, show_source, stepper_widget
    from minigrad.course import compare, graph, source
    from minigrad.course.widgets import stepper

    assert check is compare.check and show_source is source.show_source
    assert draw_graph is graph.draw_graph and stepper_widget is stepper.stepper_widget
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        minigrad.nonsense  # noqa: B018
