r"""The wiring every course widget repeats, written once (the widgets of chapters 01-16).

A widget is a plain logic class behind a few controls; when a control changes, the
widget recomputes and redraws a text readout and a picture. The pieces:

- controls: :func:`slider` (``continuous_update=False`` unless asked: it redraws when
  released), :func:`button`, :func:`readout` (an HTML readout), with their CSS class, the
  handle a browser test finds them by;
- the picture: :func:`figure_output` (an ``Output`` that shows a pyplot figure) or
  :func:`png_image` (an ``Image`` that holds a PNG, :func:`png_bytes`), and
  :func:`show_figure` to put a figure in either;
- redrawing: :func:`redraw_on_change` (controls' values), :func:`on_click` (a button),
  :func:`wire_step_controls` (step and reset buttons, and a position slider, on any
  stepper);
- whole panels: :func:`control_panel` (one control, a picture and a readout, chapters
  07-08), :func:`stepper_panel` (a stepper over a graph, chapters 03-04);
- :func:`pre` (text as an HTML ``<pre>`` block) and :func:`vbox` (the layout).

ipywidgets, IPython and matplotlib are imported when a function needs them: importing
minigrad needs none of them.
"""

import html
import io
import sys

__all__ = ["button", "control_panel", "figure_output", "on_click", "png_bytes", "png_image",
           "pre", "readout", "redraw_on_change", "show_figure", "slider", "stepper_panel", "vbox",
           "wire_step_controls"]

SLIDERS = {"int": "IntSlider", "float": "FloatSlider", "log": "FloatLogSlider"}


def png_bytes(fig, dpi=100):
    """A matplotlib figure as PNG bytes (for Jupyter's display or a widget's Image)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def pre(text):
    """Plain text (a string, or a list of lines) as an escaped HTML ``<pre>`` block."""
    return "<pre>" + html.escape(text if isinstance(text, str) else "\n".join(text)) + "</pre>"


def _tagged(widget, css_class):
    return widget.add_class(css_class) if css_class else widget


def slider(css_class, description, value, low, high, step=None, kind="float", **options):
    """An ``IntSlider`` (``kind="int"``), a ``FloatSlider`` or a ``FloatLogSlider``
    (``"log"``: ``low`` and ``high`` are exponents of ten) from ``low`` to ``high``."""
    import ipywidgets as widgets

    options.setdefault("continuous_update", False)
    if step is not None:
        options["step"] = step
    made = getattr(widgets, SLIDERS[kind])(value=value, min=low, max=high,
                                           description=description, **options)
    return _tagged(made, css_class)


def button(description, css_class=None):
    import ipywidgets as widgets

    return _tagged(widgets.Button(description=description), css_class)


def readout(css_class=None):
    """An empty HTML readout."""
    import ipywidgets as widgets

    return _tagged(widgets.HTML(), css_class)


def figure_output(css_class=None):
    """An ``Output`` for pyplot figures (:func:`show_figure` clears it and shows one)."""
    import ipywidgets as widgets

    return _tagged(widgets.Output(), css_class)


def png_image(css_class=None, **options):
    """An ``Image`` for a figure's PNG (:func:`show_figure` fills it)."""
    import ipywidgets as widgets

    return _tagged(widgets.Image(format="png", **options), css_class)


def show_figure(target, fig, dpi=100):
    """Put ``fig`` in ``target``: an ``Output`` shows it in place of what it showed, an
    ``Image`` gets its PNG at ``dpi``. A pyplot figure is closed afterwards."""
    if hasattr(target, "clear_output"):
        from IPython.display import display

        with target:
            target.clear_output(wait=True)
            display(fig)
    else:
        target.value = png_bytes(fig, dpi)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close(fig)


def vbox(*rows, **attributes):
    """A ``VBox`` of ``rows``, a list in it laid out as an ``HBox``; ``attributes`` are
    set on the box (the logic object a test or a reader reaches: ``box.run``...)."""
    import ipywidgets as widgets

    box = widgets.VBox([widgets.HBox(row) if isinstance(row, list) else row for row in rows])
    for name, value in attributes.items():
        setattr(box, name, value)
    return box


def redraw_on_change(controls, redraw, draw=True):
    """Call ``redraw()`` whenever the value of one of ``controls`` changes; and now."""
    for control in controls:
        control.observe(lambda change: redraw(), names="value")
    if draw:
        redraw()


def on_click(button, action, redraw):
    """On each click of ``button``: ``action()``, then ``redraw()``."""

    def clicked(_):
        action()
        redraw()

    button.on_click(clicked)


def wire_step_controls(stepper, redraw, step_button, reset_button, slider=None, step=None):
    """Connect a step button, a reset button and (optionally) a position slider to any
    stepper with ``done`` and ``reset()``, stepped by ``step`` (default ``stepper.step``);
    the slider calls ``goto(n)`` and follows ``position``. After each redraw the step
    button is disabled once the stepper is done. Draws once; returns that full redraw."""
    step = step or stepper.step

    def step_once():
        if not stepper.done:
            step()

    def refresh():
        redraw()
        step_button.disabled = stepper.done
        if slider is not None:
            slider.value = stepper.position

    def on_slide(change):
        if change["new"] != stepper.position:
            stepper.goto(change["new"])
            refresh()

    on_click(step_button, step_once, refresh)
    on_click(reset_button, stepper.reset, refresh)
    if slider is not None:
        slider.observe(on_slide, names="value")
    refresh()
    return refresh


def control_panel(control, figure, text, image_class, readout_class, dpi=72, **attributes):
    """One control above a picture and a readout: at each value, ``figure(value)``'s PNG
    and ``text(value)`` (as :func:`pre`). Returns the VBox, with ``attributes`` set."""
    image, shown = png_image(image_class), readout(readout_class)

    def redraw():
        show_figure(image, figure(control.value), dpi)
        shown.value = pre(text(control.value))

    redraw_on_change([control], redraw)
    return vbox(control, image, shown, **attributes)


def stepper_panel(stepper, total, draw, lines, prefix, step_class="step", dpi=80):
    """Step and Reset buttons and a slider (0 to ``total`` steps) over ``stepper``, the
    figure ``draw()`` makes and the readout ``lines()`` gives; returns the VBox, whose
    ``stepper`` attribute is ``stepper``. CSS classes: ``prefix`` + ``-`` + ``step_class``,
    ``-reset``, ``-slider``, ``-graph``, ``-readout``."""
    step_button = button("Step", f"{prefix}-{step_class}")
    reset_button = button("Reset", f"{prefix}-reset")
    position = slider(f"{prefix}-slider", "step", 0, 0, total, kind="int",
                      continuous_update=True)
    image, text = png_image(f"{prefix}-graph"), readout(f"{prefix}-readout")

    def redraw():
        show_figure(image, draw(), dpi)
        text.value = pre(lines())

    wire_step_controls(stepper, redraw, step_button, reset_button, position)
    return vbox([step_button, reset_button, position], image, text, stepper=stepper)
