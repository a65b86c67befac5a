"""Every exercise's test fails every wrong answer in ``tests/wrong_answers/`` and passes
the reference solution; and every code cell gives the same result when run again.

The pass is the instructor's submission of the round trip (``tests/test_nbgrader_roundtrip*.py``
run its tests, one group of chapters a file): the chapter as committed, with cells of its
own added (``tests/wrong_answer_submission.py``), graded by the course's real ``nbgrader
autograde`` (sandboxed kernel, integrity guard first). The chapter's own cells run where
nbval runs them, are graded (full marks) and must show the committed outputs. Then:

- every code cell (the reference solutions and full tests included) runs again at once,
  and the two runs' outputs (streams, results, displays, an error's type, sanitized as
  nbval does) must agree, except in cells whose output nbval ignores (widgets, timings);
- at each exercise the namespace is saved; each wrong answer then runs in place of the
  solution cell, followed by the exercise's full test cell (hidden tests in) and, for a
  conceptual slip, its visible test cell (hidden tests out, as the learner sees it);
  after each, the namespace and any patched module are put back. After the wrong answers
  the reference passes the visible test (so the restores left a state it passes in), and
  the chapter goes on from the state after the reference and its test.

One kernel run a chapter does the instructor's submission, the wrong answers and the
run-again check, instead of three.
"""

from tests.notebook_tools import NOTEBOOKS, ROOT
from tests.roundtrip_suite import GROUPS
from tests.wrong_answer_suite import CASES, CHAPTERS


def test_every_chapter_is_checked():
    assert sorted(CHAPTERS) == [p.stem[:2] for p in NOTEBOOKS]
    assert sorted(n for group in GROUPS for n in group) == sorted(CHAPTERS), (
        "every chapter in exactly one group of tests/roundtrip_suite.GROUPS")
    assert {case[0] for case in CASES} == set(CHAPTERS)
    files = list((ROOT / "tests").glob("test_nbgrader_roundtrip*.py"))
    assert len(files) == len(GROUPS), "one test file a group"
