r"""A sandbox per submission for ``nbgrader autograde``: each kernel runs under bubblewrap.

Used by :class:`minigrad.course.nbgrader_plugins.GuardedExecute` (the course's
``instructor/nbgrader_config.py``), so the plain ``nbgrader autograde`` an instructor runs
grades every chapter's submission (chapters 01-16) in a sandbox of its own.

:class:`SandboxedKernelManager` is jupyter_client's ``AsyncKernelManager`` with its kernel
command wrapped: a launcher joins a fresh ``pids`` cgroup (when one can be made), sets
resource limits, closes every inherited file descriptor (the gradebook's among them) and
execs ``bwrap``. Inside, the kernel sees

- its submission folder (the only writable host path; its notebooks, which hold the
  chapter's hidden tests once nbgrader restored them, read as empty files) and a private
  directory holding its connection file and ZeroMQ ``ipc`` sockets (Unix sockets cross
  the network namespace, TCP on loopback would not);
- read-only: ``/usr`` (and the ``/bin``, ``/lib*`` links into it), a few files of
  ``/etc``, the Python installation and venv of the grader, and the ``minigrad`` package
  directory alone (mounted under ``/opt/minigrad``; not the repository around it, whose
  ``notebooks/`` and ``tests/`` hold the solutions);
- a private ``/tmp`` (the ``HOME``), ``/proc`` of its own pid namespace, a minimal ``/dev``.

No network at all (not even loopback), its own pid, ipc and uts namespaces, no
capabilities, a new session; every process it starts ends with it (``--die-with-parent``,
pid namespace); memory (``RLIMIT_AS``), CPU time, file size and processes are capped.

With ``fork_server`` (the default), a kernel started in nbgrader's
``autograded/STUDENT/ASSIGNMENT`` is not a new Python: it is forked from the grading run's
server (:mod:`minigrad.course.forkserver`, ipykernel, torch and minigrad imported once) and
confined as above by the fork itself (namespaces and a fresh root of the same mounts);
where that server cannot start or fork, kernels start under bwrap as described.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import weakref

from jupyter_client import AsyncKernelManager
from traitlets import Bool, Integer, Unicode, default

__all__ = ["SandboxedKernelManager", "SandboxUnavailable", "sandbox_problem", "UNAVAILABLE"]

GiB = 1024 ** 3
UNAVAILABLE = ("cannot grade in a sandbox: {reason}. Fix: install bubblewrap "
               "(`apt-get install bubblewrap`; user namespaces must be enabled), or, to grade "
               "WITHOUT a sandbox (each submission can then read the solutions, the gradebook "
               "and the other submissions), pass --GuardedExecute.allow_unsandboxed=True.")
# Variables the kernel inherits from the grader (threads, locale, BLAS workarounds);
# nothing else (tokens, paths of the course) crosses into the sandbox.
PASSED_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
              "OPENBLAS_L2_SIZE", "LANG", "LC_ALL", "TZ", "PYTHONHASHSEED", "MPLBACKEND")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd",
       "group", "alternatives", "fonts", "mime.types", "ssl/openssl.cnf", "os-release")
PACKAGE_ROOT = "/opt/minigrad"

# Runs on the host as the kernel's first process: join the cgroup, set the limits, close
# every inherited descriptor (jupyter_client launches with close_fds=False), exec bwrap.
LAUNCHER = r"""
import os, resource, sys
spec = sys.argv[1:sys.argv.index("--")]
cmd = sys.argv[sys.argv.index("--") + 1:]
cgroup, limits = spec[0], spec[1:]
if cgroup:
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
for item in limits:
    name, value = item.split("=")
    resource.setrlimit(getattr(resource, name), (int(value), int(value)))
os.closerange(3, os.sysconf("SC_OPEN_MAX"))
os.execvp(cmd[0], cmd)
"""


class SandboxUnavailable(RuntimeError):
    """No sandbox can be made here, and unsandboxed grading was not allowed."""


def _probe(bwrap):
    """None if ``bwrap`` can make the sandbox's namespaces here, else the reason."""
    path = shutil.which(bwrap)
    if path is None:
        return f"bubblewrap's `{bwrap}` is not on PATH"
    try:
        result = subprocess.run(
            [path, "--unshare-all", "--unshare-user", "--uid", "1000", "--die-with-parent",
             "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"`{path}` does not run ({exc})"
    if result.returncode != 0:
        return f"`{path}` cannot make namespaces here ({result.stderr.strip()[:200]})"
    return None


_PROBED = {}


def sandbox_problem(bwrap="bwrap"):
    """Why no sandbox can be made with ``bwrap`` (None when it can); cached per binary."""
    if bwrap not in _PROBED:
        _PROBED[bwrap] = _probe(bwrap)
    return _PROBED[bwrap]


def _own_cgroup(controller_root, name):
    """This process's cgroup folder under a mounted hierarchy, or None."""
    try:
        lines = pathlib.Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == name:
            return pathlib.Path(controller_root) / path.lstrip("/")
    return None


def make_pids_cgroup(pids_max):
    """A new cgroup capped at ``pids_max`` tasks (v1 ``pids`` or v2), or None if none can be."""
    candidates = [_own_cgroup("/sys/fs/cgroup/pids", "pids"),
                  _own_cgroup("/sys/fs/cgroup", ""), _own_cgroup("/sys/fs/cgroup/unified", "")]
    for parent in candidates:
        if parent is None or not (parent / "pids.max").exists() and \
                not (parent / "cgroup.procs").exists():
            continue
        try:
            folder = pathlib.Path(tempfile.mkdtemp(prefix="minigrad-sandbox-", dir=parent))
        except OSError:
            continue
        try:
            (folder / "pids.max").write_text(str(pids_max))
            return folder
        except OSError:
            remove_cgroup(folder)
    return None


def remove_cgroup(folder):
    """Kill what is left in a sandbox's cgroup and remove it (best effort)."""
    if folder is None or not folder.exists():
        return
    for _ in range(200):  # up to 10 s: a pid namespace ends slowly on a loaded machine
        try:
            pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        try:
            folder.rmdir()
            return
        except OSError:
            time.sleep(0.05)


def _mounts(paths):
    """bwrap arguments that bind each existing path read-only at its own place."""
    args = []
    for path in paths:
        if os.path.lexists(path):
            args += ["--ro-bind", path, path]
    return args


def python_paths():
    """The folders the grader's Python needs: its installation and its venv."""
    folders = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix,
                                             sysconfig.get_paths()["purelib"])}
    folders.add(sys.prefix)  # the venv's own path (its bin/python is a symlink)
    return sorted(folders)


def bwrap_args(bwrap, cwd, runtime_dir, package_dir, tmp_bytes, uid=1000, binds=(),
               host_proc=False):
    """The ``bwrap`` command line before the kernel's own command (``package_dir`` None:
    no minigrad mounted, as for the learner's process of :mod:`minigrad.course.verdicts`;
    ``binds``: more writable folders, as the fork server's ``autograded`` folder;
    ``host_proc``: the host's ``/proc`` instead of a new one, for the fork server, whose
    forked kernels can mount their own only where a ``/proc`` is fully visible)."""
    args = [bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--uid", str(uid), "--gid", str(uid), "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{link}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    # The private /tmp first: the binds below may lie under /tmp (a clone in /tmp/..., its
    # venv, pytest's course folders) and must sit on top of it, not be hidden by it.
    args += ["--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    args += _mounts([f"/etc/{name}" for name in ETC])
    args += _mounts(python_paths())
    if package_dir:
        args += ["--ro-bind", package_dir, f"{PACKAGE_ROOT}/minigrad"]
    args += ["--bind", "/proc", "/proc"] if host_proc else ["--proc", "/proc"]
    args += ["--dev", "/dev", "--bind", runtime_dir, runtime_dir]
    for folder in binds:
        args += ["--bind", folder, folder]
    if cwd:
        args += ["--bind", cwd, cwd, "--chdir", cwd]
        # The notebook being graded already holds the chapter's hidden tests (nbgrader
        # restores the test cells before it runs): the kernel reads none of it.
        for notebook in sorted(pathlib.Path(cwd).rglob("*.ipynb")):
            args += ["--ro-bind", "/dev/null", str(notebook)]
    else:  # not the grader's own folder (bwrap's default where that path exists inside)
        args += ["--chdir", "/tmp"]
    args += ["--remount-ro", "/"]  # the sandbox's own root: no unbounded writable tmpfs
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.update(HOME="/tmp", PATH=os.pathsep.join([os.path.join(sys.prefix, "bin"),
                                                   "/usr/local/bin", "/usr/bin", "/bin"]),
               PYTHONPATH=PACKAGE_ROOT, PYTHONDONTWRITEBYTECODE="1", MPLCONFIGDIR="/tmp/mpl",
               JPY_PARENT_PID="1")  # pid 1 is bwrap's init: ipykernel polls no parent
    args.append("--clearenv")
    for name, value in sorted(env.items()):
        args += ["--setenv", name, value]
    return args + ["--"]


class SandboxedKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager, with every kernel started in a bubblewrap sandbox."""

    bwrap = Unicode("bwrap", help="The bubblewrap binary.").tag(config=True)
    memory_limit = Integer(6 * GiB, help="RLIMIT_AS of the kernel, in bytes (torch maps "
                           "about 1 GiB of address space at import).").tag(config=True)
    cpu_limit = Integer(900, help="RLIMIT_CPU of each process, in seconds.").tag(config=True)
    file_size_limit = Integer(256 * 1024 ** 2, help="RLIMIT_FSIZE in bytes.").tag(config=True)
    tmp_size = Integer(512 * 1024 ** 2, help="Size of the private /tmp.").tag(config=True)
    max_processes = Integer(128, help="Tasks (processes and threads) the sandbox may hold at "
                            "once: a cgroup's pids.max, else RLIMIT_NPROC.").tag(config=True)

    fork_server = Bool(True, help="Fork each kernel from the grading run's server, which "
                       "has ipykernel, torch and minigrad imported (minigrad.course.forkserver), "
                       "instead of starting a new Python a submission.").tag(config=True)

    @default("transport")
    def _transport_default(self):
        return "ipc"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.runtime_dir = tempfile.mkdtemp(prefix="minigrad-kernel-")
        weakref.finalize(self, shutil.rmtree, self.runtime_dir, True)
        self.connection_file = os.path.join(self.runtime_dir, "kernel.json")
        self.ip = os.path.join(self.runtime_dir, "kernel-ipc")
        self.cgroup = None

    def _forkable(self, cwd):
        """The fork server's root for a kernel started in ``cwd``, or None."""
        from minigrad.course.forkserver_host import fork_root

        return fork_root(cwd) if self.fork_server else None

    async def _async_pre_start_kernel(self, **kw):
        import minigrad

        package_dir = os.path.dirname(os.path.realpath(minigrad.__file__))
        root = self._forkable(kw.get("cwd"))
        server = None
        if root is not None:  # its runtime folder where the server can reach it
            from minigrad.course.forkserver_host import server_for

            server = server_for(shutil.which(self.bwrap) or self.bwrap, root, package_dir,
                                self.limits(nproc=False))
        if server is not None:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
            self.runtime_dir = tempfile.mkdtemp(prefix="minigrad-kernel-", dir=server.kernels)
            weakref.finalize(self, shutil.rmtree, self.runtime_dir, True)
            self.connection_file = os.path.join(self.runtime_dir, "kernel.json")
            self.ip = os.path.join(self.runtime_dir, "kernel-ipc")
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)

        # Interrupt with a message on the control channel: a SIGINT to bwrap would kill it.
        self.kernel_spec.interrupt_mode = "message"
        cwd = kw.get("cwd")
        cwd = os.path.realpath(cwd) if cwd else None
        remove_cgroup(self.cgroup)
        self.cgroup = make_pids_cgroup(self.max_processes)
        if self.cgroup is not None:  # also at exit, should nbclient never clean this kernel up
            weakref.finalize(self, remove_cgroup, self.cgroup)
        limits = self.limits(nproc=self.cgroup is None)
        kw["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if server is not None and kernel_cmd[1:4] == ["-m", "ipykernel_launcher", "-f"]:
            from minigrad.course.forkserver_host import client_command

            request = server.request(cwd, self.runtime_dir, self.connection_file, limits,
                                     self.tmp_size)
            cmd = client_command(server, request, self.cgroup)
            self.log.debug("forked sandboxed kernel: %s", json.dumps(cmd))
            return cmd, kw
        launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(self.cgroup or ""), *limits,
                    "--"]
        cmd = launcher + bwrap_args(shutil.which(self.bwrap) or self.bwrap, cwd,
                                    self.runtime_dir, package_dir, self.tmp_size) + kernel_cmd
        self.log.debug("sandboxed kernel: %s", json.dumps(cmd))
        return cmd, kw

    def limits(self, nproc):
        """The setrlimit arguments of a kernel (RLIMIT_NPROC where no cgroup caps tasks)."""
        limits = [f"RLIMIT_AS={self.memory_limit}", f"RLIMIT_CPU={self.cpu_limit}",
                  f"RLIMIT_FSIZE={self.file_size_limit}", "RLIMIT_CORE=0"]
        return limits + ([f"RLIMIT_NPROC={self.max_processes}"] if nproc else [])

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            remove_cgroup(self.cgroup)
            self.cgroup = None
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
