"""nbgrader preprocessors that make ``nbgrader autograde`` grade every submission fairly.

``instructor/nbgrader_config.py`` puts them in nbgrader's own pipeline, so the plain
``nbgrader autograde`` an instructor runs uses them; nothing extra to remember.

- :class:`GuardedExecute` (replaces nbgrader's ``Execute``): runs
  :func:`minigrad.course.integrity.install` in a cell of its own before the student's
  first cell (so patching what the tests use is caught and named); gives each cell 60 s
  (the slowest legitimate cell of the course takes under 2 s), interrupting an endless
  loop; when the kernel dies, records where, and marks every cell after it as not run
  (an unexecuted test cell would otherwise get full marks); turns a test cell's stderr
  into ordinary output (nbgrader scores a test cell with any stderr 0, and a warning or a
  debug print must not cost a correct answer its points).
  It reads the kernel's channels in half-second slices (:func:`polled_in_slices`): a
  missed wake-up of the asyncio wait held a reply until the cell's 60 s timeout.
- :class:`RestoreCells` (replaces ``OverwriteCells``): puts back the solution and test
  cells of an exercise the student deleted, in their place, so the submission is graded
  (nbgrader 0.9.6's ``add_missing_cells`` raises KeyError when a whole exercise is gone).

- :class:`Verdicts` (after GuardedExecute): re-decides the exercises it covers outside the
  kernel, where the submission's code cannot reach the verdict (:mod:`minigrad.course.verdicts`).

GuardedExecute starts every kernel in a bubblewrap sandbox
(:class:`minigrad.course.sandbox.SandboxedKernelManager`): the submission cannot see the
course folder, the solutions or the other students, has no network and capped resources.
Where no sandbox can be made it refuses to grade (:data:`~minigrad.course.sandbox.UNAVAILABLE`)
unless the instructor passes ``--GuardedExecute.allow_unsandboxed=True``.
"""

import queue
import time

from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output
from nbgrader import utils
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import Bool, Integer, Unicode

from minigrad.course.sandbox import (
    UNAVAILABLE,
    SandboxedKernelManager,
    SandboxUnavailable,
    sandbox_problem,
)

__all__ = ["GuardedExecute", "RestoreCells", "Verdicts", "MISSING", "NOT_RUN", "polled_in_slices",
           "alembic_head"]

INSTALL = ("import minigrad.course.integrity as _minigrad_integrity\n"
           "_minigrad_integrity.install()")
MISSING = "This cell was missing from the submission; the grader put it back."
NOT_RUN = "NotRun"


def polled_in_slices(get_msg, every=0.5, clock=time.monotonic):
    """A kernel channel's ``get_msg`` that waits in slices of ``every`` seconds.

    The asyncio wait on a channel sometimes misses the socket's wake-up (nbclient 0.11,
    jupyter_client 8.10, pyzmq 27.3): the reply is in the client's queue and the wait ends
    only at its timeout, the cell's 60 s, where pyzmq's last look finds it. Five such
    stalls were in one ``make test`` (tests/test_kernel_channels.py). Each slice ends with
    that look, so a reply is read at most ``every`` seconds after it arrives; the timeout
    (none for IOPub) is kept."""

    async def sliced(timeout=None):
        deadline = None if timeout is None else clock() + timeout
        while True:
            wait = every if deadline is None else max(0.0, min(every, deadline - clock()))
            try:
                return await get_msg(timeout=wait)
            except queue.Empty:
                if deadline is not None and clock() >= deadline:
                    raise

    sliced.sliced = True
    return sliced


def alembic_head():
    """The gradebook schema's alembic revision, as ``nbgrader.api.get_alembic_version``
    gives it, read in this process: nbgrader runs ``alembic heads`` in a new Python (1.2
    CPU s) for each new gradebook. ``instructor/nbgrader_config.py`` puts it in nbgrader's
    place."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    return ScriptDirectory.from_config(config).get_current_head()


class GuardedExecute(Execute):
    """nbgrader's Execute, with an integrity check, a short timeout and crash records."""

    timeout = Integer(60, allow_none=True,
                      help="Seconds a cell may run before it is interrupted.").tag(config=True)
    bwrap = Unicode("bwrap", help="bubblewrap's binary, which sandboxes every kernel."
                    ).tag(config=True)
    allow_unsandboxed = Bool(False, help="Grade without a sandbox where bubblewrap cannot "
                             "make one (each submission can then read the solutions, the "
                             "gradebook and the other submissions).").tag(config=True)

    def create_kernel_manager(self):
        problem = sandbox_problem(self.bwrap)
        if problem is None:
            self.kernel_manager_class = SandboxedKernelManager
            km = super().create_kernel_manager()
            km.bwrap = self.bwrap
            return km
        if not self.allow_unsandboxed:
            raise SandboxUnavailable(UNAVAILABLE.format(reason=problem))
        self.log.warning("grading WITHOUT a sandbox (--GuardedExecute.allow_unsandboxed=True): "
                         "%s", problem)
        return super().create_kernel_manager()

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        for channel in (kc.shell_channel, kc.iopub_channel):
            channel.get_msg = polled_in_slices(channel.get_msg)
        return kc

    # nbclient binds its sync twin to its own coroutine at class creation
    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def preprocess(self, nb, resources=None, km=None):
        guard = new_code_cell(INSTALL, id="minigrad-integrity")
        nb.cells.insert(0, guard)
        self._running = None
        try:
            nb, resources = super().preprocess(nb, resources, km=km)
        except DeadKernelError:
            self._mark_crash(nb)
        finally:
            if guard in nb.cells:
                nb.cells.remove(guard)
        for cell in nb.cells:
            if utils.is_grade(cell) and cell.cell_type == "code":
                for output in cell.get("outputs", []):
                    if output.get("output_type") == "stream" and output.get("name") == "stderr":
                        output["name"] = "stdout"
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        self._running = index
        return super().preprocess_cell(cell, resources, index)

    def _mark_crash(self, nb):
        index = self._running
        crashed = nb.cells[index]
        number = sum(1 for c in nb.cells[:index + 1] if c.cell_type == "code") - 1
        crashed.setdefault("outputs", []).append(new_output(
            "error", ename="DeadKernelError", evalue=f"the kernel died in code cell {number}",
            traceback=[f"DeadKernelError: the kernel died while running code cell {number}; "
                       "nothing after it ran."]))
        for cell in nb.cells[index + 1:]:
            if cell.cell_type == "code":
                cell["outputs"] = [new_output(
                    "error", ename=NOT_RUN, evalue=f"the kernel died in code cell {number}",
                    traceback=[f"NotRun: not run, the kernel died in code cell {number}."])]
                cell["execution_count"] = None


class RestoreCells(OverwriteCells):
    """OverwriteCells, and put back every solution and test cell a student deleted."""

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        from nbgrader.api import Gradebook

        with Gradebook(self.db_url) as gb:
            source = gb.find_notebook(self.notebook_id, self.assignment_id)
            self._restore(nb, list(source.source_cells), source)
        return nb, resources

    def _restore(self, nb, source_cells, source):
        grades = {c.name: c for c in source.grade_cells}
        present = {c.metadata.nbgrader["grade_id"]: c for c in nb.cells
                   if "nbgrader" in c.metadata and "grade_id" in c.metadata.nbgrader}
        anchor = None  # the last cell of the source order that is in the notebook
        for cell in source_cells:
            if cell.name in present:
                anchor = present[cell.name]
                continue
            self.log.warning("Cell %s is missing from the submission: putting it back",
                             cell.name)
            restored = self._rebuild(cell, grades.get(cell.name))
            position = nb.cells.index(anchor) + 1 if anchor is not None else self._first(nb)
            nb.cells.insert(position, restored)
            present[cell.name] = anchor = restored

    @staticmethod
    def _first(nb):
        for i, cell in enumerate(nb.cells):
            if "nbgrader" in cell.metadata:
                return i
        return len(nb.cells)

    @staticmethod
    def _rebuild(cell, grade):
        is_grade = grade is not None
        meta = {"grade": is_grade, "grade_id": cell.name, "locked": cell.locked,
                "solution": not is_grade and not cell.locked, "schema_version": 3,
                "task": False, "checksum": cell.checksum}
        if is_grade:
            meta["points"] = grade.max_score
        if cell.cell_type == "code":
            new = new_code_cell(f"# {MISSING}\n{cell.source}")
        else:
            new = new_markdown_cell(f"{MISSING}\n\n{cell.source}")
        new.metadata["nbgrader"] = meta
        new.metadata["editable"] = not cell.locked
        new.metadata["deletable"] = False
        return new


class Verdicts(NbGraderPreprocessor):
    """Re-decide the exercises of :data:`minigrad.course.verdicts.EXERCISES` outside the
    kernel (after :class:`GuardedExecute`): a test cell the kernel passed and the judge
    fails gets the judge's outputs (an error: 0 points); otherwise the kernel's stay (a
    failure there, tampering, a crash or a timeout, keeps its own record). Each exercise's
    learner processes get ``Verdicts.timeout`` seconds, start-up included."""

    bwrap = Unicode("bwrap", help="bubblewrap's binary, which sandboxes both verdict "
                    "processes.").tag(config=True)
    # Not Execute.timeout: the code already ran in the kernel within that limit, and the
    # verdict's clock also counts its processes' start-up, which a loaded grading machine
    # stretched past a short Execute.timeout (an honest 1.2 lost its points that way).
    timeout = Integer(60, help="Seconds for one exercise's learner processes, start-up "
                      "included.").tag(config=True)

    def preprocess(self, nb, resources):
        from minigrad.course import verdicts
        from minigrad.course.verdicts_graphs import context_cell

        solutions, exercises, cells = [], [], []
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            if utils.is_solution(cell):
                solutions.append(cell.source)
            elif not utils.is_grade(cell):  # the chapter's definitions (verdicts_graphs)
                solutions.append(context_cell(cell.source))
            failed = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
            if utils.is_grade(cell) and not failed and \
                    cell.metadata.nbgrader.get("grade_id") in verdicts.EXERCISES:
                # (a test the kernel failed keeps that record: tampering, crash, timeout)
                exercises.append((cell.metadata.nbgrader["grade_id"], cell.source,
                                  list(solutions)))
                cells.append(cell)
        if not exercises:
            return nb, resources
        problem = sandbox_problem(self.bwrap)
        if problem is not None:
            self.log.warning("verdicts left to the kernel (no sandbox: %s)", problem)
            return nb, resources
        before = verdicts.COST["cpu"]
        results = verdicts.decide(exercises, self.bwrap, self.timeout)
        self.log.info("verdicts of %d exercises outside the kernel: %.2f CPU s",
                      len(exercises), verdicts.COST["cpu"] - before)
        if results is None:
            self.log.error("the verdict processes failed: every re-decided exercise scores 0")
            results = [[dict(output_type="error", ename="VerdictFailed",
                             evalue="the grader could not decide this exercise",
                             traceback=["VerdictFailed: the grader could not decide this "
                                        "exercise; ask your instructor to grade it again."])]
                       ] * len(cells)
        for cell, outputs in zip(cells, results, strict=True):
            outputs = outputs or []
            if any(o.get("output_type") == "error" for o in outputs):
                cell["outputs"] = [new_output(**_plain(o)) for o in outputs]
        return nb, resources


def _plain(output):
    """An nbformat output's fields from the judge's dict (only the known ones)."""
    keep = {"output_type", "name", "text", "data", "metadata", "ename", "evalue", "traceback"}
    return {k: v for k, v in output.items() if k in keep}
