"""What a verdict's learner process costs, new (``python -I -S`` under bwrap, minigrad's
source sent and imported) and forked from the learners' fork server
(minigrad.course.forkserver_learner), plus the server's own start, once.

    PYTHONPATH=. .venv/bin/python benchmarks/learner_forks.py [--processes 10]

CPU is counted in a cpuacct cgroup where one can be made (tests/cpu_group.py), so the
sandboxed processes, which are not waited for, count too.
"""

import argparse
import time

from minigrad.course import forkserver_learner, verdicts
from tests import cpu_group


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=10)
    n = parser.parse_args().processes
    group = cpu_group.join("learner-forks-")
    try:
        for forked in (False, True):
            forkserver_learner.ENABLED = forked
            if forked:
                before = cpu_group.cpu_seconds(group)
                forkserver_learner.learner_server("/usr/bin/bwrap", ["RLIMIT_CORE=0"])
                print(f"server start (and probe): {cpu_group.cpu_seconds(group) - before:.3f} "
                      "CPU s")
            wall, before = time.perf_counter(), cpu_group.cpu_seconds(group)
            for _ in range(n):
                process = verdicts._learner("bwrap", verdicts.BY_HAND,
                                            ["def f(x):\n    return x\n"])
                assert process.forked == forked
                assert process.receive(time.monotonic() + 30)["op"] == "ready"
                process.send({"op": "finish"})
                process.receive(time.monotonic() + 5)
                process.close()
            print(f"{'forked' if forked else 'new':>6} learner process: "
                  f"{(time.perf_counter() - wall) / n:.3f} wall s, "
                  f"{(cpu_group.cpu_seconds(group) - before) / n:.3f} CPU s")
    finally:
        cpu_group.leave(group)


if __name__ == "__main__":
    main()
