"""The wrong-answer pass as the instructor's submission of the round trip (every chapter).

:func:`submission` is a chapter as committed, with plain cells (no nbgrader metadata, so
nothing nbgrader grades or restores) added after the chapter's own: every code cell run
again, and at each exercise every wrong answer run in place of the solution, each
followed by a test cell and a restore of the namespace. ``nbgrader autograde`` runs it
with the course's own pipeline (sandbox, integrity guard first, 60 s a cell, errors
allowed): the chapter's own cells run where nbval runs them and score as the committed
chapter does, and :func:`outcomes` reads every cell's result from the autograded notebook
(``tests/wrong_answer_suite.py`` turns them into tests). One kernel run a chapter does
the instructor's submission, the wrong answers and the run-again check.
"""

import functools
import re

import nbformat

from tests.notebook_tools import NOTEBOOKS, nbgrader_meta, nbval_view, output_text
from tests.wrong_answers import GENERIC_CHEATS

HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*(?:\n|\Z)",
                    re.DOTALL | re.MULTILINE)

# The submission's first cell (after GuardedExecute's integrity guard): named snapshots of
# the namespace and of every watched module attribute, and their restore.
SETUP = """
import sys as _sys, types as _types
import minigrad.course.integrity as _integrity
_wa = _sys.modules.setdefault("_wrong_answers", _types.ModuleType("_wrong_answers"))
_wa.saved = {}
def _wa_save(name):
    from minigrad.course.integrity import _watched_modules
    _wa.saved[name] = (dict(get_ipython().user_ns),
                       {(m, k): v for n, m in _watched_modules() for k, v in list(vars(m).items())},
                       {c: dict(vars(c)) for c in _wa_classes()})
def _wa_classes():
    import numpy, torch, minigrad.course.grading, minigrad.value, minigrad.tensors
    return [torch.Tensor, minigrad.course.grading.Grader, minigrad.value.Value,
            minigrad.tensors.Tensor]
def _wa_restore(name, wa=_wa, integrity=_integrity):
    namespace, attrs, classes = wa.saved[name]
    ns = get_ipython().user_ns
    ns.clear()
    ns.update(namespace)
    for (m, k), v in attrs.items():
        if vars(m).get(k, wa) is not v:
            setattr(m, k, v)
    for c, d in classes.items():
        for k, v in d.items():
            if vars(c).get(k, wa) is not v and not k.startswith("__"):
                setattr(c, k, v)
    integrity._state["first_change"] = None
"""


RESTORE = "_wa_restore('pre')\n"


def visible(test_source):
    """The test cell as nbgrader releases it: hidden tests removed."""
    shown = HIDDEN.sub("", test_source)
    assert "HIDDEN TESTS" not in shown, "hidden tests not removed"
    return shown


def exercises(nb):
    """[(index of the test cell, solution cells, test cell)] in notebook order."""
    found, pending = [], []
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_meta(cell)
        if meta.get("solution"):
            pending.append(cell)
        elif meta.get("grade"):
            found.append((index, pending, cell))
            pending = []
    return found


def _ignored(cells):
    return any("nbval-ignore-output" in c.metadata.get("tags", []) for c in cells)


@functools.cache
def submission(number, wrong_module):
    """(the instructor's submission of chapter ``number``, its plan): the plan lists, in
    order, what :func:`outcomes` reads: ``("helper", id)``, ``("first", ids, committed
    cells)``, ``("again", first ids, id, cell)``, ``("attempt", grade_id, label, which,
    answer id, test id)``."""
    (path,) = [p for p in NOTEBOOKS if p.stem[:2] == number]
    wrong = wrong_module.WRONG
    nb = nbformat.read(path, as_version=4)
    committed = nbformat.read(path, as_version=4)
    out, plan, count = [], [], iter(range(10 ** 6))

    def add(source):
        cell = nbformat.v4.new_code_cell(source, id=f"wrong-answers-{next(count)}")
        out.append(cell)
        return cell.id

    def helper(source):
        plan.append(("helper", add(source)))

    def attempt(grade_id, label, which, answer, test):
        # Each answer starts from the state before the exercise: the restore is the
        # answer cell's first line (one cell fewer an attempt).
        plan.append(("attempt", grade_id, label, which, add(RESTORE + answer), add(test)))

    helper(SETUP)
    starts = {id(sols[0]) for _, sols, _ in exercises(nb)}
    tests = {id(test): sols for _, sols, test in exercises(nb)}
    as_committed = {id(c): o for c, o in zip(nb.cells, committed.cells, strict=True)}
    first_exercise = True
    for cell, original in zip(nb.cells, committed.cells, strict=True):
        if id(cell) in starts:
            helper("_wa_save('pre')")
        out.append(cell)
        meta = nbgrader_meta(cell)
        if cell.cell_type != "code" or meta.get("solution") or not cell.source.strip():
            continue
        if id(cell) not in tests:  # a cell of the chapter: run again at once
            plan.append(("first", [cell.id], [original]))
            plan.append(("again", [cell.id], add(cell.source), original))
            continue
        sols = tests[id(cell)]
        grade_id = nbgrader_meta(sols[0])["grade_id"]
        reference = "\n\n".join(c.source for c in sols)
        # The reference and its test first ran where nbval runs them (and are graded):
        # their outputs must be the committed ones. Then each is run again.
        sols_committed = [as_committed[id(c)] for c in sols]
        plan.append(("first", [c.id for c in sols], sols_committed))
        plan.append(("first", [cell.id], [original]))
        plan.append(("reference", grade_id, [c.id for c in sols], cell.id))
        plan.append(("again", [c.id for c in sols], add(reference), sols_committed[-1]))
        plan.append(("again", [cell.id], add(cell.source), original))
        helper("_wa_save('post')")
        cheats = [type(w)(w.label, w.kind, reference + "\n" + w.source)
                  for w in GENERIC_CHEATS] if first_exercise else []
        first_exercise = False
        for answer in wrong.get(grade_id, []) + cheats:
            attempt(grade_id, answer.label, "full", answer.source, cell.source)
            if answer.kind == "slip":
                attempt(grade_id, answer.label, "shown", answer.source, visible(cell.source))
        # After the wrong answers: the reference passes the visible test (and so the
        # restores left a state it passes in); then the chapter goes on after the exercise.
        attempt(grade_id, "reference", "shown", reference, visible(cell.source))
        helper("_wa_restore('post')")
    nb.cells = out
    return nb, tuple(plan)


def _outcome(cell):
    """(ok, 'ename: evalue') of a run cell, as the kernel's reply would say."""
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if not errors:
        return True, ""
    return False, f"{errors[0]['ename']}: {errors[0]['evalue']}"


def outcomes(autograded, plan):
    """{(grade_id, label): (full, shown)}, plus ``("run again", id)``, ``("as committed",
    id)`` and ``("broken", id)`` entries for what differed or failed, from the autograded
    submission ``autograded`` (a NotebookNode) and its ``plan``."""
    cells = {c.get("id"): c for c in autograded.cells}
    results = {}

    def outputs(ids):
        return [o for i in ids for o in cells[i].get("outputs", [])]

    def run(answer_id, test_id):
        ok, error = _outcome(cells[answer_id])
        if not ok:
            return False, "answer cell: " + error
        return _outcome(cells[test_id])

    for step in plan:
        kind = step[0]
        if kind == "helper" and not _outcome(cells[step[1]])[0]:
            results[("broken", step[1])] = _outcome(cells[step[1]])[1]
        elif kind == "first":
            _, ids, originals = step
            if not _ignored(originals):
                committed = nbval_view([o for c in originals for o in c.outputs])
                shown = nbval_view(outputs(ids))
                if shown != committed:
                    results[("as committed", originals[0].id)] = (committed, shown)
            tagged = "raises-exception" in originals[-1].metadata.get("tags", [])
            if not all(_outcome(cells[i])[0] for i in ids) and not tagged \
                    and not nbgrader_meta(originals[-1]).get("grade"):
                results[("broken", ids[-1])] = _outcome(cells[ids[-1]])[1]
        elif kind == "again":
            _, ids, again, original = step
            first, second = output_text_of(outputs(ids)), output_text_of(outputs([again]))
            if first != second and not _ignored([original]):
                results[("run again", original.id)] = (first, second)
            tagged = "raises-exception" in original.metadata.get("tags", [])
            if not _outcome(cells[again])[0] and not tagged:
                results[("broken", original.id)] = "run again: " + _outcome(cells[again])[1]
        elif kind == "reference":
            _, grade_id, sol_ids, test_id = step
            failed = [i for i in sol_ids if not _outcome(cells[i])[0]]
            results[(grade_id, "reference")] = (run((failed or sol_ids)[0], test_id), None)
        elif kind == "attempt":
            _, grade_id, label, which, answer_id, test_id = step
            full, shown = results.get((grade_id, label), (None, None))
            if which == "full":
                full = run(answer_id, test_id)
            else:
                shown = run(answer_id, test_id)
            results[(grade_id, label)] = (full, shown)
    return results


def output_text_of(outputs):
    """:func:`tests.notebook_tools.output_text` of a notebook's stored outputs."""
    pairs = []
    for o in outputs:
        kind = o.get("output_type")
        pairs.append((kind, dict(o) if kind != "stream" else {"name": o["name"],
                                                                 "text": o["text"]}))
    return output_text(pairs)
