# nbgrader configuration for a course folder built from the minigrad chapters.
# `make course` copies it into the course folder (the README's instructor guide).
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteKernelspec,
    SaveAutoGrades,
)

c = get_config()  # noqa: F821 - nbgrader provides get_config

try:
    import nbgrader.api

    from minigrad.course.nbgrader_plugins import (
        GuardedExecute,
        RestoreCells,
        Verdicts,
        alembic_head,
    )

    # nbgrader asks `alembic heads` in a new Python for each new gradebook: the same
    # revision, read in this process (1.2 CPU s less for each new gradebook).
    nbgrader.api.get_alembic_version = alembic_head
except Exception as exc:  # noqa: BLE001 - any failure here must stop grading, loudly
    # nbgrader only logs an error for a config file that raises and then grades with its
    # defaults: no sandbox, no guards, no verdicts outside the kernel. Grade nothing instead.
    from nbconvert.preprocessors import Preprocessor

    problem = f"{type(exc).__name__}: {exc}"

    class RefuseToGrade(Preprocessor):
        """Stands in for the course's pipeline when minigrad's plugins cannot load."""

        def preprocess(self, nb, resources):
            raise RuntimeError(
                f"the course's grading plugins did not load ({problem}). Fix: run nbgrader "
                "with the course's environment (.venv/bin/nbgrader, or PYTHONPATH set to "
                "the minigrad checkout); nothing is graded without its sandbox and guards")

    GuardedExecute = RestoreCells = Verdicts = RefuseToGrade

c.CourseDirectory.course_id = "minigrad"
# nbgrader's own pipeline with two of ours (minigrad/course/nbgrader_plugins.py):
# RestoreCells puts back a deleted exercise (nbgrader's add_missing_cells raises KeyError
# when a whole exercise is gone, so it stays off); GuardedExecute catches patched test
# helpers, interrupts endless loops, grades a crashed kernel with what it reached, and
# keeps stderr from zeroing a correct answer, and runs every kernel in a bubblewrap sandbox
# (minigrad/course/sandbox.py: no course folder, no network, capped resources). Without
# bubblewrap it refuses to grade unless --GuardedExecute.allow_unsandboxed=True is passed.
# The sandbox's limits, if a chapter ever needs more:
# c.SandboxedKernelManager.memory_limit = 6 * 2 ** 30  # RLIMIT_AS, bytes
# c.SandboxedKernelManager.max_processes = 128         # tasks: cgroup pids.max or RLIMIT_NPROC
# Each kernel (and each verdicts' judge) is forked from one server per grading run that
# has ipykernel, torch and minigrad imported (minigrad/course/forkserver.py), then confined
# in namespaces of its own as bwrap would; to start a new Python per kernel instead:
# c.SandboxedKernelManager.fork_server = False
# Verdicts then re-decides the exercises of minigrad/course/verdicts.py outside the kernel:
# the solution cells alone in a sandboxed process where the forbidden routes do not exist,
# the test in another that runs no learner code; only plain data crosses between them.
c.OverwriteCells.add_missing_cells = False
c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoreCells, CheckCellMetadata]
c.Autograde.autograde_preprocessors = [
    GuardedExecute, Verdicts, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata]
# nbconvert validates the notebook against its schema after each preprocessor (13 times a
# submission); once after the last of each stage is enough: an invalid notebook still fails.
c.Exporter.optimistic_validation = True
# The slowest legitimate cell of any chapter takes under 2 s: 60 s stops an endless loop.
c.Execute.timeout = 60
# nbclient waits 4 s for a cell's last outputs after its reply by default; on a loaded
# grading machine that lost whole submissions (tests/notebook_tools.py: BUSY_MACHINE).
c.Execute.iopub_timeout = 60
