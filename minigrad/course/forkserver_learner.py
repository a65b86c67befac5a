r"""A fork server for the learner's processes of the verdicts (issue 19, item 5: grading
speed): one per process that decides verdicts (:mod:`minigrad.course.verdicts`, every
converted chapter), started at its first learner process.

A learner process started anew (:data:`minigrad.course.verdicts.BOOT`: ``python -I -S``
under bubblewrap, no minigrad mounted) spends most of its CPU on Python's start, numpy and
minigrad's import. The server does that part once, exactly as such a process does it
(:func:`minigrad.course.verdicts_learner.prepare`: the import blocker, minigrad's source
written to its private ``/tmp``, imported whole, deleted) and nothing else (no torch, no
ipykernel, no exercise). Per learner process it forks a child confined as the kernels'
fork server confines a kernel (:mod:`minigrad.course.forkserver`: new namespaces, a fresh
root without minigrad's folder, uid 1000, no capabilities, ``no_new_privs``, the
:class:`~minigrad.course.verdicts_process.Process`'s limits, the client's stdio and no
other descriptor, killed with the client), which drops the server's own modules from
``sys.modules``, reads its setup message (without ``"files"``) and runs
:func:`minigrad.course.verdicts_learner.exercise`, as a new process would.
"""

import json
import os
import sys

__all__ = ["LearnerServer", "learner_server", "SERVER", "ENABLED", "close_all"]

# Off with MINIGRAD_LEARNER_FORKS=0: every learner process a new Python, as before.
ENABLED = os.environ.get("MINIGRAD_LEARNER_FORKS", "1") != "0"
OWN = ("minigrad/course/forkserver.py", "minigrad/course/forkserver_confine.py",
       "minigrad/course/forkserver_learner.py")

# python -I -S -c SERVER PADDING, under bwrap (PADDING: room for a child's command line).
# A child leaves serve() by forkserver._Become, here, at the depth of BOOT's own calls.
SERVER = r"""
import json, os, sys
environ = dict(os.environ)
setup = b""
while not setup.endswith(b"\n"):
    chunk = os.read(0, 1 << 20)
    if not chunk:
        raise SystemExit(70)
    setup += chunk
setup = json.loads(setup)
root = "/tmp/verdict-pkg"
for rel, text in setup.pop("files").items():
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
del rel, text, path, f  # as BOOT
sys.path[:0] = [root]
sys.path += setup.pop("site")
from minigrad.course.verdicts_learner import prepare, exercise
added = prepare(root, also=("minigrad.course.forkserver_learner",
                            "minigrad.course.forkserver"))
from minigrad.course.forkserver import _Become
from minigrad.course.forkserver_learner import serve
try:
    serve(setup["socket"], environ)
    raise SystemExit(0)
except _Become:
    pass
sys.argv = ["-c"]
os.chdir("/tmp")  # bwrap's default: the HOME it sets
[sys.modules.pop(name, None) for name in added]  # __main__ keeps BOOT's names only
del _Become, serve, added, environ, chunk
setup = sys.stdin.readline()
if not setup:  # the probe
    raise SystemExit(0)
setup = json.loads(setup)
exercise(setup)
"""


def serve(path, environ):
    """The server's side: fork a confined learner per connection on ``path`` (the kernels'
    ``A``, ``B``, ``C``), each with ``environ``, the server's environment at its start."""
    from minigrad.course import forkserver

    forkserver._ENVIRON.update(environ)
    forkserver.listen(path)


class LearnerServer:
    """The server process in its bubblewrap sandbox, as a learner process's own."""

    def __init__(self, bwrap, files, site):
        import subprocess
        import tempfile

        from minigrad.course.sandbox import LAUNCHER, bwrap_args

        self.base = tempfile.mkdtemp(prefix="minigrad-learners-")
        self.socket = os.path.join(self.base, "server.sock")
        cmd = [sys.executable, "-I", "-S", "-c", LAUNCHER, "", "RLIMIT_CORE=0", "--",
               *bwrap_args(bwrap, None, self.base, None, 64 * 1024 ** 2, host_proc=True),
               sys.executable, "-I", "-S", "-c", SERVER, "#" * 2048]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
        try:
            self.proc.stdin.write(json.dumps({"files": files, "site": site,
                                              "socket": self.socket}).encode() + b"\n")
            self.proc.stdin.flush()
            ready = self.proc.stdout.readline() == b"ready\n"
        except OSError:
            ready = False
        if not ready:
            self.close()
            raise RuntimeError("the learners' fork server did not start")

    def alive(self):
        return self.proc.poll() is None

    def request(self, argv, limits, tmp_bytes):
        """One learner's request: its root holds what bwrap gives a learner process."""
        from minigrad.course.sandbox import ETC, python_paths

        return json.dumps({"argv": argv, "cwd": None, "runtime": None,
                           "connection_file": None, "limits": limits,
                           "tmp_bytes": tmp_bytes, "code": None, "notebooks": [],
                           "init_session": True,
                           "ro": [f"/etc/{name}" for name in ETC] + python_paths()})

    def command(self, argv, limits, tmp_bytes):
        from minigrad.course.forkserver_host import client_command

        return client_command(self, self.request(argv, limits, tmp_bytes), None)

    def probe_command(self, limits):
        return self.command(["-c", "pass"], limits, 16 * 1024 ** 2)

    def probe(self, limits):
        """Whether a confined learner forks here (nested user namespaces may be off): the
        kernels' server's probe, with this server's command."""
        from minigrad.course.forkserver_host import ForkServer

        return ForkServer.probe(self, limits)

    def close(self):
        from minigrad.course.forkserver_host import ForkServer

        ForkServer.close(self)


_SERVERS = {}
_BROKEN = set()


def _files():
    import pathlib

    from minigrad.course.verdicts import _package_files

    files = _package_files()
    top = pathlib.Path(__file__).resolve().parents[2]
    for rel in OWN:
        files[rel] = (top / rel).read_text()
    return files


def learner_server(bwrap, limits):
    """This process's learners' server (started, or restarted if it died), or None where
    none starts or forks a confined learner (then each is a new Python, as before).
    Started from the kernels' server's long-lived thread (``--die-with-parent``)."""
    import sysconfig

    from minigrad.course import forkserver_host as host

    if not ENABLED:
        return None
    key = (os.getpid(), bwrap)
    with host._LOCK:
        server = _SERVERS.get(key)
        if server is not None and server.alive():
            return server
        if server is not None:
            server.close()
        if key in _BROKEN:
            return None
        if key[0] not in host._SPAWNER:
            host._SPAWNER.clear()
            host._SPAWNER[key[0]] = host.ThreadPoolExecutor(
                1, thread_name_prefix="forkserver")
        site = sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")})
        try:
            server = host._SPAWNER[key[0]].submit(LearnerServer, bwrap, _files(),
                                                  site).result()
        except (OSError, RuntimeError):
            server = None
        if server is None or not server.probe(limits):
            if server is not None:
                server.close()
            _BROKEN.add(key)
            return None
        _SERVERS[key] = server
    return server


def close_all():
    """Close this process's learner servers (at exit; the benchmark times a worker's start)."""
    # Its own loop: this module runs in learners' processes too, where forkserver_host
    # (the grader's side, verdicts_learner.HOST_ONLY) cannot be imported.
    for key, server in list(_SERVERS.items()):
        if key[0] == os.getpid():
            server.close()
    _SERVERS.clear()


__import__("atexit").register(close_all)
