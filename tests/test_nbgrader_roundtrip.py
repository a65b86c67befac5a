"""The instructor round trip, with nbgrader's own commands, on every chapter.

The instructor's course folder (``instructor/classroom.py``) holds every chapter:
``nbgrader generate_assignment`` makes the student versions, and ``nbgrader autograde``
grades, for each chapter:

- ``instructor``: the chapter as committed (solutions in) -> full marks;
- ``untouched``: the student version as released -> zero on every exercise, and every
  cell that is not part of an exercise still runs without error;
- ``tamperer`` (chapter 01 only: the mechanism is nbgrader's and the same for every
  chapter): the student version with one test cell edited to ``pass`` and another
  deleted -> still zero, because nbgrader grades with the original tests.

The suite is in ``tests/roundtrip_suite.py``; this file grades the first group of
chapters, ``tests/test_nbgrader_roundtrip_2.py`` the other.
"""

import pytest

from tests.notebook_tools import NOTEBOOKS, ROOT
from tests.roundtrip_suite import GROUPS, chapter_tests

pytestmark = pytest.mark.slow

globals().update(chapter_tests(GROUPS[0]))


def test_every_chapter_is_in_one_group():
    assert sorted(n for group in GROUPS for n in group) == [p.stem[:2] for p in NOTEBOOKS]
    files = list((ROOT / "tests").glob("test_nbgrader_roundtrip*.py"))
    assert len(files) == len(GROUPS), "one test file a group"
