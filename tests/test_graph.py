"""The graph drawing: what it shows, a layout that never moves, reproducible figures."""

import importlib.util
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from minigrad import Value  # noqa: E402
from minigrad.course.graph import (  # noqa: E402
    HOT,
    draw_graph,
    format_number,
    graph_layout,
    node_names,
)

ROOT = Path(__file__).resolve().parent.parent


def chain_rule_graph():
    x = Value(3.0, label="x")
    y = x + 1
    y.label = "y"
    z = y ** 2
    z.label = "z"
    return x, y, z


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def texts(fig):
    return [t.get_text() for t in fig.axes[0].texts]


def test_boxes_show_name_data_and_grad_and_ops_show_their_symbol():
    x, y, z = chain_rule_graph()
    z.backward()
    shown = texts(draw_graph(z))
    assert "x | data 3.0 | grad 8.0" in shown
    assert "y | data 4.0 | grad 8.0" in shown
    assert "z | data 16.0 | grad 1.0" in shown
    assert "+" in shown and "**2" in shown


def test_every_op_draws():
    x = Value(0.5, label="x")
    out = (x.exp() + x.log() - x.tanh() * x.sigmoid() / x.relu()) ** x + 2 ** x
    shown = texts(draw_graph(out))
    for op in ("exp", "log", "tanh", "σ", "relu", "**", "**-1", "*", "+"):
        assert op in shown


def test_inputs_left_of_outputs_and_layout_independent_of_numbers():
    x, y, z = chain_rule_graph()
    before = graph_layout(z)
    z.backward()
    after = graph_layout(z)
    assert before == after  # a stepper's frames line up
    assert after[id(x)][0] < after[id(y)][0] < after[id(z)][0]


def test_layout_is_the_same_for_the_same_graph_built_twice():
    def layout():
        a, b = Value(1.0, label="a"), Value(2.0, label="b")
        c = a * b + a.exp()
        d = c.tanh() * b
        return sorted(graph_layout(d).values())

    assert layout() == layout()


def test_unlabeled_nodes_are_numbered_inputs_first():
    x = Value(3.0, label="x")
    z = (x + 1) ** 2
    names = node_names(z)
    assert names[id(x)] == "x"
    assert sorted(names.values()) == ["v0", "v1", "v2", "x"]
    assert names[id(z)] == "v2"


def test_highlight_marks_the_node():
    x, y, z = chain_rule_graph()
    fig = draw_graph(z, highlight=y)
    box = next(t for t in fig.axes[0].texts if t.get_text().startswith("y |"))
    assert to_hex(box.get_bbox_patch().get_facecolor()) == HOT


def test_a_node_used_twice_gets_two_arrows():
    a = Value(3.0, label="a")
    b = a + a
    fig = draw_graph(b)
    arrows = [c for c in fig.axes[0].get_children() if type(c).__name__ == "Annotation"]
    assert len(arrows) == 3  # a -> + twice, + -> b once


def test_shows_itself_as_png_without_pyplot():
    assert draw_graph(chain_rule_graph()[2])._repr_png_().startswith(b"\x89PNG")


def test_draws_into_a_given_axes():
    fig, ax = plt.subplots()
    assert draw_graph(chain_rule_graph()[2], ax=ax) is fig


def test_layout_of_a_graph_deeper_than_the_recursion_limit():
    v = x = Value(1.0, label="x")
    for _ in range(3000):
        v = v * 1.0
    layout = graph_layout(v)
    assert layout[id(v)][0] > layout[id(x)][0]


@pytest.mark.parametrize(("x", "shown"), [
    (3.0, "3.0"), (8, "8.0"), (0.123456, "0.1235"), (-2.5e20, "-2.5e+20"), (0.0, "0.0"),
])
def test_format_number(x, shown):
    assert format_number(x) == shown


def load_figure_script():
    spec = importlib.util.spec_from_file_location("make_figures", ROOT / "scripts/make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_figure_script_is_reproducible_and_committed_figure_is_current(tmp_path):
    script = load_figure_script()
    first = {p.name: p.read_bytes() for p in script.main(tmp_path / "a")}
    second = {p.name: p.read_bytes() for p in script.main(tmp_path / "b")}
    assert first == second
    name = "graph_chain_rule.png"
    assert (ROOT / "figures" / name).read_bytes() == first[name], "run `make figures`"
