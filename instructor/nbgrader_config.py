# nbgrader configuration for a course folder built from the minigrad chapters.
# Copy this file into the folder you grade in (the README's instructor guide shows how).
c = get_config()  # noqa: F821 - nbgrader provides get_config

c.CourseDirectory.course_id = "minigrad"
# Autograde restores test cells a student deleted, from the gradebook's copy; edited
# test cells are overwritten with the originals by nbgrader in any case.
c.OverwriteCells.add_missing_cells = True
# Chapters import torch and train small models: give each cell time.
c.Execute.timeout = 600
