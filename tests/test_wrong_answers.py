"""Every exercise's test fails every wrong answer in ``tests/wrong_answers/`` and passes
the reference solution; and every code cell gives the same result when run again.

One Jupyter kernel a chapter runs the chapter's cells in order, as a learner would (after
the integrity guard that ``nbgrader autograde`` installs first). At each exercise the
namespace is saved; each wrong answer then runs in place of the solution cell, followed by
the exercise's full test cell (hidden tests in) and, for a conceptual slip, its visible
test cell (hidden tests out, as the learner sees it); after each, the namespace and any
patched module are put back. The reference solution passes both tests before the wrong
answers, and the full test after them (its run-twice below; so a wrong answer cannot
break the state the next one runs in), and the chapter goes on with it.

The same pass checks that a learner can run any cell again: every code cell (the
reference solutions and full tests included) runs twice in a row, and the two runs'
outputs (streams, results, displays, an error's type, sanitized as nbval does) must
agree, except in cells whose output nbval ignores (widgets, timings). One kernel pass a
chapter does both, instead of two.

The pass itself is in ``tests/wrong_answer_suite.py``; this file and
``tests/test_wrong_answers_2.py`` and ``_3.py`` each run one group of chapters (so both
pytest workers share the work).
"""

import pytest

from tests.notebook_tools import NOTEBOOKS, ROOT
from tests.wrong_answer_suite import CHAPTERS, GROUPS, chapter_tests

pytestmark = pytest.mark.slow

globals().update(chapter_tests(GROUPS[0]))


def test_every_chapter_is_checked():
    assert sorted(CHAPTERS) == [p.stem[:2] for p in NOTEBOOKS]
    assert sorted(n for group in GROUPS for n in group) == sorted(CHAPTERS), (
        "every chapter in exactly one group of tests/wrong_answer_suite.GROUPS")
    files = list((ROOT / "tests").glob("test_wrong_answers*.py"))
    assert len(files) == len(GROUPS), "one test file a group"
