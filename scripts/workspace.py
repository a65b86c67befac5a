"""The learner's workspace: the student version of every chapter, in ``workspace/``.

    python scripts/workspace.py build            # `make lab` runs this first
    python scripts/workspace.py reset 04         # `make reset CH=04`: chapter 04 afresh
    python scripts/workspace.py solution 4.3     # `make solution EX=4.3`: show one answer

``build`` makes the student versions with nbgrader's own ``generate_assignment`` (in a
scratch course folder under ``build/``): solutions replaced by stubs, hidden tests and
outputs removed, figures kept (they are cell attachments). It copies a chapter into
``workspace/`` only when the workspace has none of that name, so a learner's work is
never overwritten; new chapters appear after a ``git pull``. It also writes
``workspace/nbgrader_config.py``, so nbgrader's Validate button in JupyterLab works.

``reset NN`` moves the learner's copy of chapter NN to ``workspace/.previous/`` (with
the time in its name) and puts a fresh student version in its place.

``solution N.K`` prints the reference solution of exercise N.K from the instructor's
chapter, for a learner who decided to look: nothing is revealed unless asked for.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
WORKSPACE = ROOT / "workspace"
SCRATCH = ROOT / "build" / "student"
ASSIGNMENT = "course"


def chapters():
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def student_versions(scratch=None):
    """Generate the student version of every chapter (in the nbgrader course folder
    ``scratch``, made afresh; by default build/student); return {name: path}."""
    scratch = scratch or SCRATCH
    if scratch.exists():
        shutil.rmtree(scratch)
    source = scratch / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    for nb in chapters():
        shutil.copy(nb, source / nb.name)
    (scratch / "nbgrader_config.py").write_text(
        'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "minigrad"\n')
    bindir = pathlib.Path(sys.executable).parent
    env = {**os.environ, "PATH": os.pathsep.join([str(bindir), os.environ.get("PATH", "")])}
    # --no-db: no gradebook (nothing here grades); the same student versions, byte for
    # byte, in 2.0 CPU s instead of 3.8 (the gradebook's creation runs `alembic` anew).
    result = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment",
                             ASSIGNMENT, "--force", "--no-db"], cwd=scratch,
                            capture_output=True, text=True, env=env)
    if result.returncode:
        raise SystemExit(f"nbgrader generate_assignment failed:\n{result.stderr[-3000:]}")
    release = scratch / "release" / ASSIGNMENT
    return {p.name: p for p in sorted(release.glob("*.ipynb"))}


def build(workspace=WORKSPACE, scratch=None):
    workspace.mkdir(exist_ok=True)
    new = []
    versions = None
    for nb in chapters():
        if not (workspace / nb.name).exists():
            versions = versions or student_versions(scratch)
            shutil.copy(versions[nb.name], workspace / nb.name)
            new.append(nb.name)
    config = workspace / "nbgrader_config.py"
    config.write_text('c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "minigrad"\n'
                      "c.Execute.timeout = 60\n")
    print(f"workspace/: {len(new)} new chapter(s)" + (f": {', '.join(new)}" if new else
                                                      ", your work is kept as it is"))
    return new


def _chapter(number):
    found = [nb for nb in chapters() if nb.name.startswith(f"{int(number):02d}_")]
    if not found:
        raise SystemExit(f"no chapter {number}: chapters are 01 to {chapters()[-1].name[:2]}")
    return found[0]


def reset(number, workspace=WORKSPACE):
    nb = _chapter(number)
    target = workspace / nb.name
    if target.exists():
        previous = workspace / ".previous"
        previous.mkdir(parents=True, exist_ok=True)
        kept = previous / f"{nb.stem}-{time.strftime('%Y%m%d-%H%M%S')}.ipynb"
        shutil.move(target, kept)
        print(f"your copy is kept as {kept.relative_to(workspace.parent)}")
    shutil.copy(student_versions()[nb.name], target)
    print(f"workspace/{nb.name}: a fresh student version")


def solution(exercise):
    """The solution cell(s) of exercise 'N.K' (or a grade_id), from the instructor's chapter."""
    import nbformat

    match = re.fullmatch(r"(\d+)\.(\d+)", exercise)
    nb = nbformat.read(_chapter(match[1]) if match else _find(exercise), as_version=4)
    cells, current = [], None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heading = re.search(r"^### Exercise (\d+)\.(\d+)", cell.source, re.MULTILINE)
            if heading:
                current = f"{int(heading[1])}.{int(heading[2])}"
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and (current == exercise or meta.get("grade_id") == exercise):
            cells.append(cell.source)
    if not cells:
        raise SystemExit(f"no exercise {exercise}")
    text = "\n\n".join(cells)
    print(f"Exercise {exercise}, the reference solution:\n")
    print(re.sub(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", "", text, flags=re.MULTILINE))
    return text


def _find(grade_id):
    for nb in chapters():
        if f'"grade_id": "{grade_id}"' in nb.read_text():
            return nb
    raise SystemExit(f"no exercise {grade_id}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build")
    sub.add_parser("reset").add_argument("chapter")
    sub.add_parser("solution").add_argument("exercise")
    args = parser.parse_args(argv)
    if args.command == "build":
        build()
    elif args.command == "reset":
        reset(args.chapter)
    else:
        solution(args.exercise)
    return 0


if __name__ == "__main__":
    sys.exit(main())
