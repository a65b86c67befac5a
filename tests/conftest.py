"""Shared test settings: hypothesis profiles (CI: no deadline, few examples; fuzz: long)."""

import os

from hypothesis import settings

pytest_plugins = ["tests.browser_tools", "tests.timing"]

settings.register_profile("ci", deadline=None, max_examples=25, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=10)
# `make fuzz`: the differential fuzzer (tests/test_fuzz.py) at length, new programs each run.
settings.register_profile("fuzz", deadline=None, max_examples=5000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The longest test files run first, longest first (pytest -n 2 --dist loadfile hands
# each worker whole files in this order), so neither worker is left with one at the end.
# The wrong-answer pass and the round trip are split by chapter group for this.
LONGEST = ("test_nbgrader_roundtrip.py", "test_nbgrader_roundtrip_2.py", "test_wrong_answers.py",
           "test_wrong_answers_3.py", "test_wrong_answers_2.py", "test_browser_widgets.py",
           "test_browser_widgets_2.py", "test_autograde.py", "test_python_versions.py",
           "test_book.py", "test_browser.py", "test_workspace.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: (item.path.name not in LONGEST,
                                 LONGEST.index(item.path.name) if item.path.name in LONGEST
                                 else 0))
