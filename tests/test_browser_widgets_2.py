"""The other half of the chapters' widgets, driven in the browser (see
tests/test_browser_widgets.py): a file of its own, so pytest-xdist runs it on the other
worker."""

import pytest

from tests.test_browser_widgets import DRIVERS, drive_chapter


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("chapter", DRIVERS[1::2])
def test_chapter_widgets_respond(chapter, lab, browser):
    drive_chapter(chapter, lab, browser)
