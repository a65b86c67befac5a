r"""The system calls that confine a process forked by the fork server
(:mod:`minigrad.course.forkserver`, every graded chapter's kernel): user and mount
namespaces, a fresh root built as bubblewrap would build it, ``pivot_root``, capabilities,
the process's command line. Linux x86_64 only (the grading machines'); where any call
fails, :mod:`minigrad.course.forkserver_host`'s probe falls back to bubblewrap itself.
"""

import ctypes
import os

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (0x08000000, 0x10000000,
                                                           0x20000000, 0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
SYS_PIVOT_ROOT, SYS_CAPSET = 155, 126  # x86_64
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")

libc = ctypes.CDLL(None, use_errno=True)


def check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _bytes(text):
    return None if text is None else text.encode()


def mount(source, target, fstype, flags, data=None):
    check(libc.mount(_bytes(source), _bytes(target), _bytes(fstype), ctypes.c_ulong(flags),
                      _bytes(data)), f"mount {source} on {target}")


def prctl(option, value):
    check(libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")


def drop_capabilities():
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this task
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable, twice: all empty
    check(libc.syscall(SYS_CAPSET, header, data), "capset")


def new_user_namespace(inside):
    """Unshare a user namespace where this process is ``inside`` (its uid and gid)."""
    uid, gid = os.getuid(), os.getgid()
    check(libc.unshare(CLONE_NEWUSER), "unshare user")
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
    mount(source, target, None, MS_BIND | MS_REC)


def _place_link(new, source):
    os.makedirs(os.path.dirname(new + source), exist_ok=True)
    os.symlink(os.readlink(source), new + source)


def build_root(new, request):
    """The submission's root under ``new``: what bwrap_args gives a kernel, nothing else."""
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{name}"
        if os.path.islink(path):
            _place_link(new, path)
        elif os.path.isdir(path):
            _bind(new, path)
    _bind(new, "/usr")
    os.makedirs(new + "/tmp")
    mount("tmpfs", new + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
           f"size={request['tmp_bytes']},mode=0755")
    for path in request["ro"]:  # /etc files, the Python installation, minigrad
        if os.path.lexists(path):
            _bind(new, path)
    os.makedirs(new + "/proc")
    os.makedirs(new + "/dev")
    mount("tmpfs", new + "/dev", "tmpfs", MS_NOSUID, "mode=0755")
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
        mount("/dev/null", new + notebook, None, MS_BIND)
        mount(None, new + notebook, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID
               | MS_NODEV)


def enter_root(new):
    """Pivot into ``new``, detach the old root, make the new one read-only."""
    os.chdir(new)
    check(libc.syscall(SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    check(libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def set_cmdline(args):
    """This process's ``/proc/PID/cmdline`` (the server's, padded to leave room): a kernel
    shows the command a new one would have, not the server's."""
    fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48, 49)
    data = b"\0".join(arg.encode() for arg in args) + b"\0"
    with open("/proc/self/mem", "r+b", buffering=0) as f:
        f.seek(start)
        f.write(data[:end - start].ljust(end - start, b"\0"))
