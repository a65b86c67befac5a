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
- :class:`RestoreCells` (replaces ``OverwriteCells``): puts back the solution and test
  cells of an exercise the student deleted, in their place, so the submission is graded
  (nbgrader 0.9.6's ``add_missing_cells`` raises KeyError when a whole exercise is gone).

GuardedExecute starts every kernel in a bubblewrap sandbox
(:class:`minigrad.course.sandbox.SandboxedKernelManager`): the submission cannot see the
course folder, the solutions or the other students, has no network and capped resources.
Where no sandbox can be made it refuses to grade (:data:`~minigrad.course.sandbox.UNAVAILABLE`)
unless the instructor passes ``--GuardedExecute.allow_unsandboxed=True``.
"""

from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output
from nbgrader import utils
from nbgrader.preprocessors import Execute, OverwriteCells
from traitlets import Bool, Integer, Unicode

from minigrad.course.sandbox import (
    UNAVAILABLE,
    SandboxedKernelManager,
    SandboxUnavailable,
    sandbox_problem,
)

__all__ = ["GuardedExecute", "RestoreCells", "MISSING", "NOT_RUN"]

INSTALL = ("import minigrad.course.integrity as _minigrad_integrity\n"
           "_minigrad_integrity.install()")
MISSING = "This cell was missing from the submission; the grader put it back."
NOT_RUN = "NotRun"


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
