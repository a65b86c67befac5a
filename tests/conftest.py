"""Shared test settings: hypothesis profiles (CI: no deadline, few examples; fuzz: long)."""

import os

from hypothesis import settings

pytest_plugins = ["tests.browser_tools"]

settings.register_profile("ci", deadline=None, max_examples=25, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=10)
# `make fuzz`: the differential fuzzer (tests/test_fuzz.py) at length, new programs each run.
settings.register_profile("fuzz", deadline=None, max_examples=5000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The longest test files run first, one on each worker, so neither is left for the end.
LONGEST = ("test_nbgrader_roundtrip.py", "test_wrong_answers.py", "test_browser_widgets.py",
           "test_browser_widgets_2.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: (item.path.name not in LONGEST,
                                 LONGEST.index(item.path.name) if item.path.name in LONGEST
                                 else 0))
