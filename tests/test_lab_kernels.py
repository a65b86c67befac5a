"""Kernels forked for JupyterLab and nbval (minigrad/course/lab_kernels.py), started as
JupyterLab starts one: jupyter_client's KernelManager over the kernelspec that ``make lab``
and ``make test`` write."""

import contextlib
import os
import pathlib
import shutil
import signal
import time

import pytest
from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

from minigrad.course import lab_kernels

pytestmark = pytest.mark.slow

PROBE = ("import os, sys, random\n"
         "print(os.getcwd()); print(os.environ.get('MINIGRAD_PROBE'))\n"
         "print('torch' in sys.modules); print(os.getpid())\n")


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("jupyter")
    lab_kernels.write_kernelspec(folder)
    return KernelSpecManager(kernel_dirs=[str(folder / "kernels")])


@contextlib.contextmanager
def started(specs, cwd, **env):
    """A kernel started as JupyterLab starts one, in ``cwd`` with ``env`` added to this
    process's environment, and its client; shut down at the end."""
    km = KernelManager(kernel_name="python3", kernel_spec_manager=specs)
    km.start_kernel(cwd=str(cwd), env={**os.environ, **env})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        yield km, kc
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)


@pytest.fixture
def kernel(specs, tmp_path):
    """A started kernel (in ``tmp_path``, MINIGRAD_PROBE=yes in its environment) and its
    client."""
    with started(specs, tmp_path, MINIGRAD_PROBE="yes") as (km, kc):
        yield km, kc, tmp_path


def _run(kc, code, timeout=60):
    """(stdout, the error's name or None) of ``code`` run in the kernel."""
    msg_id = kc.execute(code)
    out, error = [], None
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind == "error":
            error = content["ename"]
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(out), error


def _gone(pid, within=10):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_the_kernelspec_is_ipykernels_python3_with_the_provisioner(specs):
    spec = specs.get_kernel_spec("python3")
    assert spec.argv[1:] == ["-m", "ipykernel_launcher", "-f", "{connection_file}"]
    assert spec.display_name == "Python 3 (ipykernel)"  # what JupyterLab's status bar shows
    assert spec.interrupt_mode == "message"
    assert spec.metadata["kernel_provisioner"]["provisioner_name"] == lab_kernels.NAME


def test_a_kernel_is_forked_in_its_folder_with_the_environment_jupyter_gives(kernel):
    km, kc, folder = kernel
    assert isinstance(km.provisioner, lab_kernels.ForkedProvisioner)
    out, error = _run(kc, PROBE)
    assert error is None
    cwd, probe, preloaded, pid = out.split()
    assert cwd == str(folder.resolve())
    assert probe == "yes"
    assert preloaded == "True", "torch is imported before any cell: the kernel was forked"
    assert int(pid) != km.provisioner.pid, "Jupyter's process is the client, not the kernel"
    out, error = _run(kc, "import stack_data.core\n"
                          "print(stack_data.core._pygmented_with_ranges.__module__)")
    assert out.strip() == "minigrad.course.fast_tracebacks", "warmed as the server warms"


def test_figures_with_formulas_draw_again_and_again(kernel):
    """What the server builds before it forks must not hold what a kernel closes: a
    mathtext parser built there kept font files open, and a forked kernel died at its
    second figure with a formula (chapter 11, run again)."""
    _, kc, _ = kernel
    code = ("import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots()\n"
            "ax.loglog([1e-12, 1e-1], [1e-16, 1e-2], label=r'truncation $\\epsilon^{%d}$')\n"
            "ax.set_title(r'$g(x) = x^3$ at $x = 1.5$, $|\\alpha_k - \\beta|$'); ax.legend()\n"
            "fig.savefig('/dev/null', format='png'); print('drawn')\n")
    for power in range(3):
        out, error = _run(kc, code % power, timeout=60)
        assert (out.strip(), error) == ("drawn", None)


def test_two_kernels_draw_different_random_numbers(specs, tmp_path):
    """Seeded from the OS as a new process is: no two kernels share the server's draws."""
    draws = []
    for _ in range(2):
        with started(specs, tmp_path) as (_, kc):
            out, error = _run(kc, "import random, numpy, torch\nprint(random.random(), "
                                  "numpy.random.rand(), torch.rand(1).item())")
            assert error is None
            draws.append(out.split())
    assert all(a != b for a, b in zip(*draws, strict=True)), draws


def test_an_interrupt_stops_a_running_cell_and_the_kernel_goes_on(kernel):
    km, kc, _ = kernel
    msg_id = kc.execute("import time\ntime.sleep(120)")
    time.sleep(1)
    start = time.monotonic()
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=60)
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert time.monotonic() - start < 30
    # The kernel answers again. A request that reaches it while it still drops what was
    # queued behind the error is "aborted" (ipykernel's stop-on-error), as JupyterLab shows a
    # cell run at once after an interrupt: ask again then. The answer is read from the reply
    # (a print's output can follow the status that ends its cell, right after a signal).
    for _ in range(20):
        reply = kc.execute_interactive("", user_expressions={"v": "6 * 7"}, timeout=60)
        if reply["content"]["status"] != "aborted":
            break
        time.sleep(0.1)
    assert reply["content"]["status"] == "ok", reply["content"]
    assert reply["content"]["user_expressions"]["v"]["data"]["text/plain"] == "42"


def test_restart_forks_a_new_kernel_and_shutdown_ends_it(kernel):
    km, kc, _ = kernel
    _run(kc, "x = 1")
    before = int(_run(kc, PROBE)[0].split()[3])
    km.restart_kernel(now=True)
    kc.wait_for_ready(timeout=60)
    out, error = _run(kc, "print('x' in globals())\n" + PROBE)
    assert error is None
    defined, _, _, preloaded, after = out.split()
    assert defined == "False" and preloaded == "True" and int(after) != before
    assert _gone(before), "the kernel before the restart is still running"
    km.shutdown_kernel()
    assert _gone(int(after)), "the kernel outlived its shutdown"


def test_killing_jupyters_process_of_the_kernel_kills_the_kernel(kernel):
    """The client, Jupyter's kernel process, killed as Jupyter kills a kernel that does
    not shut down: the kernel ends with it."""
    km, kc, _ = kernel
    pid = int(_run(kc, PROBE)[0].split()[3])
    os.kill(km.provisioner.pid, signal.SIGKILL)
    assert _gone(pid)


def test_a_server_that_died_is_started_again(specs, tmp_path, monkeypatch):
    monkeypatch.delenv(lab_kernels.SHARED, raising=False)  # this process's own server
    lab_kernels._server()
    dead, old_path = lab_kernels._SERVER[os.getpid()]
    dead.kill()
    dead.wait()
    with started(specs, tmp_path) as (_, kc):
        out, error = _run(kc, PROBE)
    assert error is None and out.split()[2] == "True"
    assert lab_kernels._SERVER[os.getpid()][0] is not dead
    assert not os.path.exists(os.path.dirname(old_path))


def test_without_a_server_a_kernel_is_a_new_python(specs, tmp_path, monkeypatch):
    monkeypatch.delenv(lab_kernels.SHARED, raising=False)
    monkeypatch.setattr(lab_kernels, "_BROKEN", {os.getpid()})
    monkeypatch.setattr(lab_kernels, "_SERVER", {})
    with started(specs, tmp_path) as (km, kc):
        out, error = _run(kc, PROBE)
        assert error is None and out.split()[2] == "False"
        assert int(out.split()[3]) == km.provisioner.pid


def test_a_shared_server_named_in_the_environment_forks_the_kernels(specs, tmp_path,
                                                                    monkeypatch):
    """A process whose environment names a running server (``share()``: make test's pytest
    names its own for its workers) forks its kernels from it and starts no server."""
    monkeypatch.delenv(lab_kernels.SHARED, raising=False)  # restored as it was at the end
    monkeypatch.setattr(lab_kernels, "_SERVER", {})
    path = lab_kernels.share()
    assert path is not None and os.environ[lab_kernels.SHARED] == path
    sharer = lab_kernels._SERVER.pop(os.getpid())[0]  # as if another process started it
    try:
        with started(specs, tmp_path) as (km, kc):
            out, error = _run(kc, PROBE)
            assert error is None and out.split()[2] == "True"
            assert _descends_from(int(out.split()[3]), sharer.pid)
        assert lab_kernels._SERVER == {}, "a server of its own was started"
    finally:
        sharer.stdin.close()
        sharer.wait(timeout=30)
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)


def _descends_from(pid, ancestor):
    """Whether ``ancestor`` is ``pid``'s parent, grandparent... (while ``pid`` lives)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


def test_jupyter_finds_the_provisioner_by_its_name():
    from importlib.metadata import entry_points

    (found,) = entry_points(group="jupyter_client.kernel_provisioners", name=lab_kernels.NAME)
    assert found.load() is lab_kernels.ForkedProvisioner
