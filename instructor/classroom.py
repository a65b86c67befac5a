"""A whole class with nbgrader: set up the course folder, grade on every core, export.

    python instructor/classroom.py setup course           # `make course` does this
    python instructor/classroom.py grade course [--jobs N] [--assignment ch01 ...]
    python instructor/classroom.py export course [--out course/grades_by_exercise.csv]

``setup`` makes an nbgrader course folder with every chapter as an assignment (``ch01``
... ``chNN``, from the source notebooks in ``notebooks/``), the course's
``nbgrader_config.py``, and each student version in ``release/``. Run it again after a
``git pull``: it adds new chapters and refreshes changed ones.

``grade`` runs ``nbgrader autograde`` over every (assignment, student) in one worker
process a core (nbgrader's own app in-process, so its start-up is paid once a worker,
not once a submission), each with one BLAS/torch thread (two processes with default
threads fight over the cores and are slower than one). A submission saved under another
file name is renamed to the chapter's name first (when it is the only notebook in its
folder).

``export`` writes one row per student, chapter and exercise from nbgrader's gradebook:
score, max score and a status that tells apart "passed", "partial", "scored 0",
"not submitted", "crashed in cell N", "timed out" and "tampered" (the test found a
patched numpy/torch/minigrad function; the detail names the cell), and ``mistake``, the
id of the common mistake a failing check recognised in the answer (its ``[mistake: id]``
tag, :mod:`minigrad.course.mistakes`), empty when none was named.
"""

import argparse
import csv
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from minigrad.course.nbgrader_plugins import MISSING, NOT_RUN

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
FIELDS = ["student", "chapter", "exercise", "grade_id", "score", "max", "status", "detail",
          "mistake"]


def assignment_of(notebook):
    return f"ch{notebook.stem[:2]}"


def nbgrader(args, course, env=None, check=True):
    """Run an nbgrader command in the course folder with this Python's nbgrader."""
    bindir = str(pathlib.Path(sys.executable).parent)
    env = {**os.environ, **(env or {}), "PATH": os.pathsep.join([bindir, os.environ["PATH"]])}
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                            capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return result


def setup(course, notebooks=NOTEBOOKS):
    course = pathlib.Path(course)
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "instructor" / "nbgrader_config.py", course / "nbgrader_config.py")
    for nb in notebooks:
        folder = course / "source" / assignment_of(nb)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copy(nb, target)
    # Every assignment in source/ at once: one nbgrader process (4 s of start-up), not one
    # a chapter.
    nbgrader(["generate_assignment", "*", "--force"], course)
    for nb in notebooks:
        print(f"{assignment_of(nb)}: release/{assignment_of(nb)}/{nb.name}")


def _expected_name(course, assignment):
    names = sorted(p.name for p in (course / "source" / assignment).glob("*.ipynb"))
    return names[0] if len(names) == 1 else None


def rename_strays(course):
    """A lone notebook under another name is the student's submission: rename it."""
    renamed = []
    for folder in sorted((course / "submitted").glob("*/*")):
        expected = _expected_name(course, folder.name)
        notebooks = sorted(folder.glob("*.ipynb"))
        if expected and len(notebooks) == 1 and notebooks[0].name != expected:
            notebooks[0].rename(folder / expected)
            renamed.append((folder, notebooks[0].name))
            print(f"renamed {folder.relative_to(course)}/{notebooks[0].name} -> {expected}")
    return renamed


def _worker_loop(course):
    """The grading worker (``classroom.py _worker COURSE``): one process that runs
    ``nbgrader autograde ASSIGNMENT --student STUDENT --force`` in-process (nbgrader's
    own app, config and pipeline, as its test suite runs it) for each line
    ``assignment<TAB>student`` read from stdin, and answers one JSON line a submission.
    nbgrader's start-up (about 2 s of CPU) is paid once a worker, not once a submission:
    its imports, the course config's among them, before the first submission is read."""
    import io
    import json
    import logging

    from jupyter_core.application import NoStart
    from nbgrader.apps import NbGraderApp

    try:  # what the course's config imports; if it fails, the config says why, loudly
        import minigrad.course.nbgrader_plugins  # noqa: F401
    except Exception:  # noqa: BLE001, S110
        pass

    os.chdir(course)
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything printed while grading goes to stderr, not into the answers
    sys.stdout = sys.stderr
    for line in sys.stdin:
        assignment, student = line.rstrip("\n").split("\t")
        start = time.perf_counter()
        for attempt in range(3):  # a busy gradebook or a slow kernel start: try again
            log = io.StringIO()
            app = NbGraderApp.instance()
            try:
                app.initialize(["autograde", assignment, "--student", student, "--force"])
                app.init_logging(logging.StreamHandler, [log], color=False, subapps=True)
                app.start()
                rc = 0
            except NoStart:  # what a subcommand raises when it ran (as `nbgrader` ends)
                rc = 0
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
            except Exception as e:  # noqa: BLE001 - reported as this submission's failure
                log.write(f"{type(e).__name__}: {e}\n")
                rc = 1
            finally:
                app.reset()
            if rc == 0:
                break
            time.sleep(1.0 * (attempt + 1))
        answers.write(json.dumps([assignment, student, rc, time.perf_counter() - start,
                                  log.getvalue()[-3000:]]) + "\n")


class _Worker:
    """A grading worker process fed one submission at a time."""

    def __init__(self, course):
        bindir = str(pathlib.Path(sys.executable).parent)
        env = {**os.environ, **ONE_THREAD,
               "PATH": os.pathsep.join([bindir, os.environ["PATH"]])}
        self.errors = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [sys.executable, str(pathlib.Path(__file__).resolve()), "_worker", str(course)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, text=True,
            env=env, cwd=course)

    def grade(self, assignment, student):
        """(rc, seconds, log); None when the worker died on this submission."""
        import json

        try:
            self.process.stdin.write(f"{assignment}\t{student}\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        return json.loads(line)[2:] if line else None

    def tail(self):
        self.errors.seek(0)
        return self.errors.read()[-3000:]

    def close(self):
        try:
            self.process.stdin.close()
        except OSError:
            pass
        self.process.wait()
        self.errors.close()


def _grade_queue(course, work, results):
    """One worker grading submissions from ``work`` until it is empty. A worker that dies
    (a submission that kills its grader) is replaced; that submission is tried twice more,
    then reported failed, and the others are graded."""
    worker, tries = _Worker(course), {}
    try:
        while True:
            try:
                assignment, student = work.pop()
            except IndexError:
                return
            start = time.perf_counter()
            answer = worker.grade(assignment, student)
            if answer is None:
                tail = worker.tail()
                worker.close()
                worker = _Worker(course)
                tries[(assignment, student)] = tries.get((assignment, student), 0) + 1
                if tries[(assignment, student)] < 3:
                    work.append((assignment, student))
                    continue
                answer = [1, time.perf_counter() - start, f"the grader died:\n{tail}"]
            results.append((assignment, student, *answer))
    finally:
        worker.close()


def grade(course, jobs=None, assignments=None):
    """Autograde every submission; returns [(assignment, student, rc, seconds, log)].

    ``jobs`` worker processes (one a core by default) each run nbgrader autograde over
    many submissions, taking the next one from a shared queue, with one BLAS/torch
    thread each (two processes with default threads fight over the cores)."""
    course = pathlib.Path(course).resolve()
    rename_strays(course)
    work = sorted(((folder.name, folder.parent.name)
                   for folder in (course / "submitted").glob("*/*") if folder.is_dir()
                   and (assignments is None or folder.name in assignments)), reverse=True)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(work)))
    results = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(_grade_queue, course, work, results) for _ in range(jobs)]:
            future.result()
    results.sort()
    for assignment, student, rc, seconds, log in results:
        mark = "ok" if rc == 0 else f"FAILED: {log.strip().splitlines()[-1:]}"
        print(f"{assignment} {student}: {seconds:.1f} s {mark}")
    return results


def _exercise_label(source):
    match = re.search(r'graded\("([^"]+)"', source)
    return match[1] if match else ""


def _errors(cell):
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def exercise_statuses(nb, mistakes=None):
    """{grade_id: ((status, detail), label)} for the test cells of an autograded notebook.

    A dict passed as ``mistakes`` receives {grade_id: the id of the named mistake} for
    the failed exercises whose check named one.
    """
    from minigrad.course.mistakes import named_mistake

    statuses, exercise, crashed = {}, [], None
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        for error in _errors(cell):
            if error.ename in ("DeadKernelError", NOT_RUN) and crashed is None:
                crashed = re.search(r"code cell (\d+)", error.evalue)[1]
        exercise.append(cell)
        if not meta.get("grade"):
            continue
        errors = [e for c in exercise for e in _errors(c)]
        names = {e.ename for e in errors}
        mine = _errors(cell)
        if MISSING in cell.source:
            status = ("not submitted", "the exercise was deleted; the grader put it back")
        elif crashed is not None and ({"DeadKernelError", NOT_RUN} & names):
            status = (f"crashed in cell {crashed}", "the kernel died; nothing after it ran")
        elif "CellTimeoutError" in names:
            status = ("timed out", "a cell ran past the time limit and was interrupted")
        elif any(e.ename == "TamperingDetected" for e in mine):
            status = ("tampered", mine[0].evalue.splitlines()[0][:300])
        elif mine:
            status = ("failed", mine[-1].evalue.splitlines()[0][:300] if mine[-1].evalue else "")
            if mistakes is not None and named_mistake(mine[-1].evalue):
                mistakes[meta["grade_id"]] = named_mistake(mine[-1].evalue)
        else:
            status = ("passed", "")
        statuses[meta["grade_id"]] = (status, _exercise_label(cell.source))
        exercise = []
    return statuses


def export(course, out=None):
    """Write the per-exercise CSV; returns its rows as dicts."""
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry

    course = pathlib.Path(course)
    out = pathlib.Path(out) if out else course / "grades_by_exercise.csv"
    rows = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in sorted(gb.assignments, key=lambda a: a.name):
            for student in sorted(gb.students, key=lambda s: s.id):
                for notebook in assignment.notebooks:
                    path = (course / "autograded" / student.id / assignment.name
                            / f"{notebook.name}.ipynb")
                    submitted = (course / "submitted" / student.id / assignment.name
                                 / f"{notebook.name}.ipynb").exists()
                    mistakes = {}
                    statuses = exercise_statuses(nbformat.read(path, as_version=4), mistakes) \
                        if submitted and path.exists() else {}
                    for cell in sorted(notebook.grade_cells, key=lambda c: c.name):
                        try:
                            grade = gb.find_grade(cell.name, notebook.name, assignment.name,
                                                  student.id)
                            score = grade.score
                        except MissingEntry:
                            score = 0.0
                        (status, detail), label = statuses.get(
                            cell.name, (("not submitted", ""), ""))
                        if status == "failed":
                            status = "scored 0" if not score else "partial"
                        rows.append({"student": student.id, "chapter": assignment.name,
                                     "exercise": label or cell.name, "grade_id": cell.name,
                                     "score": score or 0.0, "max": cell.max_score,
                                     "status": status, "detail": detail,
                                     "mistake": mistakes.get(cell.name, "")})
    with out.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out} ({len(rows)} rows)")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("setup", help="make the course folder")
    p.add_argument("course")
    p = sub.add_parser("grade", help="autograde every submission on every core")
    p.add_argument("course")
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--assignment", nargs="*", default=None)
    p = sub.add_parser("export", help="per-exercise CSV")
    p.add_argument("course")
    p.add_argument("--out", default=None)
    p = sub.add_parser("_worker", help="(internal) a grading worker fed by grade")
    p.add_argument("course")
    args = parser.parse_args(argv)
    if args.command == "_worker":
        _worker_loop(args.course)
    elif args.command == "setup":
        setup(args.course)
    elif args.command == "grade":
        results = grade(args.course, args.jobs, args.assignment)
        return 1 if any(rc for _, _, rc, _, _ in results) else 0
    else:
        export(args.course, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
