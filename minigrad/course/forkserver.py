r"""A fork server for graded kernels (issue 19, item 5): one process per grading run, with
ipykernel, numpy, torch, ``torch._dynamo`` and minigrad imported once, from which each
submission's kernel is forked and then confined.

Used by :class:`minigrad.course.sandbox.SandboxedKernelManager` (every chapter's graded
kernel, chapters 01-16) when ``fork_server`` is on. The server itself runs under bubblewrap
(:func:`minigrad.course.sandbox.bwrap_args`: no network, read-only system) with the grading
run's ``autograded`` folder and its kernels' runtime folders bound in; it never runs a
submission's code. Per submission (the host's client, :data:`CLIENT`, asks over a Unix socket):

1. the server (its imports done, their objects frozen out of the collector's sight) forks
   ``A`` (a single-threaded fork: torch's pools start at the first parallel op, which the
   server never runs; OpenBLAS stops its thread at fork);
2. ``A`` reports itself to the client (its pid, translated by ``SO_PASSCRED``), which puts it
   in the submission's ``pids`` cgroup, then makes new user, mount, pid, network, ipc, uts
   and cgroup namespaces, and builds a fresh root on a tmpfs holding only what bwrap would
   mount: ``/usr``, a few ``/etc`` files, the Python installation, minigrad, a private
   ``/tmp`` and ``/dev``, the submission's runtime folder and its own submission folder
   (writable; its notebooks read as empty files);
3. ``B``, pid 1 of the new pid namespace, mounts its ``/proc``, pivots into the new root and
   detaches the old one (nothing of the server, of the other submissions or of the course
   is left in its mount tree), remounts the root read-only, forks the kernel ``C``, drops
   its capabilities and reaps;
4. ``C`` (pid 2, as under bwrap) makes a second user namespace where it is uid 1000 with no
   capabilities and ``no_new_privs``, sets the resource limits, takes the client's stdio,
   closes every other descriptor, takes the environment the server had before its imports,
   re-seeds what a fresh process seeds (``random``, numpy's global state and torch's
   generator from the OS; minigrad's at its fixed default),
   and runs ``ipykernel_launcher`` as ``python -m`` would, in its submission folder.

Started with ``plain`` (:mod:`minigrad.course.lab_kernels`: JupyterLab's and nbval's
kernels), the server runs unconfined as the learner and forks each kernel straight from
``A`` (:func:`_plain_kernel`): no namespaces, in the notebook's folder, with the
environment Jupyter gives the kernel.

A submission changes only its own copy of the server's memory (copy-on-write): modules it
patches, ``sys.modules``, generators. When the client is killed, ``A`` kills ``B`` and with it
the pid namespace; when the grading run ends, the server (``--die-with-parent``) and every
``A`` (``PR_SET_PDEATHSIG``) end too.
"""

import json
import os
import select
import signal
import socket
import sys

from minigrad.course.forkserver_confine import (
    CLONE_NEWCGROUP,
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUTS,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_REC,
    PR_SET_DUMPABLE,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
    build_root,
    check,
    drop_capabilities,
    enter_root,
    libc,
    mount,
    new_user_namespace,
    prctl,
    set_cmdline,
)

__all__ = ["CLIENT", "serve", "listen", "PRELOAD", "ROOM", "server_command"]

ROOM = "#" * 2048  # room for a forked process's command line (set_cmdline writes over it)


def server_command(path, *mode):
    """The server's command (its socket at ``path``; ``"plain"`` for JupyterLab's and
    nbval's kernels), for :mod:`minigrad.course.forkserver_host` and
    :mod:`minigrad.course.lab_kernels`."""
    return [sys.executable, "-c", "from minigrad.course.forkserver import main; main()",
            path, ROOM, *mode]


PRELOAD = ("numpy", "torch", "torch._dynamo", "torch.nn.functional", "torch.func",
           "torch.optim", "torch._decomp.decompositions_for_jvp", "minigrad",
           "minigrad.course.integrity", "ipykernel.kernelapp", "ipykernel.ipkernel", "IPython",
           "matplotlib", "matplotlib.pyplot")
# (decompositions_for_jvp: what forward mode imports at its first use, 0.26 s a kernel of
# chapters 14-16)
# What IPKernelApp.initialize imports in every kernel, new or forked (its debugger, debugpy's
# pydevd, psutil, sqlite3 for the history, pdb...): 0.25 s a kernel. What these imports put
# in os.environ, a new kernel's init puts there too: kept in the kernels' environment.
KERNEL_INIT = ("ipykernel.debugger", "debugpy.server.api", "ipykernel.zmqshell", "psutil",
               "sqlite3", "pdb", "IPython.core.completerlib", "IPython.extensions.storemagic",
               "xmlrpc.server", "http.server", "tornado.queues", "tornado.platform.asyncio")
# What ipykernel sets before any cell when it is unset: matplotlib reads it at its import
# (the server's), then the backend itself loads in the kernel, at its first figure, as in
# a new kernel (every chapter's first cell imports pyplot: 0.6 s a kernel, the font list
# built again in each kernel's empty MPLCONFIGDIR)
INLINE = "module://matplotlib_inline.backend_inline"

# The host's side, as the kernel's command: send the request with this process's stdio, put
# the forked process in the cgroup, say go, then wait for the kernel's exit status.
CLIENT = r"""
import os, socket, struct, sys
path, request, cgroup = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.connect(path)
socket.send_fds(s, [request.encode() + b"\n"], [0, 1, 2])
data, ancillary, _, _ = s.recvmsg(64, socket.CMSG_SPACE(12))
pids = [struct.unpack("iII", d[:12])[0] for level, kind, d in ancillary
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS]
if data != b"pid\n" or not pids:
    sys.exit(70)
if cgroup:
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(pids[0]))
s.sendall(b"go\n")
buffer = b""
while b"\n" not in buffer:
    chunk = s.recv(64)
    if not chunk:
        sys.exit(70)
    buffer += chunk
sys.exit(int(buffer.split()[1]))
"""

_ENVIRON = {}  # the server's environment before its imports: each kernel's
_INIT_ENVIRON = {}  # what KERNEL_INIT's imports put there: a plain kernel's too
_PLAIN = False  # True in a server started with ``plain``


def _reseed():
    """What a fresh interpreter's generators hold (a test compares the draws)."""
    import random

    random.seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    if "torch" in sys.modules:  # a new process seeds torch from the OS too
        sys.modules["torch"].seed()
    if "minigrad.factories" in sys.modules:
        factories = sys.modules["minigrad.factories"]
        factories.GENERATOR[0] = sys.modules["numpy"].random.default_rng(0)


def _kernel(request, fds):
    """``C``: confined further, then ipykernel, as ``python -m ipykernel_launcher -f F``."""
    import resource

    if not request.get("init_session"):
        os.setsid()
    new_user_namespace(1000)
    drop_capabilities()
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    for item in request["limits"]:
        name, value = item.split("=")
        resource.setrlimit(getattr(resource, name), (int(value), int(value)))
    # without what the preloaded imports set (TORCHINDUCTOR_CACHE_DIR)
    _become_kernel(request, fds, _ENVIRON)


def _plain_kernel(request, fds):
    """``C`` of a plain server: ipykernel, as ``python -m ipykernel_launcher -f F`` run by
    Jupyter in ``request["cwd"]`` with ``request["env"]``; it ends with ``A``."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setsid()  # as Jupyter starts a kernel: a session of its own
    _become_kernel(request, fds, {**_INIT_ENVIRON, **request["env"]})


def _become_kernel(request, fds, environ):
    """The last steps of either ``C``: the kernel's command line, the client's stdio and
    nothing else open, default signals, ``environ`` as its environment, fresh seeds; then
    up to :func:`main`, which runs the kernel."""
    set_cmdline([sys.executable, *request["argv"]])
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(environ)
    _reseed()
    raise _Become(request)  # run from main()'s frame: as deep as a new process's code


class _Become(BaseException):
    """Raised in ``C`` once confined: it unwinds the server's frames up to :func:`main`,
    which runs the kernel there, so a cell's code runs as deep in the stack as in a new
    ``python -m ipykernel_launcher`` (a recursion demo counts the same frames)."""

    def __init__(self, request):
        super().__init__()
        self.request = request


def _finish(code):
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _main_module(request):
    """``__main__``, ``sys.argv`` and the folder as ``python -m ipykernel_launcher -f F``
    (or ``python -c CODE``) set them; the code to run."""
    import importlib.util

    main = type(sys)("__main__")
    if request.get("code") is None:
        os.chdir(request["cwd"])
        spec = importlib.util.find_spec("ipykernel_launcher")
        sys.path[0] = request["cwd"]  # python -m puts its working folder first
        sys.argv = [spec.origin, "-f", request["connection_file"]]
        main.__dict__.update(__file__=spec.origin, __cached__=spec.cached, __package__="",
                             __loader__=spec.loader, __spec__=spec)
        code = spec.loader.get_code("ipykernel_launcher")
    else:  # as python -c CODE (a verdict's judge)
        os.chdir("/tmp")
        sys.path[0], sys.argv = "", ["-c"]
        code = compile(request["code"], "<string>", "exec")
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    return main, code


def _run(step, *args):
    """``step(*args)`` in a forked process, which it never leaves: a failure is printed
    to the server's stderr (the grading run's log) and ends the process."""
    try:
        step(*args)
    except _Become:
        raise  # the kernel, on its way up to main()
    except BaseException:  # noqa: BLE001 - nothing may return into the server's loop
        import traceback

        traceback.print_exc()
    os._exit(70)


def _init(request, fds):
    """``B``: pid 1 of the submission's pid namespace."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    set_cmdline(["minigrad-sandbox-init"])
    new = request["root"]
    mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    enter_root(new)
    if request.get("init_session"):  # a learner's: pid 1 leads the session, as bwrap's init
        os.setsid()
    kernel = os.fork()
    if kernel == 0:
        _run(_kernel, request, fds)
    prctl(PR_SET_DUMPABLE, 0)
    drop_capabilities()
    for fd in fds:
        os.close(fd)
    while True:  # reap, as bwrap's init does, until the kernel ends
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(70)
        if pid == kernel:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _submission(conn):
    """``A``: between the client and the submission's pid namespace (a plain server's:
    its kernel)."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message.decode())
    conn.sendall(b"pid\n")
    if conn.recv(3) != b"go\n":
        os._exit(70)
    if _PLAIN:
        _fork_and_relay(conn, _plain_kernel, request, fds)
    new_user_namespace(0)  # root there, for the mounts; the kernel drops it
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                         CLONE_NEWUTS | CLONE_NEWCGROUP), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    request["root"] = root = f"/tmp/.root-{os.getpid()}"
    os.mkdir(root)
    build_root(root, request)
    _fork_and_relay(conn, _init, request, fds)


def _fork_and_relay(conn, step, request, fds):
    """``A`` forks ``step(request, fds)`` (``B``, or a plain server's kernel), then waits
    until it ends (its exit status goes to the client) or the client is killed (so is
    the child)."""
    child = os.fork()
    if child == 0:
        conn.close()
        _run(step, request, fds)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(child)
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLRDHUP | select.POLLHUP)
    poller.register(pidfd, select.POLLIN)
    while True:
        events = dict(poller.poll())
        if pidfd in events:
            _, status = os.waitpid(child, 0)
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(f"exit {code if code >= 0 else 128 - code}\n".encode())
            except OSError:
                pass
            os._exit(0)
        if conn.fileno() in events:  # the client was killed: so is the kernel
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            os._exit(0)


def serve(path, plain=False):
    """The server's loop: preload, listen on ``path``, fork ``A`` per connection; end at
    the end of stdin (the grading run, or JupyterLab, closed it or died). ``plain``: every
    kernel unconfined (:func:`_plain_kernel`)."""
    import gc
    import importlib

    global _PLAIN
    _PLAIN = plain
    _ENVIRON.update(os.environ)
    os.environ.setdefault("MPLBACKEND", INLINE)
    # pydevd's warning on frozen modules at its import (each new kernel's stderr): not in
    # the grading log
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    for name in PRELOAD:
        importlib.import_module(name)
    before = dict(os.environ)
    for name in KERNEL_INIT:
        importlib.import_module(name)
    _INIT_ENVIRON.update({k: v for k, v in os.environ.items() if before.get(k) != v})
    _ENVIRON.update(_INIT_ENVIRON)
    _warm()
    # Every object the imports made, out of the collector's sight (Python's advice for a
    # server that forks without exec): a kernel's collections, the full one IPython runs at
    # its exit among them (0.2 s a kernel), walk only what the kernel made. What it hides:
    # those objects from gc.get_objects() and gc.get_referrers() in a kernel.
    gc.collect()
    gc.freeze()
    listen(path)


def _warm():
    """What a kernel builds at its first highlighted source and traceback, built once here
    for all of them: pygments' Python rules (0.03 s), and tracebacks at about half their
    cost (:mod:`minigrad.course.fast_tracebacks`). Not matplotlib's mathtext parser: it
    keeps its font files open, and a kernel closes every descriptor it inherits (tried:
    the kernel died at its second figure with a formula)."""
    from pygments.lexers import PythonLexer

    from minigrad.course import fast_tracebacks

    PythonLexer()
    fast_tracebacks.install()


def listen(path):
    """Listen on ``path`` and fork ``A`` per connection until the end of stdin (the kernels'
    server and the learners' one, :mod:`minigrad.course.forkserver_learner`)."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # every A is reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    os.write(1, b"ready\n")
    while True:
        ready, _, _ = select.select([0, listener], [], [])
        if 0 in ready and not os.read(0, 4096):
            return
        if listener in ready:
            conn, _ = listener.accept()
            pid = os.fork()
            if pid == 0:
                listener.close()
                _run(_submission, conn)
            conn.close()


def main():
    """The server (``python -c "from minigrad.course.forkserver import main; main()" PATH
    ROOM [plain]``: ROOM is room for a forked process's command line); in a forked kernel,
    the kernel, run right here, two frames deep as ``python -m``'s ``runpy`` runs a module."""
    try:
        serve(sys.argv[1], plain=sys.argv[3:4] == ["plain"])
        return
    except _Become as become:  # C, confined: leave the except block (no exception context)
        request = become.request
    main, code = _main_module(request)
    del request
    status = 0
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - as an uncaught exception ends python
        import traceback

        traceback.print_exc()
        status = 1
    _finish(status)
