"""Grading past one machine: one submission per index of a Kubernetes Indexed Job.

    python instructor/grade_index.py plan course [--out course/worklist.json] [--job grade-job.yaml]
    python instructor/grade_index.py run course course/worklist.json results   # in each pod
    python instructor/grade_index.py merge course results

``plan`` lists every (assignment, student) of the course's ``submitted/`` folder in a JSON
work list (after ``classroom.py``'s renaming of a lone notebook saved under another name)
and, with ``--job``, writes ``instructor/k8s/grade-job.yaml`` with ``completions`` set to
the number of submissions. ``run`` is what each pod runs: it reads ``JOB_COMPLETION_INDEX``
(set by Kubernetes; ``--index`` overrides it), grades that one submission with plain
``nbgrader autograde`` in a private copy of the course folder (the course folder itself may
be mounted read-only and is never written), and writes the autograded notebooks and a JSON
of the grades and comments to ``results/<index>/``. ``merge`` puts every result into the
course's gradebook through nbgrader's API (``nbgrader.api.Gradebook``) and copies the
autograded notebooks into ``autograded/``, so ``classroom.py export``, feedback and the
class report (``instructor/report.py``) work as after a local ``classroom.py grade``.
"""

import argparse
import datetime
import importlib.util
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
MANIFEST = HERE / "k8s" / "grade-job.yaml"


def _classroom():
    spec = importlib.util.spec_from_file_location("classroom", HERE / "classroom.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plan(course, out=None, job=None):
    """Write the work list (and the Job manifest with its completions); returns the list."""
    course = pathlib.Path(course)
    _classroom().rename_strays(course)
    work = sorted([folder.name, folder.parent.name]
                  for folder in (course / "submitted").glob("*/*") if folder.is_dir())
    out = pathlib.Path(out) if out else course / "worklist.json"
    out.write_text(json.dumps({"work": work}, indent=1) + "\n")
    print(f"wrote {out}: {len(work)} submissions (completions: {len(work)})")
    if job:
        text = re.sub(r"(?m)^(\s*completions:) \d+", rf"\1 {len(work)}", MANIFEST.read_text())
        pathlib.Path(job).write_text(text)
        print(f"wrote {job}")
    return work


def _db(course):
    return f"sqlite:///{pathlib.Path(course) / 'gradebook.db'}"


def _private_copy(course, assignment, student, into):
    """What ``nbgrader autograde`` of one submission reads, copied into ``into``."""
    shutil.copy(course / "nbgrader_config.py", into / "nbgrader_config.py")
    shutil.copy(course / "gradebook.db", into / "gradebook.db")
    shutil.copytree(course / "source" / assignment, into / "source" / assignment)
    shutil.copytree(course / "submitted" / student / assignment,
                    into / "submitted" / student / assignment)


def _grades(db, assignment, student):
    """The submission's grades and comments as plain JSON, from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(db) as gb:
        submission = gb.find_submission(assignment, student)
        notebooks = {}
        for nb in submission.notebooks:
            notebooks[nb.name] = {
                "late_submission_penalty": nb.late_submission_penalty,
                "grades": {g.name: {"auto_score": g.auto_score, "manual_score": g.manual_score,
                                    "extra_credit": g.extra_credit,
                                    "needs_manual_grade": g.needs_manual_grade}
                           for g in nb.grades},
                "comments": {c.name: {"auto_comment": c.auto_comment,
                                      "manual_comment": c.manual_comment}
                             for c in nb.comments}}
        timestamp = submission.timestamp.isoformat() if submission.timestamp else None
        return {"assignment": assignment, "student": student, "timestamp": timestamp,
                "notebooks": notebooks}


def run(course, worklist, results, index=None):
    """Grade submission number ``index`` of the work list; returns its result folder."""
    course, results = pathlib.Path(course).resolve(), pathlib.Path(results)
    if index is None:
        if "JOB_COMPLETION_INDEX" not in os.environ:
            raise SystemExit("JOB_COMPLETION_INDEX is not set. Fix: run this in a Kubernetes "
                             "Indexed Job or pass --index N.")
        index = int(os.environ["JOB_COMPLETION_INDEX"])
    work = json.loads(pathlib.Path(worklist).read_text())["work"]
    if not 0 <= index < len(work):
        raise SystemExit(f"index {index} is out of range for {len(work)} submissions. Fix: set "
                         f"the Job's completions to {len(work)} (grade_index.py plan --job).")
    assignment, student = work[index]
    classroom = _classroom()
    with tempfile.TemporaryDirectory(prefix=f"grade-{index}-") as tmp:
        private = pathlib.Path(tmp) / "course"
        private.mkdir()
        _private_copy(course, assignment, student, private)
        # One submission a pod: a new Python for its kernel (and judge) imports only what
        # the submission uses; the fork server's imports pay off over many kernels only.
        result = classroom.nbgrader(["autograde", assignment, "--student", student, "--force",
                                     "--SandboxedKernelManager.fork_server=False"],
                                    private, env=classroom.ONE_THREAD, check=False)
        # A half-written result must never be merged: write aside, then rename.
        staging = results / f".{index}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        (staging / "autograde.log").write_text(result.stderr[-200_000:])
        if result.returncode != 0:
            raise SystemExit(f"nbgrader autograde {assignment} --student {student} failed "
                             f"(log in {staging}):\n{result.stderr[-3000:]}")
        shutil.copytree(private / "autograded" / student / assignment, staging / "autograded")
        grades = {"index": index, **_grades(_db(private), assignment, student)}
        (staging / "grades.json").write_text(json.dumps(grades, indent=1) + "\n")
    final = results / str(index)
    shutil.rmtree(final, ignore_errors=True)
    staging.rename(final)
    print(f"index {index}: {assignment} {student} graded -> {final}")
    return final


def merge(course, results):
    """Every result of ``results`` into the course's gradebook and autograded/ folder."""
    from nbgrader.api import Gradebook

    course, results = pathlib.Path(course), pathlib.Path(results)
    merged = []
    folders = sorted((p for p in results.iterdir() if p.name.isdigit()), key=lambda p: int(p.name))
    with Gradebook(_db(course)) as gb:
        for folder in folders:
            data = json.loads((folder / "grades.json").read_text())
            assignment, student = data["assignment"], data["student"]
            gb.update_or_create_student(student)
            extra = ({"timestamp": datetime.datetime.fromisoformat(data["timestamp"])}
                     if data["timestamp"] else {})
            gb.update_or_create_submission(assignment, student, **extra)
            for name, nb in data["notebooks"].items():
                submitted = gb.find_submission_notebook(name, assignment, student)
                submitted.late_submission_penalty = nb["late_submission_penalty"]
                for cell, values in nb["grades"].items():
                    grade = gb.find_grade(cell, name, assignment, student)
                    for key, value in values.items():
                        setattr(grade, key, value)
                for cell, values in nb["comments"].items():
                    comment = gb.find_comment(cell, name, assignment, student)
                    for key, value in values.items():
                        setattr(comment, key, value)
            gb.db.commit()
            target = course / "autograded" / student / assignment
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(folder / "autograded", target)
            merged.append((assignment, student))
    print(f"merged {len(merged)} results into {course / 'gradebook.db'}")
    return merged


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="the work list of every submission")
    p.add_argument("course")
    p.add_argument("--out", default=None)
    p.add_argument("--job", default=None, help="write the Job manifest with its completions")
    p = sub.add_parser("run", help="grade the submission of JOB_COMPLETION_INDEX")
    p.add_argument("course")
    p.add_argument("worklist")
    p.add_argument("results")
    p.add_argument("--index", type=int, default=None)
    p = sub.add_parser("merge", help="every result into the gradebook")
    p.add_argument("course")
    p.add_argument("results")
    args = parser.parse_args(argv)
    if args.command == "plan":
        plan(args.course, args.out, args.job)
    elif args.command == "run":
        run(args.course, args.worklist, args.results, args.index)
    else:
        merge(args.course, args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
