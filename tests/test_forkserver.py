"""The fork server's kernels (minigrad/course/forkserver.py) against kernels started the old
way (a new Python under bwrap): the same view of the process, the same generators' draws
where a fresh process's are fixed, fresh draws where they are not, nothing shared between
siblings, and nothing left when the grader kills a kernel. Chapter 01-16's graded kernels
all come from the server; tests/test_sandbox.py tries the hostile submissions through it.
"""

import asyncio
import json
import os
import pathlib
import time

import pytest

from minigrad.course.sandbox import SandboxedKernelManager, sandbox_problem

pytestmark = pytest.mark.slow

PROBE = """\
import json, os, sys, threading, random
import numpy as np, torch, minigrad
def target(fd):
    try:
        return os.readlink('/proc/self/fd/' + fd)
    except OSError:  # the descriptor that listed them, closed since
        return ''
facts = {
    "uid": os.getuid(), "gid": os.getgid(), "pid": os.getpid(), "ppid": os.getppid(),
    "cwd": os.getcwd(), "path": sys.path, "argv0": sys.argv[0], "argv_flag": sys.argv[1],
    "environ": sorted(os.environ),
    # files and folders held open (sockets, pipes, eventfds vary with zmq's timing; a
    # deleted temporary file's inode number with the tmpfs's history: '/tmp/#N (deleted)';
    # IPython's history database left out: its thread holds history.sqlite, and its
    # -journal mid-write, and SQLite the profile's folder to sync it after a commit, or
    # not yet, as timing has it)
    "files": sorted({__import__('re').sub(r'#[0-9]+ ', '#N ', t) for t in
                     map(target, os.listdir('/proc/self/fd')) if t.startswith('/')
                     and '/history.sqlite' not in t
                     and t != get_ipython().profile_dir.location}),
    "root": sorted(os.listdir('/')), "pids": sorted(p for p in os.listdir('/proc') if p.isdigit()),
    # OpenBLAS stops its threads at fork and restarts as many at its next call: the same
    # pool (so the same sums) as a new process's
    "threads_after_blas": (np.ones((300, 300)) @ np.ones((300, 300)), torch.ones(300, 300)
                           @ torch.ones(300, 300), len(os.listdir('/proc/self/task')))[-1],
    "minigrad_randn": minigrad.randn(3).tolist(), "torch_rand": torch.rand(3).tolist(),
    "numpy_rand": np.random.rand(3).tolist(), "random": random.random(),
    "notebook": None, "limits": __import__('resource').getrlimit(__import__('resource').RLIMIT_AS),
    "usr_writable": os.access('/usr', os.W_OK),
    "cmdline": open('/proc/self/cmdline', 'rb').read().decode().split(chr(0))[:4],
    # how deep a cell's code runs: a recursion demo's count depends on it (chapter 03)
    "depth": len(__import__('traceback').extract_stack()),
    "gc_frozen": __import__('gc').get_freeze_count(),
}
# matplotlib as a chapter's first cell finds it (the server preloads it): the backend,
# every rcParam, a figure's PNG, and the inline backend's hook after the cell
import hashlib, io, matplotlib, matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([0, 1, 2], [1, 0, 2], "o-", label="line")
ax.set_title("x**2")
ax.legend()
png = io.BytesIO()
fig.savefig(png, format="png")
facts["matplotlib"] = [matplotlib.get_backend(),
                       hashlib.sha256(repr(sorted(matplotlib.rcParams.items())).encode()).hexdigest(),
                       hashlib.sha256(png.getvalue()).hexdigest(),
                       sorted(f.__name__ for f in get_ipython().events.callbacks["post_execute"])]
try:
    open('nb.ipynb').read()
except OSError as e:
    facts["notebook"] = type(e).__name__
facts["runtime_folders"] = sorted(os.listdir(os.path.dirname(os.path.dirname(sys.argv[-1]))))
print(json.dumps(facts))
"""


def _in_own_loop(coroutine):
    """``asyncio.run`` in a thread of its own: a worker whose browser tests hold an event
    loop in its main thread (playwright's sync API) cannot start another there."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _facts(cwd, fork_server):
    km = SandboxedKernelManager(kernel_name="python3", fork_server=fork_server)
    await km.start_kernel(cwd=str(cwd))
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=180)
        out = []
        await kc.execute_interactive(PROBE, timeout=180, output_hook=lambda m: out.append(
            m["content"].get("text", "")))
        return json.loads("".join(out))
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=False)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The folder that holds this file's ``autograded/`` folder: one grading run's, so one
    server forks every kernel of the file (a server's start costs some 4 CPU s)."""
    return tmp_path_factory.mktemp("fork")


@pytest.fixture(scope="module")
def facts(base):
    if sandbox_problem() is not None:
        (pytest.fail if os.environ.get("CI") else pytest.skip)("no sandbox here")
    folders = {}
    for student in ("alice", "bob", "carol"):
        folders[student] = base / "autograded" / student / "ch01"
        folders[student].mkdir(parents=True)
        (folders[student] / "nb.ipynb").write_text("HIDDEN TESTS")

    async def run():
        return {"alice": await _facts(folders["alice"], True),
                "bob": await _facts(folders["bob"], True),
                "carol": await _facts(folders["carol"], False)}

    return _in_own_loop(run())


def _same(facts, key):
    return facts["alice"][key] == facts["carol"][key] == facts["bob"][key]


@pytest.mark.parametrize("key", ["uid", "gid", "pid", "ppid", "argv_flag", "environ", "files",
                                 "root", "pids", "limits", "usr_writable", "notebook",
                                 "cmdline", "minigrad_randn", "threads_after_blas",
                                 "depth", "matplotlib"])
def test_a_forked_kernel_sees_what_a_new_one_sees(facts, key):
    assert _same(facts, key), {s: f[key] for s, f in facts.items()}


def test_the_servers_objects_are_out_of_the_collectors_sight(facts):
    """gc.freeze() in the server: a forked kernel's collections (IPython's full one at its
    exit: 0.2 s a kernel) skip the preloaded objects; a new kernel has none frozen."""
    assert facts["alice"]["gc_frozen"] > 100_000 and facts["bob"]["gc_frozen"] > 100_000
    assert facts["carol"]["gc_frozen"] == 0


def test_each_kernel_in_its_own_folder_with_its_python_path(facts):
    for student, seen in facts.items():
        assert seen["cwd"].endswith(f"autograded/{student}/ch01")
        assert seen["path"] == facts["carol"]["path"]
        assert seen["argv0"].endswith("ipykernel_launcher.py")
    assert facts["alice"]["notebook"] == "PermissionError"
    assert facts["alice"]["uid"] == 1000 and facts["alice"]["pids"] == ["1", "2"]


def test_fresh_generators_are_not_shared_between_siblings(facts):
    """A new process seeds random, numpy and torch from the OS: two forked siblings must
    not draw the same numbers (the server's state copied)."""
    for key in ("torch_rand", "numpy_rand", "random"):
        assert facts["alice"][key] != facts["bob"][key], key


def test_a_kernel_sees_only_its_own_runtime_folder(facts):
    for student in ("alice", "bob"):
        assert len(facts[student]["runtime_folders"]) == 1, facts[student]["runtime_folders"]


def test_killing_the_client_kills_the_kernel(base):
    if sandbox_problem() is not None:
        pytest.skip("no sandbox here")
    folder = base / "autograded" / "dave" / "ch01"
    folder.mkdir(parents=True)

    async def run():
        km = SandboxedKernelManager(kernel_name="python3")
        await km.start_kernel(cwd=str(folder))
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=180)
        await kc.execute_interactive(
            "import subprocess, sys\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', "
            "'minigrad-fork-orphan-7b1'])", timeout=180)
        kc.stop_channels()
        await km.shutdown_kernel(now=True)  # SIGKILL to the client, no shutdown request

    _in_own_loop(run())
    for _ in range(100):
        left = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(
            p, b"minigrad-fork-orphan-7b1")]
        if not left:
            break
        time.sleep(0.1)
    assert left == []


def _cmdline_has(pid, mark):
    try:
        return mark in pathlib.Path("/proc", pid, "cmdline").read_bytes()
    except OSError:
        return False
