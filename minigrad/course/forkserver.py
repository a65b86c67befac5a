r"""A fork server for graded kernels (issue 19, item 5): one process per grading run, with
ipykernel, numpy, torch, ``torch._dynamo`` and minigrad imported once, from which each
submission's kernel is forked and then confined.

Used by :class:`minigrad.course.sandbox.SandboxedKernelManager` (every chapter's graded
kernel, chapters 01-16) when ``fork_server`` is on. The server itself runs under bubblewrap
(:func:`minigrad.course.sandbox.bwrap_args`: no network, read-only system) with the grading
run's ``autograded`` folder and its kernels' runtime folders bound in; it never runs a
submission's code. Per submission (the host's client, :data:`CLIENT`, asks over a Unix socket):

1. the server forks ``A`` (a single-threaded fork: torch's pools start at the first parallel
   op, which the server never runs; OpenBLAS stops its thread at fork);
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

A submission changes only its own copy of the server's memory (copy-on-write): modules it
patches, ``sys.modules``, generators. When the client is killed, ``A`` kills ``B`` and with it
the pid namespace; when the grading run ends, the server (``--die-with-parent``) and every
``A`` (``PR_SET_PDEATHSIG``) end too.
"""

import ctypes
import json
import os
import select
import signal
import socket
import sys

__all__ = ["CLIENT", "serve", "PRELOAD"]

PRELOAD = ("numpy", "torch", "torch._dynamo", "torch.nn.functional", "torch.func",
           "torch.optim", "minigrad", "minigrad.course.integrity", "ipykernel.kernelapp",
           "ipykernel.ipkernel", "IPython")

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (0x08000000, 0x10000000,
                                                           0x20000000, 0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
SYS_PIVOT_ROOT, SYS_CAPSET = 155, 126  # x86_64
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")

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

_libc = ctypes.CDLL(None, use_errno=True)
_ENVIRON = {}  # the server's environment before its imports: each kernel's


def _check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _bytes(text):
    return None if text is None else text.encode()


def _mount(source, target, fstype, flags, data=None):
    _check(_libc.mount(_bytes(source), _bytes(target), _bytes(fstype), ctypes.c_ulong(flags),
                       _bytes(data)), f"mount {source} on {target}")


def _prctl(option, value):
    _check(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")


def _drop_capabilities():
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this task
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable, twice: all empty
    _check(_libc.syscall(SYS_CAPSET, header, data), "capset")


def _new_user_namespace(inside):
    """Unshare a user namespace where this process is ``inside`` (its uid and gid)."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER), "unshare user")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{inside} {uid} 1"),
                       ("gid_map", f"{inside} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _place(path, directory):
    if directory:
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.lexists(path):
            open(path, "w").close()


def _bind(new, source, target=None):
    """Bind ``source`` (a path of the server's view) at the same place under ``new``;
    read-only sources stay read-only (their flags are cloned and locked)."""
    target = new + (target or source)
    if os.path.islink(source) and not os.path.isdir(source):
        return _place_link(new, source)
    _place(target, os.path.isdir(source))
    _mount(source, target, None, MS_BIND | MS_REC)


def _place_link(new, source):
    os.makedirs(os.path.dirname(new + source), exist_ok=True)
    os.symlink(os.readlink(source), new + source)


def _build_root(new, request):
    """The submission's root under ``new``: what bwrap_args gives a kernel, nothing else."""
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{name}"
        if os.path.islink(path):
            _place_link(new, path)
        elif os.path.isdir(path):
            _bind(new, path)
    _bind(new, "/usr")
    os.makedirs(new + "/tmp")
    _mount("tmpfs", new + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
           f"size={request['tmp_bytes']},mode=0755")
    for path in request["ro"]:  # /etc files, the Python installation, minigrad
        if os.path.lexists(path):
            _bind(new, path)
    os.makedirs(new + "/proc")
    os.makedirs(new + "/dev")
    _mount("tmpfs", new + "/dev", "tmpfs", MS_NOSUID, "mode=0755")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            _bind(new, f"/dev/{name}")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
                         ("core", "/proc/kcore"), ("ptmx", "pts/ptmx")):
        os.symlink(target, f"{new}/dev/{name}")
    os.makedirs(new + "/dev/shm")
    os.makedirs(new + "/dev/pts")
    for folder in (request["runtime"], request["cwd"]):  # None for a verdict's judge
        if folder:
            _bind(new, folder)
    for notebook in request["notebooks"]:  # as bwrap's --ro-bind /dev/null: unreadable
        _mount("/dev/null", new + notebook, None, MS_BIND)
        _mount(None, new + notebook, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID
               | MS_NODEV)


def _enter_root(new):
    """Pivot into ``new``, detach the old root, make the new one read-only."""
    os.chdir(new)
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _set_cmdline(args):
    """This process's ``/proc/PID/cmdline`` (the server's, padded to leave room): a kernel
    shows the command a new one would have, not the server's."""
    fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48, 49)
    data = b"\0".join(arg.encode() for arg in args) + b"\0"
    with open("/proc/self/mem", "r+b", buffering=0) as f:
        f.seek(start)
        f.write(data[:end - start].ljust(end - start, b"\0"))


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
    import runpy

    os.setsid()
    _new_user_namespace(1000)
    _drop_capabilities()
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    for item in request["limits"]:
        name, value = item.split("=")
        resource.setrlimit(getattr(resource, name), (int(value), int(value)))
    _set_cmdline([sys.executable, *request["argv"]])
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    os.environ.clear()  # without what the preloaded imports set (TORCHINDUCTOR_CACHE_DIR)
    os.environ.update(_ENVIRON)
    _reseed()
    code = 0
    try:
        if request.get("code") is None:
            os.chdir(request["cwd"])
            sys.path[0] = request["cwd"]  # python -m puts its working folder first
            sys.argv = ["-m", "-f", request["connection_file"]]
            runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
        else:  # as python -c CODE (a verdict's judge)
            os.chdir("/tmp")
            sys.path[0], sys.argv = "", ["-c"]
            main = sys.modules["__main__"] = type(sys)("__main__")
            exec(compile(request["code"], "<string>", "exec"), main.__dict__)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - as an uncaught exception ends python
        import traceback

        traceback.print_exc()
        code = 1
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _run(step, *args):
    """``step(*args)`` in a forked process, which it never leaves: a failure is printed
    to the server's stderr (the grading run's log) and ends the process."""
    try:
        step(*args)
    except BaseException:  # noqa: BLE001 - nothing may return into the server's loop
        import traceback

        traceback.print_exc()
    finally:
        os._exit(70)


def _init(request, fds):
    """``B``: pid 1 of the submission's pid namespace."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _set_cmdline(["minigrad-sandbox-init"])
    new = request["root"]
    _mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _enter_root(new)
    kernel = os.fork()
    if kernel == 0:
        _run(_kernel, request, fds)
    _prctl(PR_SET_DUMPABLE, 0)
    _drop_capabilities()
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
    """``A``: between the client and the submission's pid namespace."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message.decode())
    conn.sendall(b"pid\n")
    if conn.recv(3) != b"go\n":
        os._exit(70)
    _new_user_namespace(0)  # root there, for the mounts; the kernel drops it
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                         CLONE_NEWUTS | CLONE_NEWCGROUP), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    request["root"] = root = f"/tmp/.root-{os.getpid()}"
    os.mkdir(root)
    _build_root(root, request)
    init = os.fork()
    if init == 0:
        conn.close()
        _run(_init, request, fds)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(init)
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLRDHUP | select.POLLHUP)
    poller.register(pidfd, select.POLLIN)
    while True:
        events = dict(poller.poll())
        if pidfd in events:
            _, status = os.waitpid(init, 0)
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(f"exit {code if code >= 0 else 128 - code}\n".encode())
            except OSError:
                pass
            os._exit(0)
        if conn.fileno() in events:  # the client was killed: so is the kernel
            os.kill(init, signal.SIGKILL)
            os.waitpid(init, 0)
            os._exit(0)


def serve(path):
    """The server's loop: preload, listen on ``path``, fork ``A`` per connection; end at
    the end of stdin (the grading run closed it or died)."""
    import importlib

    _ENVIRON.update(os.environ)
    for name in PRELOAD:
        importlib.import_module(name)
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


if __name__ == "__main__":
    serve(sys.argv[1])  # sys.argv[2]: room for a forked process's command line
