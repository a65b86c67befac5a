"""The verdicts of ``tests/test_verdicts*.py``'s cases, decided once a test run for all five
files: one in-kernel Python (:func:`tests.test_verdicts.run_in_kernel`) and one judge
(:func:`tests.test_verdicts.decide_outside`) over every file's cases, not one of each a
file (each starts with some 4 CPU s of imports: 30 CPU s of the five files' 130).
Whichever pytest worker asks first decides them, the others wait on a lock and read the
results (as ``tests/conftest.py``'s ``released_course`` shares a course).

A file lists its cases with ``verdict_inputs()``: (the in-kernel run's (solution cells,
test cell) pairs, the judge's (grade_id, test cell, solution cells) exercises). Each
file's cases run in the order and the one process they did alone, after the files before
it in :data:`FILES`.
"""

import importlib
import json

from tests.conftest import _locked, run_folder

FILES = ("test_verdicts", "test_verdicts_graphs", "test_verdicts_callables",
         "test_verdicts_classes", "test_verdicts_models")


def inputs(cases, grade_id, solutions, test):
    """A file's ``verdict_inputs()`` from its cases, tuples holding the exercise's grade_id,
    the solution cells and the test cell at these indices."""
    return ([(c[solutions], c[test]) for c in cases],
            [(c[grade_id], c[test], c[solutions]) for c in cases])


def verdicts_of(name, tmp_path_factory):
    """(in-kernel verdicts, the judge's outputs of each test cell, its CPU s an exercise) of
    the cases of ``tests/<name>.py``, in the order of its ``verdict_inputs()``."""
    path = run_folder(tmp_path_factory) / "verdict-tables.json"
    with _locked(str(path) + ".lock"):
        if not path.exists():
            tables = _decide_all()
            path.with_suffix(".partial").write_text(json.dumps(tables))
            path.with_suffix(".partial").rename(path)
    tables = json.loads(path.read_text())
    return tables[name]["in_kernel"], tables[name]["outside"], tables["cost"]


def _decide_all():
    from tests.test_verdicts import decide_outside, run_in_kernel

    inputs = {name: importlib.import_module(f"tests.{name}").verdict_inputs() for name in FILES}
    in_kernel = run_in_kernel([p for name in FILES for p in inputs[name][0]])
    outside, cost = decide_outside([e for name in FILES for e in inputs[name][1]])
    tables, k, o = {"cost": cost}, 0, 0
    for name in FILES:
        pairs, exercises = inputs[name]
        tables[name] = {"in_kernel": in_kernel[k:k + len(pairs)],
                        "outside": outside[o:o + len(exercises)]}
        k, o = k + len(pairs), o + len(exercises)
    assert k == len(in_kernel) and o == len(outside)
    return tables
