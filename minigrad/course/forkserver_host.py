r"""The grading process's side of the fork server (:mod:`minigrad.course.forkserver`).

:class:`minigrad.course.sandbox.SandboxedKernelManager` asks :func:`server_for` for the
grading run's server (one per grading process and ``autograded`` folder, started at the
first kernel) and launches :func:`client_command` as the kernel's command: a small
process that hands its stdio to the server, puts the forked kernel in the submission's
``pids`` cgroup and lives exactly as long as the kernel (killing it kills the kernel).
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

from minigrad.course.forkserver import CLIENT, server_command
from minigrad.course.sandbox import ETC, LAUNCHER, PACKAGE_ROOT, bwrap_args, python_paths

__all__ = ["ForkServer", "server_for", "live_server", "client_command", "fork_root",
           "close_all"]

_SERVERS = {}
_BROKEN = set()  # servers that could not start or fork: not tried again
_SPAWNER = {}  # this process's id: the executor whose one thread starts the servers
_LOCK = threading.Lock()
SYSTEM = {"/", "/tmp", "/usr", "/etc", "/home", "/root", "/var", "/opt"}


def fork_root(cwd):
    """The folder the server binds for ``cwd`` (nbgrader's ``autograded/STUDENT/ASSIGNMENT``:
    the ``autograded`` folder), or None where a kernel should not be forked."""
    if not cwd:
        return None
    root = os.path.dirname(os.path.dirname(os.path.realpath(cwd)))
    return None if root in SYSTEM else root


class ForkServer:
    """One server process in its bubblewrap sandbox, with ``root`` bound writable and its
    kernels' runtime folders under :attr:`kernels`."""

    def __init__(self, bwrap, root, package_dir):
        self.root = root
        self.base = tempfile.mkdtemp(prefix="minigrad-forkserver-")
        self.kernels = os.path.join(self.base, "kernels")
        os.mkdir(self.kernels)
        self.socket = os.path.join(self.base, "server.sock")
        # No limits of its own but core dumps: each forked process lowers its own (a judge's
        # file size may exceed a kernel's, and a hard limit is never raised again).
        cmd = [sys.executable, "-I", "-S", "-c", LAUNCHER, "", "RLIMIT_CORE=0", "--",
               *bwrap_args(shutil.which(bwrap) or bwrap, None, self.base, package_dir,
                           64 * 1024 ** 2, binds=[root], host_proc=True),
               *server_command(self.socket)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
        if self.proc.stdout.readline() != b"ready\n":
            self.close()
            raise RuntimeError("the kernels' fork server did not start")

    def alive(self):
        return self.proc.poll() is None

    def request(self, cwd, runtime, connection_file, limits, tmp_bytes, code=None):
        """The JSON request for one kernel (paths as the server sees them: the same), or,
        with ``code`` (and no folders), for ``python -c code``."""
        import pathlib

        argv = ["-c", code] if code is not None else ["-m", "ipykernel_launcher", "-f",
                                                      connection_file]
        return json.dumps({"argv": argv,
            "cwd": cwd, "runtime": runtime, "connection_file": connection_file,
            "limits": limits, "tmp_bytes": tmp_bytes, "code": code,
            "notebooks": [str(p) for p in sorted(pathlib.Path(cwd).rglob("*.ipynb"))]
            if cwd else [],
            "ro": [f"/etc/{name}" for name in ETC] + python_paths()
            + [f"{PACKAGE_ROOT}/minigrad"]})

    def probe_command(self, limits):
        """The client's command for a confined ``python -c pass``."""
        return client_command(self, self.request(None, None, None, limits, 16 * 1024 ** 2,
                                                 code="pass"), None)

    def probe(self, limits):
        """Whether a confined process forks here (nested user namespaces may be off)."""
        try:
            return subprocess.run(self.probe_command(limits), timeout=60,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  env={"PATH": "/usr/bin:/bin"}).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        shutil.rmtree(self.base, ignore_errors=True)


def server_for(bwrap, root, package_dir, limits):
    """This process's server for ``root`` (started, or restarted if it died), or None where
    none starts or forks a confined process (then kernels start as before). Started from
    one long-lived thread: ``--die-with-parent`` ends the server with the thread that
    started it (jupyter_client starts kernels from a thread of its own)."""
    key = (os.getpid(), bwrap, root)
    with _LOCK:
        server = _SERVERS.get(key)
        if server is None or not server.alive():
            if server is not None:
                server.close()
            if key[0] not in _SPAWNER:
                _SPAWNER.clear()
                _SPAWNER[key[0]] = ThreadPoolExecutor(1, thread_name_prefix="forkserver")
            if key in _BROKEN:
                return None
            try:
                server = _SPAWNER[key[0]].submit(
                    ForkServer, bwrap, root, package_dir).result()
            except (OSError, RuntimeError):
                server = None
            if server is None or not server.probe(limits):
                if server is not None:
                    server.close()
                _BROKEN.add(key)  # each kernel a new Python under bwrap, as before
                return None
            _SERVERS[key] = server
    return server


def live_server(bwrap):
    """A running server of this process (the grading run's), or None."""
    with _LOCK:
        for key, server in _SERVERS.items():
            if key[:2] == (os.getpid(), bwrap) and server.alive():
                return server
    return None


def client_command(server, request, cgroup):
    return [sys.executable, "-I", "-S", "-c", CLIENT, server.socket, request, str(cgroup or "")]


@atexit.register
def close_all():
    """Close this process's kernel servers (at exit; the benchmark times a worker's start)."""
    for key, server in list(_SERVERS.items()):
        if key[0] == os.getpid():
            server.close()
    _SERVERS.clear()
