r"""A sandboxed Python process of a verdict, spoken to one JSON line at a time (issue 19).

:mod:`minigrad.course.verdicts` starts the judge's and the learner's processes with it
(every converted chapter), under :func:`minigrad.course.sandbox.bwrap_args`; the judge is
forked from the grading run's fork server when there is one (:mod:`minigrad.course.forkserver`:
torch already imported), the learner's process from the learners' fork server
(:mod:`minigrad.course.forkserver_learner`: minigrad already imported) when one starts.
``forked`` says which: a forked learner's setup message carries no files.
"""

import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

from minigrad.course.sandbox import LAUNCHER, GiB, bwrap_args
from minigrad.course.verdicts_wire import MAX_LINE, dumps, loads

__all__ = ["Process", "process_limits"]


def _fork_server(argv, bwrap, package_dir):
    """The grading run's fork server (:mod:`minigrad.course.forkserver`) for a ``python -c
    CODE`` with minigrad mounted (the judge), or None: the learner's process (``-I -S``,
    no minigrad, nothing preloaded it could reach) forks from a server of its own."""
    if package_dir is None or len(argv) != 2 or argv[0] != "-c":
        return None
    from minigrad.course.forkserver_host import live_server

    server = live_server(bwrap)
    if server is None:
        return None
    import minigrad

    mine = os.path.dirname(os.path.realpath(minigrad.__file__))
    return server if os.path.realpath(package_dir) in (mine, os.path.dirname(mine)) else None


def _learner_server(bwrap, package_dir, limits):
    """The learners' fork server (:mod:`minigrad.course.forkserver_learner`, started at the
    first learner process) for a learner's process (no minigrad mounted), or None: then a
    new Python, as where no confined process forks."""
    if package_dir is not None:
        return None
    from minigrad.course.forkserver_learner import learner_server

    return learner_server(bwrap, limits)


def process_limits(memory=6 * GiB, cpu=300):
    """A verdict process's resource limits (the judge's and the learner's)."""
    return [f"RLIMIT_AS={memory}", f"RLIMIT_CPU={cpu}", f"RLIMIT_FSIZE={64 * 1024 ** 2}",
            "RLIMIT_CORE=0"]


class Process:
    """A sandboxed Python reading and writing one JSON line at a time (``argv`` with
    ``package_dir`` None: a learner's process, ``python -I -S -c BOOT``)."""

    def __init__(self, argv, bwrap, package_dir, memory=6 * GiB, cpu=300):
        self.runtime = tempfile.mkdtemp(prefix="minigrad-verdict-")
        limits = process_limits(memory, cpu)
        bwrap = shutil.which(bwrap) or bwrap
        server = _fork_server(argv, bwrap, package_dir)
        learners = _learner_server(bwrap, package_dir, limits)
        self.forked = server is not None or learners is not None
        if server is not None:  # the judge, forked with torch already imported
            from minigrad.course.forkserver_host import client_command

            cmd = client_command(server, server.request(None, None, None, limits,
                                                        256 * 1024 ** 2, code=argv[1]), None)
        elif learners is not None:  # a learner, forked with minigrad already imported
            cmd = learners.command(argv, limits, 256 * 1024 ** 2)
        else:
            cmd = [sys.executable, "-I", "-S", "-c", LAUNCHER, "", *limits, "--",
                   *bwrap_args(bwrap, None, self.runtime, package_dir, 256 * 1024 ** 2),
                   sys.executable, *argv]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=None if os.environ.get("MINIGRAD_VERDICT_DEBUG")
                                     else subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"},
                                     start_new_session=True)
        self.buffer = b""

    def send(self, message):
        try:
            self.proc.stdin.write(dumps(message).encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def receive(self, deadline):
        """The next message, or None when the process stopped, timed out or spoke nonsense."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or len(self.buffer) > MAX_LINE:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return loads(line.decode())
        except (ValueError, TypeError, UnicodeDecodeError):
            return None

    def close(self, grace=5):
        try:  # end of input: the process ends by itself (its CPU time is then counted)
            self.proc.stdin.close()
            self.proc.wait(grace)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        shutil.rmtree(self.runtime, ignore_errors=True)
