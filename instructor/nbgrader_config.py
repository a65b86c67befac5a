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

from minigrad.course.nbgrader_plugins import GuardedExecute, RestoreCells

c = get_config()  # noqa: F821 - nbgrader provides get_config

c.CourseDirectory.course_id = "minigrad"
# nbgrader's own pipeline with two of ours (minigrad/course/nbgrader_plugins.py):
# RestoreCells puts back a deleted exercise (nbgrader's add_missing_cells raises KeyError
# when a whole exercise is gone, so it stays off); GuardedExecute catches patched test
# helpers, interrupts endless loops, grades a crashed kernel with what it reached, and
# keeps stderr from zeroing a correct answer.
c.OverwriteCells.add_missing_cells = False
c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoreCells, CheckCellMetadata]
c.Autograde.autograde_preprocessors = [
    GuardedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata]
# The slowest legitimate cell of any chapter takes under 2 s: 60 s stops an endless loop.
c.Execute.timeout = 60
