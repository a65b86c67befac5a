"""minigrad.course.widgets.controls: the wiring the course's widgets share, and the folder's
layout (every widget module uses it; none imports ipywidgets or matplotlib when loaded)."""

import ast
import pathlib
import struct

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import minigrad.course  # noqa: E402
from minigrad.course.widgets import controls as ui  # noqa: E402

WIDGETS = pathlib.Path(ui.__file__).parent
WIDGET_MODULES = sorted(p for p in WIDGETS.glob("*.py") if p.stem not in ("__init__", "controls"))


def png_size(data):
    """(width, height) from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_pre_escapes_and_joins_lines():
    assert ui.pre("a < b & c") == "<pre>a &lt; b &amp; c</pre>"
    assert ui.pre(["x.grad", "<done>"]) == "<pre>x.grad\n&lt;done&gt;</pre>"


def test_png_bytes_draws_at_the_dpi_asked():
    fig = Figure(figsize=(2, 1))
    assert png_size(ui.png_bytes(fig, dpi=50)) == (100, 50)
    assert png_size(ui.png_bytes(fig)) == (200, 100)


@pytest.mark.parametrize("kind, cls, value", [("int", widgets.IntSlider, 2),
                                              ("float", widgets.FloatSlider, 2.5),
                                              ("log", widgets.FloatLogSlider, 100.0)])
def test_slider_kind_range_class_and_release_update(kind, cls, value):
    s = ui.slider("minigrad-test-s", "s", value, 1, 3, kind=kind)  # log: 10 to 1000
    assert type(s) is cls and (s.value, s.min, s.max, s.description) == (value, 1, 3, "s")
    assert "minigrad-test-s" in s._dom_classes
    assert s.continuous_update is False  # redraws when released, unless asked
    live = ui.slider(None, "t", 0.5, 0.0, 1.0, 0.25, continuous_update=True)
    assert live.step == 0.25 and live.continuous_update is True and not live._dom_classes


def test_controls_carry_their_css_class():
    assert ui.button("Step", "minigrad-test-step").description == "Step"
    assert "minigrad-test-step" in ui.button("Step", "minigrad-test-step")._dom_classes
    assert isinstance(ui.readout("r"), widgets.HTML) and "r" in ui.readout("r")._dom_classes
    assert isinstance(ui.figure_output("o"), widgets.Output)
    image = ui.png_image("i", layout=widgets.Layout(width="480px"))
    assert image.format == "png" and image.layout.width == "480px"
    assert "i" in image._dom_classes


def test_show_figure_fills_an_image_and_closes_pyplot_figures():
    image = ui.png_image()
    fig, _ = plt.subplots(figsize=(1, 1))
    ui.show_figure(image, fig, dpi=40)
    assert png_size(image.value) == (40, 40)
    assert not plt.fignum_exists(fig.number)
    ui.show_figure(image, Figure(figsize=(2, 1)), dpi=30)  # not pyplot's: nothing to close
    assert png_size(image.value) == (60, 30)


def test_show_figure_shows_in_an_output_and_closes():
    shown = []

    class FakeOutput:  # records what an Output is asked to do, without a kernel
        def __enter__(self):
            shown.append("enter")

        def __exit__(self, *exc):
            shown.append("exit")

        def clear_output(self, wait=False):
            shown.append(("clear", wait))

    fig, _ = plt.subplots()
    ui.show_figure(FakeOutput(), fig)
    assert shown == ["enter", ("clear", True), "exit"]
    assert not plt.fignum_exists(fig.number)


def test_redraw_on_change_draws_now_then_on_each_change():
    calls = []
    a, b = ui.slider("a", "a", 0, 0, 5, kind="int"), widgets.Dropdown(options=[1, 2])
    ui.redraw_on_change([a, b], lambda: calls.append((a.value, b.value)))
    a.value = 3
    b.value = 2
    assert calls == [(0, 1), (3, 1), (3, 2)]
    later = []
    ui.redraw_on_change([a], lambda: later.append(a.value), draw=False)
    assert later == []
    a.value = 4
    assert later == [4]


def test_on_click_acts_then_redraws():
    events, b = [], ui.button("go")
    ui.on_click(b, lambda: events.append("act"), lambda: events.append("draw"))
    b.click()
    assert events == ["act", "draw"]


class Counter:
    """A stepper of three steps: done, position, step(), reset(), goto(n)."""

    def __init__(self):
        self.position = 0

    @property
    def done(self):
        return self.position == 3

    def step(self):
        assert not self.done
        self.position += 1

    def reset(self):
        self.position = 0

    def goto(self, n):
        self.position = n


def test_wire_step_controls_steps_resets_and_follows_the_slider():
    counter, drawn = Counter(), []
    step, reset = ui.button("Step"), ui.button("Reset")
    position = ui.slider(None, "step", 0, 0, 3, kind="int")
    refresh = ui.wire_step_controls(counter, lambda: drawn.append(counter.position), step,
                                    reset, position)
    assert drawn == [0] and not step.disabled  # drawn once
    for _ in range(4):  # the fourth click finds it done: no step, no error
        step.click()
    assert counter.position == 3 and position.value == 3 and step.disabled
    assert drawn == [0, 1, 2, 3, 3]
    reset.click()
    assert counter.position == 0 and position.value == 0 and not step.disabled
    position.value = 2
    assert counter.position == 2 and drawn[-1] == 2
    refresh()
    assert drawn[-1] == 2


def test_wire_step_controls_takes_another_step_method():
    counter, rows = Counter(), []
    step, reset = ui.button("next row"), ui.button("reset")
    ui.wire_step_controls(counter, lambda: None, step, reset,
                          step=lambda: rows.append(counter.step()))
    step.click()
    step.click()
    assert len(rows) == 2 and counter.position == 2


def test_vbox_lays_lists_out_in_rows_and_sets_attributes():
    a, b, c = ui.readout(), ui.readout(), ui.readout()
    box = ui.vbox([a, b], c, run="the model")
    assert isinstance(box.children[0], widgets.HBox) and box.children[0].children == (a, b)
    assert box.children[1] is c and box.run == "the model"


def test_control_panel_draws_and_reads_out_each_value():
    pick = widgets.Dropdown(options=["x", "y"], value="x")
    seen = []

    def figure(value):
        seen.append(value)
        return Figure(figsize=(1, 1))

    box = ui.control_panel(pick, figure, lambda v: f"picked <{v}>", "img", "txt", dpi=20,
                           view="v")
    control, image, text = box.children
    assert control is pick and box.view == "v" and "img" in image._dom_classes
    assert text.value == "<pre>picked &lt;x&gt;</pre>" and png_size(image.value) == (20, 20)
    pick.value = "y"
    assert seen == ["x", "y"] and "picked &lt;y&gt;" in text.value


def test_every_widget_module_wires_through_controls():
    assert len(WIDGET_MODULES) == 18
    for path in WIDGET_MODULES:
        imports = [node for node in ast.walk(ast.parse(path.read_text()))
                   if isinstance(node, ast.ImportFrom)]
        assert any(node.module == "minigrad.course.widgets"
                   and [a.name for a in node.names] == ["controls"] for node in imports), path


def test_widget_modules_load_without_ipywidgets_or_matplotlib():
    """Only the functions that build a widget import them: ``import minigrad`` needs none."""
    for path in [*WIDGET_MODULES, WIDGETS / "controls.py"]:
        for node in ast.parse(path.read_text()).body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in {"ipywidgets", "matplotlib", "IPython"}, path


def test_the_widgets_left_the_course_folder():
    course = pathlib.Path(minigrad.course.__file__).parent
    for path in WIDGET_MODULES:
        assert not (course / path.name).exists(), path.name
