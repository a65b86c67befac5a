"""Grading as a Kubernetes Indexed Job would (instructor/grade_index.py, issue 19 item 5):
``plan`` a small course, run the entry point once per index as separate processes with
JOB_COMPLETION_INDEX set (as pods are), ``merge``, and compare the gradebook with the one
plain ``nbgrader autograde`` makes from the same submissions, score by score. The Job
manifest (instructor/k8s/grade-job.yaml) is checked for what an Indexed Job needs.

The honest submission is all of chapter 01 (its verdicts decided outside the kernel, in
each pod as in plain autograde); the other three are of the minimal assignment
(tests/notebook_tools.py: two exercises, 3 and 2 points, as chapter 01 has, without its
demo cells and their CPU), so the work list spans two assignments.
"""

import datetime
import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest
import yaml
from nbgrader.api import Gradebook

from tests.notebook_tools import NOTEBOOKS, ROOT, minimal_assignment, nbgrader_meta

pytestmark = pytest.mark.slow

CHAPTER = NOTEBOOKS[0]  # 01_derivatives: the honest student's
ASSIGNMENT = "ch00"  # the minimal assignment: the other students'
ASSIGNMENTS = {"honest": "ch01"}  # {student: assignment} where not ASSIGNMENT
SCRIPT = ROOT / "instructor" / "grade_index.py"
MANIFEST = ROOT / "instructor" / "k8s" / "grade-job.yaml"


def _cell(nb, grade_id):
    return next(c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id)


def _submissions(course, minimal):
    """{student: (notebook, its file name)}: honest (chapter 01, the instructor's answers,
    handed in late); of the minimal assignment: untouched (as released), half (its first
    exercise solved only), crash (the kernel dies in its second exercise)."""
    source = nbformat.read(minimal, as_version=4)
    released = nbformat.read(course / "release" / ASSIGNMENT / minimal.name, as_version=4)
    half = nbformat.read(course / "release" / ASSIGNMENT / minimal.name, as_version=4)
    _cell(half, "ex00-add-one").source = _cell(source, "ex00-add-one").source
    crash = nbformat.read(minimal, as_version=4)
    _cell(crash, "ex00-double").source = "import os\nos._exit(1)"
    return {"honest": (nbformat.read(CHAPTER, as_version=4), CHAPTER.name),
            "untouched": (released, minimal.name), "half": (half, minimal.name),
            "crash": (crash, minimal.name)}


def _env(**extra):
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra,
            "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]])}


def _snapshot(folder):
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")}


def _scores(course):
    """{(student, cell): (auto_score, manual_score, needs_manual_grade, auto_comment)} and
    {student: (timestamp, late penalty)} from a course's gradebook."""
    cells, submissions = {}, {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for submission in (s for a in (ASSIGNMENT, "ch01") for s in gb.assignment_submissions(a)):
            student = submission.student.id
            (notebook,) = submission.notebooks
            submissions[student] = (submission.timestamp, notebook.late_submission_penalty)
            for g in notebook.grades:
                cells[student, g.name] = (g.auto_score, g.manual_score, g.needs_manual_grade)
            for c in notebook.comments:
                cells[student, c.name] = (c.auto_comment,)
    return cells, submissions


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released_course):
    root = tmp_path_factory.mktemp("grade_index")
    course, plain, results = root / "course", root / "plain", root / "results"
    minimal = minimal_assignment(root)
    released_course(course, [CHAPTER, minimal])
    names = {}
    for student, (nb, name) in _submissions(course, minimal).items():
        folder = course / "submitted" / student / ASSIGNMENTS.get(student, ASSIGNMENT)
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / name)
        names[student] = name
    (course / "submitted" / "honest" / "ch01" / "timestamp.txt").write_text(
        "2026-11-02 10:30:00.000000 UTC")
    shutil.copytree(course, plain)
    plan = subprocess.run([sys.executable, str(SCRIPT), "plan", str(course),
                           "--job", str(root / "job.yaml")],
                          env=_env(), capture_output=True, text=True, check=True)
    work = json.loads((course / "worklist.json").read_text())["work"]
    before = _snapshot(course)
    pods, logs = [], []
    for index in range(len(work)):  # two pods at a time: the machine's two cores
        pods.append(subprocess.Popen(
            [sys.executable, str(SCRIPT), "run", str(course), str(course / "worklist.json"),
             str(results)], env=_env(JOB_COMPLETION_INDEX=str(index), HOME=str(root)),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        if len(pods) % 2 == 0 or index == len(work) - 1:
            logs += [(pod.communicate()[0], pod.returncode) for pod in pods[-2:]]
    after = _snapshot(course)
    subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "*"], cwd=plain,
                   env=_env(), capture_output=True, text=True, check=True)
    merge = subprocess.run([sys.executable, str(SCRIPT), "merge", str(course), str(results)],
                           env=_env(), capture_output=True, text=True)
    return {"course": course, "plain": plain, "results": results, "work": work, "names": names,
            "logs": logs, "plan": plan.stdout, "merge": merge, "unchanged": before == after,
            "job": yaml.safe_load((root / "job.yaml").read_text())}


def test_plan_lists_every_submission_and_sets_completions(graded):
    assert graded["work"] == [[ASSIGNMENT, s] for s in ("crash", "half", "untouched")] + [
        ["ch01", "honest"]]
    assert graded["job"]["spec"]["completions"] == 4
    assert "completions: 4" in graded["plan"]


def test_every_index_grades_its_submission(graded):
    assert [rc for _, rc in graded["logs"]] == [0] * 4, graded["logs"]
    for index, (_, student) in enumerate(graded["work"]):
        data = json.loads((graded["results"] / str(index) / "grades.json").read_text())
        assert (data["index"], data["student"]) == (index, student)
        assert (graded["results"] / str(index) / "autograded"
                / graded["names"][student]).exists()


def test_the_pods_never_write_the_course_folder(graded):
    assert graded["unchanged"]


def test_the_merged_gradebook_equals_plain_autograde(graded):
    assert graded["merge"].returncode == 0, graded["merge"].stderr[-3000:]
    merged, merged_subs = _scores(graded["course"])
    plain, plain_subs = _scores(graded["plain"])
    assert merged == plain
    assert merged_subs == plain_subs
    assert merged_subs["honest"][0] == datetime.datetime(2026, 11, 2, 10, 30)
    totals = {s: sum(v[0] for (st, _), v in merged.items() if st == s and len(v) == 3)
              for s in ("crash", "half", "honest", "untouched")}
    assert totals == {"crash": 3, "half": 3, "honest": 5, "untouched": 0}


def test_the_merged_notebooks_are_the_autograded_ones(graded):
    for assignment, student in graded["work"]:
        name = graded["names"][student]
        merged = graded["course"] / "autograded" / student / assignment / name
        plain = graded["plain"] / "autograded" / student / assignment / name
        errors = [[o.get("ename") for o in c.get("outputs", []) if o.output_type == "error"]
                  for c in nbformat.read(merged, 4).cells if c.cell_type == "code"]
        expected = [[o.get("ename") for o in c.get("outputs", []) if o.output_type == "error"]
                    for c in nbformat.read(plain, 4).cells if c.cell_type == "code"]
        assert errors == expected, student


def test_the_entry_point_refuses_without_an_index(tmp_path):
    (tmp_path / "w.json").write_text('{"work": [["ch01", "a"]]}')
    for env, phrase in (({}, "JOB_COMPLETION_INDEX is not set"),
                        ({"JOB_COMPLETION_INDEX": "1"}, "index 1 is out of range")):
        base = {k: v for k, v in _env().items() if k != "JOB_COMPLETION_INDEX"}
        result = subprocess.run([sys.executable, str(SCRIPT), "run", str(tmp_path),
                                 str(tmp_path / "w.json"), str(tmp_path / "r")],
                                env={**base, **env}, capture_output=True, text=True)
        assert result.returncode != 0 and phrase in result.stderr and "Fix:" in result.stderr


def test_the_manifest_is_an_indexed_job():
    job = yaml.safe_load(MANIFEST.read_text())
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    assert job["metadata"]["name"]
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert isinstance(spec["completions"], int) and spec["parallelism"] >= 1
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] in ("Never", "OnFailure")  # a Job's pods may not be Always
    (container,) = pod["containers"]
    assert container["name"] and container["image"]
    assert container["command"][1:3] == ["instructor/grade_index.py", "run"]
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(container["resources"][kind])
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert set(mounts) <= set(volumes)
    assert mounts["course"]["readOnly"] is True
    assert volumes["course"]["persistentVolumeClaim"]["readOnly"] is True
    assert not mounts["results"].get("readOnly")
    assert container["command"][3:] == [mounts["course"]["mountPath"],
                                        mounts["course"]["mountPath"] + "/worklist.json",
                                        mounts["results"]["mountPath"]]
