"""Wrong answers to every exercise, one module a chapter (``chNN.py``).

Each module has ``WRONG``: for each exercise (the ``grade_id`` of its solution cell) a
list of :class:`Wrong` answers, written as a learner would write them. A wrong answer
replaces the solution cell; ``tests/test_wrong_answers.py`` runs it in a kernel after
the chapter's earlier cells and then the exercise's test cell, which must fail.

Kinds (COURSE.md, "Exercises"):

- ``slip``: a common conceptual mistake; it must also fail the visible test, the one
  the learner sees, so the learner finds out before handing in;
- ``hardcoded``: numbers that fit the visible example;
- ``bypass``: the answer reached another way than the one asked (autograd or torch
  where a by-hand or numeric method is asked, a forbidden helper under another name, a
  copied reference);
- ``ignores``: an answer that ignores one of the exercise's arguments;
- ``cheat``: patching what the tests rely on (every exercise also gets the generic
  cheats of :data:`GENERIC_CHEATS`).

``mistake``, where given, is the id of the named mistake (:mod:`minigrad.course.mistakes`)
the exercise's check must report for that answer, in the full test and, for a slip, in
the visible one too; an answer without it must be named as no mistake
(``tests/test_named_mistakes.py``).
"""

from dataclasses import dataclass

KINDS = ("slip", "hardcoded", "bypass", "ignores", "cheat")


@dataclass(frozen=True)
class Wrong:
    label: str
    kind: str
    source: str
    mistake: str | None = None

    def __post_init__(self):
        assert self.kind in KINDS, f"unknown kind {self.kind!r}"


# Appended to the reference solution of every exercise: each must make its test fail.
GENERIC_CHEATS = [
    Wrong("numpy's isclose always true", "cheat",
          "import numpy as np\nnp.isclose = lambda *a, **k: True"),
    Wrong("the comparison helper never reports", "cheat",
          "import minigrad.course.compare as _c\n_c._mismatch = lambda *a, **k: None"),
    Wrong("the grader's check replaced", "cheat",
          "import minigrad.course.grading as _g\n_g.Grader.check = lambda *a, **k: None"),
    Wrong("torch's reference slope replaced", "cheat",
          "import minigrad.course.widgets.explorers as _e\n_e.torch_slope = lambda f, x: f(x)"),
    Wrong("a builtin shadowed", "cheat", "isinstance = lambda *a: True"),
]
