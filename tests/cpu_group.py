"""CPU seconds of a process and of everything it starts, sandboxed kernels included.

A kernel in the grading sandbox is killed with its pid namespace, not waited for, so its
CPU never reaches ``RUSAGE_CHILDREN``. A cpuacct cgroup (v1) that holds the process, and so
every process it starts, counts it. Used by tests/timing.py (``MINIGRAD_TIMES``),
benchmarks/bench_grading.py and benchmarks/sandbox_cost.py.
"""

import os
import pathlib
import resource
import tempfile

CPUACCT = pathlib.Path("/sys/fs/cgroup/cpuacct")


def join(prefix):
    """Move this process into a new cpuacct cgroup; its folder, or None where none can be
    made (then :func:`cpu_seconds` falls back to rusage)."""
    try:
        folder = pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir=CPUACCT))
        (folder / "cgroup.procs").write_text(str(os.getpid()))
        return folder
    except OSError:
        return None


def leave(folder):
    """Back to the root cgroup; ``folder`` goes (once the processes it held have ended)."""
    if folder is None:
        return
    try:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        folder.rmdir()
    except OSError:
        pass


def cpu_seconds(folder, own=True):
    """CPU seconds counted in ``folder``; without one, of the waited-for children (and
    theirs), plus this process's own unless ``own`` is False."""
    if folder is not None:
        return int((folder / "cpuacct.usage").read_text()) / 1e9
    usages = [resource.getrusage(resource.RUSAGE_CHILDREN)]
    if own:
        usages.append(resource.getrusage(resource.RUSAGE_SELF))
    return sum(u.ru_utime + u.ru_stime for u in usages)
