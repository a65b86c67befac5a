"""What the grading sandbox costs: plain ``nbgrader autograde`` of N honest chapter 01
submissions, with the sandbox and without it (``--GuardedExecute.allow_unsandboxed=True``
and a bwrap that is not there), alternating, in the same run.

    PYTHONPATH=. .venv/bin/python benchmarks/sandbox_cost.py [--students 4] [--rounds 2]

Prints wall and CPU seconds (nbgrader, kernels and sandboxes: the children's rusage)
per submission for each mode. The README's instructor guide quotes its figures.
"""

import argparse
import pathlib
import sys
import tempfile
import time

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import cpu_group  # noqa: E402
from tests.notebook_tools import NOTEBOOKS, load_module  # noqa: E402

MODES = {"sandboxed": [],
         "unsandboxed": ["--GuardedExecute.bwrap=/nonexistent/bwrap",
                         "--GuardedExecute.allow_unsandboxed=True"]}


CPUACCT = cpu_group.join("sandbox-cost-")


def children_cpu():
    """CPU seconds of everything started so far (cgroup), else of the waited children."""
    return cpu_group.cpu_seconds(CPUACCT, own=False)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    classroom = load_module("instructor/classroom.py")
    chapter = NOTEBOOKS[0]
    totals = {mode: [0.0, 0.0, 0] for mode in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        course = pathlib.Path(tmp) / "course"
        classroom.setup(course, [chapter])
        assignment = classroom.assignment_of(chapter)
        for i in range(args.students):
            folder = course / "submitted" / f"s{i:02d}" / assignment
            folder.mkdir(parents=True)
            nbformat.write(nbformat.read(chapter, 4), folder / chapter.name)
        for _ in range(args.rounds):
            for mode, extra in MODES.items():
                wall, cpu = time.perf_counter(), children_cpu()
                classroom.nbgrader(["autograde", assignment, "--force", *extra], course,
                                   env={**classroom.ONE_THREAD, "PYTHONPATH": str(ROOT)})
                totals[mode][0] += time.perf_counter() - wall
                totals[mode][1] += children_cpu() - cpu
                totals[mode][2] += args.students
    for mode, (wall, cpu, n) in totals.items():
        print(f"{mode:12s} {n} submissions: {wall / n:.2f} s wall, {cpu / n:.2f} s CPU each")
    extra_wall = (totals["sandboxed"][0] - totals["unsandboxed"][0]) / totals["sandboxed"][2]
    extra_cpu = (totals["sandboxed"][1] - totals["unsandboxed"][1]) / totals["sandboxed"][2]
    print("CPU from", f"the cgroup {CPUACCT}" if CPUACCT else "RUSAGE_CHILDREN (kernels in a "
          "sandbox not counted)")
    print(f"the sandbox adds {extra_wall:+.2f} s wall and {extra_cpu:+.2f} s CPU a submission")


if __name__ == "__main__":
    try:
        main()
    finally:
        cpu_group.leave(CPUACCT)
