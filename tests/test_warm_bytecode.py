"""scripts/warm_bytecode.py, the bytecode step of ``make test`` on a fresh clone: its lists
name modules that exist, and it finds the chapters' imports (a fresh clone's run is the only
other place a stale name would show)."""

import importlib.util

from tests.notebook_tools import load_module

WARM = load_module("scripts/warm_bytecode.py")


def test_it_finds_what_the_chapters_import():
    found = WARM.chapter_imports()
    assert {"torch", "numpy", "matplotlib.pyplot", "sklearn.datasets",
            "torch.autograd.forward_ad", "minigrad.course.grading"} <= set(found)
    assert all(name.replace(".", "").replace("_", "").isalnum() for name in found)


def test_every_module_it_names_exists():
    from minigrad.course import forkserver

    names = (*forkserver.PRELOAD, *forkserver.KERNEL_INIT, *WARM.FIRST_USE,
             *WARM.chapter_imports())
    assert [n for n in names if importlib.util.find_spec(n) is None] == []
