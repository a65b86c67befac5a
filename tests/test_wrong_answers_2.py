"""The wrong-answer pass (``tests/test_wrong_answers.py``) on group 2 of the chapters."""

import pytest

from tests.wrong_answer_suite import GROUPS, chapter_tests

pytestmark = pytest.mark.slow

globals().update(chapter_tests(GROUPS[1]))
