"""Grading benchmark (``make bench-grading``): CPU seconds a submission, the old way and
the new way, with the same grades (issue 19, item 5).

    python benchmarks/bench_grading.py [--chapters 01 07 13 15] [--students 3] [--jobs 2]

Two identical course folders (``instructor/classroom.py setup``) receive the same
submissions: for each chapter, students in turn honest (the chapter with its solutions),
wrong (the first exercise answered with a common slip from ``tests/wrong_answers``) and
untouched (the released stubs). They are graded

- the old way: one ``nbgrader autograde ASSIGNMENT --student STUDENT`` process a
  submission, ``--jobs`` at a time (classroom.py before issue 19), kernels importing
  ``torch._dynamo`` first as ``minigrad.course.integrity`` did (an IPython startup file
  in the old way's ``IPYTHONDIR``; the new way's is empty);
- the new way before the fork server (``--nofork``, measured when asked): ``classroom.grade``
  (``--jobs`` workers, each nbgrader in-process over many submissions; kernels without
  ``torch._dynamo`` at start), each kernel and each verdicts' judge a new Python;
- the new way: the same, each kernel and judge forked from the worker's fork server
  (:mod:`minigrad.course.forkserver`: ipykernel, torch, ``torch._dynamo`` and minigrad
  imported once per worker). Each worker starts its own process (nbgrader and the course's
  config imported) and its two fork servers once; that start is measured on its own in the
  same run and taken out for the figure of a worker that grades a whole class (one start
  over hundreds of submissions).

CPU is this process's and every process it starts (a cpuacct cgroup: nbgrader
processes, kernels in their sandboxes), else its waited-for children's. The unit,
measured in the same run, is the CPU of starting one Jupyter kernel and importing torch
in it. Every grade cell's score must be the same both ways (assert).
Then a class of 300 students x 16 chapters is extrapolated from the new way's CPU a
submission, on this machine's cores (CPU time / cores, assuming the cores stay busy).
"""

import argparse
import atexit
import importlib
import os
import pathlib
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import nbformat
from jupyter_client.manager import start_new_kernel
from nbgrader.api import Gradebook

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests import cpu_group  # noqa: E402
from tests.notebook_tools import NOTEBOOKS, load_module, nbgrader_meta  # noqa: E402

CLASSROOM = load_module("instructor/classroom.py")
KINDS = ("honest", "wrong", "untouched")


CPUACCT = cpu_group.join("bench-grading-")
atexit.register(cpu_group.leave, CPUACCT)


def cpu():
    """CPU seconds of this process and of every process it started (cgroup), else of its
    waited-for children (and theirs)."""
    return cpu_group.cpu_seconds(CPUACCT)


def measured(fn, *args):
    wall, before = time.perf_counter(), cpu()
    result = fn(*args)
    return result, cpu() - before, time.perf_counter() - wall


def kernel_and_torch():
    """The unit: start a kernel, import torch in it, shut it down."""
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        reply = kc.execute_interactive("import torch", timeout=120)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def servers_start(base, run):
    """What a worker pays once, at its first submission: the kernels' fork server and the
    learners' one started and probed (as a grading run starts them), then closed."""
    import minigrad
    from minigrad.course import forkserver_host, forkserver_learner
    from minigrad.course.sandbox import SandboxedKernelManager
    from minigrad.course.verdicts_process import process_limits

    km = SandboxedKernelManager(kernel_name="python3")
    bwrap = shutil.which(km.bwrap) or km.bwrap
    folder = base / f"servers-{run}" / "autograded" / "student" / "assignment"
    folder.mkdir(parents=True)
    package_dir = os.path.dirname(os.path.realpath(minigrad.__file__))
    kernels = forkserver_host.server_for(bwrap, forkserver_host.fork_root(str(folder)),
                                         package_dir, km.limits(nproc=False))
    learners = forkserver_learner.learner_server(bwrap, process_limits())
    assert kernels is not None and learners is not None, "no fork server starts here"
    forkserver_learner.close_all()
    forkserver_host.close_all()


def worker_start(course):
    """What a worker pays once for itself: its process and imports (nbgrader, the course's
    config's), started and closed without a submission."""
    CLASSROOM._Worker(course).close()


def wrong_version(source_nb):
    """The chapter with its first exercise answered by its first listed slip."""
    nb = nbformat.read(source_nb, as_version=4)
    wrong = importlib.import_module(f"tests.wrong_answers.ch{source_nb.stem[:2]}").WRONG
    for cell in nb.cells:
        answers = wrong.get(nbgrader_meta(cell).get("grade_id"), [])
        slips = [w for w in answers if w.kind == "slip"] or answers
        if slips:
            cell.source = slips[0].source
            return nb
    raise AssertionError(f"{source_nb.name}: no wrong answer found")


def make_courses(base, chapters, students):
    notebooks = [nb for nb in NOTEBOOKS if nb.stem[:2] in chapters]
    old = base / "old"
    CLASSROOM.setup(old, notebooks)
    for source_nb in notebooks:
        assignment = CLASSROOM.assignment_of(source_nb)
        versions = {"honest": nbformat.read(source_nb, as_version=4),
                    "wrong": wrong_version(source_nb),
                    "untouched": nbformat.read(old / "release" / assignment / source_nb.name,
                                               as_version=4)}
        for i in range(students):
            folder = old / "submitted" / f"s{i:02d}-{KINDS[i % 3]}" / assignment
            folder.mkdir(parents=True)
            nbformat.write(versions[KINDS[i % 3]], folder / source_nb.name)
    new = base / "new"
    shutil.copytree(old, new)
    nofork = base / "nofork"
    shutil.copytree(old, nofork)
    with (nofork / "nbgrader_config.py").open("a") as f:
        f.write("\nc.SandboxedKernelManager.fork_server = False\n")
    return old, new, nofork


def ipython_dirs(base):
    """(old, new) IPYTHONDIRs: the old one imports torch._dynamo in every kernel."""
    startup = base / "ipython-old" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-dynamo.py").write_text("import torch._dynamo  # as integrity.py did\n")
    (base / "ipython-new").mkdir()
    return base / "ipython-old", base / "ipython-new"


def with_env(name, value, fn, *args):
    before = os.environ.get(name)
    os.environ[name] = str(value)
    try:
        return fn(*args)
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def grade_old_way(course, jobs):
    """classroom.py's grade before issue 19: one nbgrader process a submission."""
    work = sorted((f.name, f.parent.name) for f in (course / "submitted").glob("*/*"))

    def one(pair):
        for attempt in range(3):
            result = CLASSROOM.nbgrader(["autograde", pair[0], "--student", pair[1], "--force",
                                         "--SandboxedKernelManager.fork_server=False"],
                                        course, env=CLASSROOM.ONE_THREAD, check=False)
            if result.returncode == 0:
                break
            time.sleep(1.0 * (attempt + 1))
        return result.returncode

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, work))


def scores(course):
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(a.name, s.id, g.name): g.score
                for a in gb.assignments for s in gb.students
                for nb in gb.find_submission(a.name, s.id).notebooks for g in nb.grades}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", nargs="*", default=["01", "07", "13", "15"])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--nofork", action="store_true",
                        help="also grade the new way without the fork server")
    args = parser.parse_args(argv)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    n = len(args.chapters) * args.students
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as base:
        old, new, nofork = make_courses(pathlib.Path(base), args.chapters, args.students)
        old_ipython, new_ipython = ipython_dirs(pathlib.Path(base))
        units = [measured(with_env, "IPYTHONDIR", new_ipython, kernel_and_torch)[1]
                 for _ in range(3)]
        unit = sorted(units)[1]
        starts = [measured(servers_start, pathlib.Path(base), i)[1] for i in range(3)]
        workers = [measured(worker_start, new)[1] for _ in range(3)]
        start = sorted(starts)[1] + sorted(workers)[1]
        rcs, old_cpu, old_wall = measured(with_env, "IPYTHONDIR", old_ipython,
                                          grade_old_way, old, args.jobs)
        results, new_cpu, new_wall = measured(with_env, "IPYTHONDIR", new_ipython,
                                              CLASSROOM.grade, new, args.jobs)
        ways = [("old way", old_cpu, old_wall), ("new way", new_cpu, new_wall)]
        assert not any(rcs) and not any(r[2] for r in results), "a submission failed"
        before, after = scores(old), scores(new)
        assert len(before) >= n * 2 and before == after, "the grades differ"
        if args.nofork:
            results, cpu_s, wall = measured(with_env, "IPYTHONDIR", new_ipython,
                                            CLASSROOM.grade, nofork, args.jobs)
            assert not any(r[2] for r in results) and scores(nofork) == after
            ways.insert(1, ("new way, no fork server", cpu_s, wall))
    counted = ("every process (cpuacct cgroup)" if CPUACCT is not None else
               "waited-for children only: sandboxed kernels NOT counted")
    print(f"\nCPU counted: {counted}")
    print(f"{n} submissions (chapters {' '.join(args.chapters)}, {args.students} students "
          f"each: honest, wrong, untouched in turn), {args.jobs} jobs, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"unit: start a kernel and import torch: {unit:.2f} s CPU "
          f"(runs: {', '.join(f'{u:.2f}' for u in units)})")
    for name, seconds, wall in ways:
        print(f"{name}: {seconds / n:.2f} s CPU a submission ({seconds / n / unit:.1f} units), "
              f"{wall / n:.2f} s wall a submission on {args.jobs} jobs")
    print(f"ratio: {old_cpu / new_cpu:.2f}x less CPU; grades identical "
          f"({len(after)} grade cells)")
    steady = (new_cpu - args.jobs * start) / n
    print(f"a worker's one-time start: {start:.2f} s CPU, its two fork servers (runs: "
          f"{', '.join(f'{s:.2f}' for s in starts)}) and its own process and imports "
          f"(runs: {', '.join(f'{s:.2f}' for s in workers)}); without it, as a worker "
          f"grading a whole class pays it once: {steady:.2f} s a submission, "
          f"{old_cpu / n / steady:.2f}x less CPU than the old way")
    cores = os.cpu_count() or 1
    for name, seconds, _ in ways:
        hours = seconds / n * 300 * 16 / cores / 3600
        print(f"a class of 300 x 16 chapters, {name}: {hours:.1f} h on {cores} cores "
              f"(from these chapters' mean)")
    hours = (steady * 300 * 16 + args.jobs * start) / cores / 3600
    print(f"a class of 300 x 16 chapters, new way, each worker's servers started once: "
          f"{hours:.1f} h on {cores} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
