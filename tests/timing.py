"""Per-file wall and CPU of a test run (``MINIGRAD_TIMES=path pytest ...``), for finding
where ``make test`` spends its time (README, "Tests"): CPU is the worker's own plus that of
every process it started (kernels, nbgrader, Chromium, sandboxed kernels: counted in a
cpuacct cgroup where one can be made, else the waited-for children's rusage), so it stays
comparable when the machine is shared, where wall does not. One JSON line a file, appended
to ``path`` as the file ends; ``python -m tests.timing path`` prints the table.
"""

import collections
import json
import os
import sys
import time

from tests import cpu_group

_TOTALS = collections.defaultdict(lambda: [0.0, 0.0, 0])  # file: [wall, cpu, tests]
_GROUP = []


def pytest_configure(config):
    """Put this process (so everything it starts) in a cpuacct cgroup of its own, where one
    can be made: a kernel in the grading sandbox is killed with its pid namespace, not
    waited for, so its CPU never reaches RUSAGE_CHILDREN."""
    if not os.environ.get("MINIGRAD_TIMES"):
        return
    _GROUP.append(cpu_group.join("minigrad-times-"))


def _cpu():
    return cpu_group.cpu_seconds(_GROUP[0] if _GROUP else None)


def pytest_runtest_protocol(item, nextitem):
    """Time each test with its setup and teardown (a module fixture's cost lands on the
    file's first test, its teardown on the last)."""
    if not os.environ.get("MINIGRAD_TIMES"):
        return None
    wall, cpu = time.perf_counter(), _cpu()
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    totals = _TOTALS[item.nodeid.split("::")[0]]
    totals[0] += time.perf_counter() - wall
    totals[1] += _cpu() - cpu
    totals[2] += 1
    if nextitem is None or nextitem.nodeid.split("::")[0] != item.nodeid.split("::")[0]:
        _write(item.nodeid.split("::")[0])  # the file is done (xdist loadfile: for good)
    return True


def _write(name):
    wall, cpu, tests = _TOTALS.pop(name)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.environ["MINIGRAD_TIMES"], "a") as f:
        f.write(json.dumps({"file": name, "wall": round(wall, 2), "cpu": round(cpu, 2),
                            "tests": tests, "worker": worker}) + "\n")


def pytest_sessionfinish(session):
    if not os.environ.get("MINIGRAD_TIMES"):
        return
    for name in list(_TOTALS):
        _write(name)
    if session.config.pluginmanager.hasplugin("dsession") and _GROUP:
        # xdist's controller: its own CPU and its processes' (the shared kernel server's
        # nbval and JupyterLab kernels: tests/conftest.py), counted in no file's line
        _TOTALS["(controller, shared kernel server)"] = [0.0, _cpu(), 0]
        _write("(controller, shared kernel server)")


def pytest_unconfigure(config):
    for folder in _GROUP:
        cpu_group.leave(folder)


def report(path):
    rows = {}
    for line in open(path):  # a file xdist handed out in two parts has two lines
        row = json.loads(line)
        if row["file"] in rows:
            for key in ("wall", "cpu", "tests"):
                rows[row["file"]][key] += row[key]
        else:
            rows[row["file"]] = row
    rows = list(rows.values())
    rows.sort(key=lambda r: -r["cpu"])
    print(f"{'file':58} {'tests':>6} {'wall s':>8} {'cpu s':>8} {'cpu/wall':>8} worker")
    for r in rows:
        ratio = r["cpu"] / r["wall"] if r["wall"] else 0.0
        print(f"{r['file'][:58]:58} {r['tests']:6d} {r['wall']:8.1f} {r['cpu']:8.1f} "
              f"{ratio:8.2f} {r['worker']}")
    print(f"{'total':58} {sum(r['tests'] for r in rows):6d} "
          f"{sum(r['wall'] for r in rows):8.1f} {sum(r['cpu'] for r in rows):8.1f}")


if __name__ == "__main__":
    report(sys.argv[1])
