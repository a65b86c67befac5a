"""One module per chapter, ``chNN.py``, telling the browser test how to drive that chapter's
widgets (tests/test_browser_widgets.py). Each module defines

    NOTEBOOK = "NN_name.ipynb"
    WIDGETS = [Widget(marker="text in the widget's cell", drive=function), ...]

``drive(page, cell, index)`` gets the Playwright page, the widget cell's locator and its
index, after every cell up to it has run: it moves or presses a control (use the helpers in
tests/browser_tools.py: move_slider, wait_for_change, output_text) and asserts that what
the widget shows changed as it should (a number, a label, a row of a table). Give the
widget's controls CSS classes (``widget.add_class("minigrad-...")``) so drivers find them.
The test takes a screenshot before and after each drive: artifacts/browser/NN_<name>_*.png.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Widget:
    name: str      # short, for the screenshot's file name
    marker: str    # a substring of the widget cell's source that no earlier cell holds
    drive: Callable
