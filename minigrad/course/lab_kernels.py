r"""Kernels forked from a server that has torch imported, for JupyterLab (``make lab``) and
nbval (``make test``): a jupyter_client kernel provisioner.

A new kernel is a new Python that imports ipykernel, then, at a chapter's first cell,
torch, numpy, matplotlib and minigrad: some 3 CPU s and as many seconds before the first
output. Forked from :mod:`minigrad.course.forkserver`'s server started ``plain`` (no
sandbox: it runs as the learner), a kernel starts with those imported. Each kernel is a
process of its own (a copy-on-write copy of the server), in the notebook's folder, with the
environment Jupyter gives it, its generators seeded as a new process's are
(``forkserver._reseed``). Jupyter's interrupt (a message on the control channel, as the
kernelspec says), restart and shutdown act on it as on any kernel: Jupyter's kernel process
is the server's client, which lives exactly as long as the kernel (killing it kills the
kernel). Where the server cannot start, a kernel is a new Python, as without this module.

:func:`write_kernelspec` writes the kernelspec ``python3`` (the chapters' kernel) that names
the provisioner; ``make lab`` and ``make test`` put it first on Jupyter's path. Elsewhere
Jupyter keeps ipykernel's own ``python3``.

    python -m minigrad.course.lab_kernels FOLDER   # FOLDER/kernels/python3/kernel.json
"""

import asyncio
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from jupyter_client.provisioning import LocalProvisioner

from minigrad.course.forkserver import CLIENT, server_command

__all__ = ["ForkedProvisioner", "write_kernelspec", "NAME", "SHARED", "share"]

NAME = "minigrad-forked"  # the provisioner's entry point (pyproject.toml)
# A running plain server's socket, for processes that share one: where it names one, a
# process forks its kernels from it and starts none of its own (make test's pytest starts
# one for its workers, their nbval kernels and the browser tests' JupyterLab: some 4 CPU s
# a server saved).
SHARED = "MINIGRAD_LAB_SERVER"

_LOCK = threading.Lock()
_SERVER = {}  # {pid: (process, socket path)} of this process's server
_BROKEN = set()  # pids of processes whose server did not start: new Pythons there


def _server():
    """The shared server (:data:`SHARED`) if the environment names one that is there, else
    this process's plain server (started at its first kernel, again if it died), or None.
    Its stdin is a pipe this process holds: the server ends with it."""
    shared = os.environ.get(SHARED)
    if shared and os.path.exists(shared):
        return shared
    pid = os.getpid()
    with _LOCK:
        proc, path = _SERVER.get(pid, (None, None))
        if proc is not None and proc.poll() is None:
            return path
        if proc is not None:  # it died: its folder goes, a new server starts
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)
        if pid in _BROKEN:
            return None
        base = tempfile.mkdtemp(prefix="minigrad-lab-kernels-")
        path = os.path.join(base, "server.sock")
        try:
            proc = subprocess.Popen(server_command(path, "plain"), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, start_new_session=True)
            ready = proc.stdout.readline() == b"ready\n"
        except OSError:
            proc, ready = None, False
        if not ready:
            if proc is not None:
                proc.kill()
                proc.wait()
            _BROKEN.add(pid)
            shutil.rmtree(base, ignore_errors=True)
            return None
        _SERVER[pid] = (proc, path)
        return path


def share():
    """Start this process's server and name it in :data:`SHARED` for the processes it
    starts from now on (it lives as long as this process); its socket, or None."""
    path = _server()
    if path is not None:
        os.environ[SHARED] = path
    return path


@atexit.register
def _close():
    proc, path = _SERVER.pop(os.getpid(), (None, None))
    if proc is not None:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)


class ForkedProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, launching ``python -m ipykernel_launcher -f F``
    as a kernel forked from this process's server (any other command as it is)."""

    async def launch_kernel(self, cmd, **kwargs):
        if cmd[1:4] == ["-m", "ipykernel_launcher", "-f"] and len(cmd) == 5:
            # off the event loop: the server's start (its imports) takes seconds
            path = await asyncio.get_running_loop().run_in_executor(None, _server)
            if path is not None:
                request = {"argv": cmd[1:], "connection_file": cmd[4],
                           "cwd": os.path.realpath(kwargs.get("cwd") or os.getcwd()),
                           "env": dict(kwargs.get("env") or os.environ)}
                cmd = [sys.executable, "-I", "-S", "-c", CLIENT, path, json.dumps(request), ""]
        return await super().launch_kernel(cmd, **kwargs)


def write_kernelspec(folder):
    """``folder/kernels/python3/kernel.json``: ipykernel's ``python3`` (this Python), with
    the forked provisioner and interrupts by message (a signal would end the client)."""
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (ipykernel)", "language": "python",
            "interrupt_mode": "message",
            "metadata": {"debugger": True, "kernel_provisioner": {"provisioner_name": NAME}}}
    target = os.path.join(folder, "kernels", "python3")
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "kernel.json"), "w") as f:
        json.dump(spec, f, indent=1)
    return target


if __name__ == "__main__":
    print(write_kernelspec(sys.argv[1]))
