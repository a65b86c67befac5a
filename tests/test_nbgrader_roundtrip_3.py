"""The instructor round trip (``tests/test_nbgrader_roundtrip.py``) on the third group
of chapters."""

import pytest

from tests.roundtrip_suite import GROUPS, chapter_tests

pytestmark = pytest.mark.slow

globals().update(chapter_tests(GROUPS[2]))
