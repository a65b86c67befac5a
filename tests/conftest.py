"""Shared test settings: hypothesis's CI profile (no deadline: the machine is shared)."""

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
