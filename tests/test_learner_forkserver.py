"""The learners' fork server (minigrad.course.forkserver_learner): a learner process forked
from it sees what a new one (python -I -S under bwrap) sees: the same modules, the same
routes off, no torch, no minigrad source, the same uid, pid view, root, limits and open
descriptors; forks do not see each other, leave nothing running, share no module change.
"""

import os
import subprocess
import sys
import time

import pytest

from minigrad.course import forkserver_learner, verdicts
from minigrad.course.sandbox import python_paths, sandbox_problem
from minigrad.course.verdicts_wire import decode, encode

pytestmark = pytest.mark.skipif(sandbox_problem() is not None,
                                reason=f"no sandbox: {sandbox_problem()}")

# A checkout under /tmp (a CI clone) has its venv bound at its own path: that folder's
# name shows in every sandbox's /tmp, new or forked, as the Python it runs needs.
IN_TMP = {p.split("/")[2] for p in python_paths() if p.startswith("/tmp/")}


def _own(listing):
    """A /tmp listing without the folders of :data:`IN_TMP`."""
    return [n for n in listing if n not in IN_TMP]


FACTS = r'''
def facts():
    import gc, os, resource, sys
    import minigrad, minigrad.autograd.engine as engine
    found = {"modules": sorted(sys.modules)}
    import torch
    found["torch"] = type(torch.__spec__.loader).__name__
    try:
        torch.tensor([1.0])
    except Exception as exc:
        found["torch"] += " " + type(exc).__name__
    try:
        minigrad.tensor([1.0], requires_grad=True).sum().backward()
        found["backward"] = "ran"
    except Exception as exc:
        found["backward"] = type(exc).__name__
    found["originals"] = sorted(f.__code__.co_name for f in gc.get_objects()
                                if type(f).__name__ == "function"
                                and f.__code__.co_name in ("run_backward", "make_dual"))
    found["source"] = [os.path.exists(p) for p in (engine.__file__, "/tmp/verdict-pkg",
                                                   "/opt/minigrad")]
    found["minigrad files"] = sorted(
        os.path.join(d, n) for top in [p for p in sys.path if os.path.isdir(p)] + ["/tmp"]
        for d, _, names in os.walk(top) for n in names
        if "/minigrad/" in os.path.join(d, n) and n.endswith(".py"))
    found["ids"] = [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getpid(),
                    os.getsid(0), os.getpgid(0), os.getppid()]
    found["proc"] = sorted(n for n in os.listdir("/proc") if n.isdigit())
    found["root"] = sorted(os.listdir("/"))
    found["dev"] = sorted(os.listdir("/dev"))
    found["tmp"] = sorted(os.listdir("/tmp"))
    found["limits"] = {n: resource.getrlimit(getattr(resource, n)) for n in dir(resource)
                       if n.startswith("RLIMIT_")}
    found["fds"] = {}
    for fd in os.listdir("/proc/self/fd"):  # the listing's own descriptor is gone
        if os.path.lexists(f"/proc/self/fd/{fd}"):
            found["fds"][fd] = os.readlink(f"/proc/self/fd/{fd}").split(":")[0]
    status = dict(line.split(":\t", 1) for line in open("/proc/self/status"))
    found["status"] = {k: status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapAmb",
                                                     "NoNewPrivs", "Seccomp")}
    found["mounts"] = sorted(line.split()[4] for line in open("/proc/self/mountinfo"))
    found["uts"] = list(os.uname())[1:2]
    found["net"] = [n for _, n in __import__("socket").if_nameindex()]
    found["cwd"], found["argv"], found["path"] = os.getcwd(), sys.argv, sys.path
    found["environ"] = dict(os.environ)
    found["flags"] = [sys.flags.isolated, sys.flags.no_site]
    main = sys.modules["__main__"]
    found["main"] = sorted(vars(main)), main.setup == {k: main.setup[k] for k in (
        "forbid", "count", "preamble", "cells")}
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    found["depth"] = depth
    found["stdin"] = [sys.stdin.fileno(), sys.stdin.encoding, sys.stdout is sys.stderr]
    return found
'''


def _start(cells, forked, monkeypatch, routes=verdicts.BY_HAND):
    monkeypatch.setattr(forkserver_learner, "ENABLED", forked)
    process = verdicts._learner("bwrap", routes, cells)
    assert process.forked == forked
    ready = process.receive(time.monotonic() + 60)
    assert ready and ready["op"] == "ready" and not ready["failed"], ready
    return process


def _call(process, name, *args):
    process.send({"op": "call", "name": name, "args": encode(list(args)),
                  "kwargs": encode({})})
    reply = process.receive(time.monotonic() + 60)
    assert reply["op"] == "result", reply
    return decode(reply["value"])


def _facts(forked, monkeypatch):
    process = _start([FACTS], forked, monkeypatch)
    try:
        return _call(process, "facts")
    finally:
        process.close()


def test_a_forked_learner_sees_what_a_new_one_sees(monkeypatch):
    fresh = _facts(False, monkeypatch)
    forked = _facts(True, monkeypatch)
    assert fresh["torch"] == "Blocker Forbidden" and fresh["backward"] == "Forbidden"
    assert fresh["originals"] == [] and fresh["source"] == [False] * 3
    assert fresh["minigrad files"] == [] and fresh["ids"][:4] == [1000] * 4
    assert "torch" not in fresh["modules"] and "minigrad.course.forkserver" not in fresh[
        "modules"]
    assert fresh["limits"]["RLIMIT_CPU"] == (300, 300)
    # What bwrap adds and a fork does not (as for a forked kernel): the runtime folder's
    # mount point (empty, unused), a devpts instance, /proc/bus and /proc/irq read-only.
    fresh_tmp, forked_tmp = _own(fresh.pop("tmp")), _own(forked.pop("tmp"))
    runtime = [p for p in fresh_tmp if p.startswith("minigrad-verdict-")]
    assert len(runtime) == 1 and fresh_tmp == runtime and forked_tmp == []
    # The venv's site-packages is mounted twice in a fork (with the venv, recursively, and
    # on its own, as python_paths names it): the same files.
    assert sorted(set(forked["mounts"])) == [m for m in fresh["mounts"] if m not in (
        "/dev/pts", "/proc/bus", "/proc/irq", f"/tmp/{runtime[0]}")]
    fresh["mounts"] = forked["mounts"]
    for key in fresh:
        assert forked[key] == fresh[key], key
    assert forked == fresh


def test_the_routes_switched_off_raise_in_a_forked_learner(monkeypatch):
    routes = [*verdicts.NO_VALUES, *verdicts.LINEAR_BACKWARDS, *verdicts.CROSS_ENTROPY]
    check = r'''
def switched_off(specs):
    import sys
    out = []
    for spec in specs:
        module, _, qualname = spec.partition(":")
        obj = sys.modules.get(module)
        for part in qualname.split(".") if obj is not None else ():
            obj = getattr(obj, part)
        out.append(getattr(getattr(obj, "__func__", obj), "__code__", None).co_name
                   if obj is not None else None)
    return out
'''
    found = {}
    for forked in (False, True):
        process = _start([check], forked, monkeypatch, routes)
        try:
            found[forked] = _call(process, "switched_off", list(routes))
        finally:
            process.close()
    assert found[True] == found[False]
    assert set(found[True]) <= {"forbidden", None} and "forbidden" in found[True]


SPY = r'''
def spy(name):
    import os
    open(f"/tmp/{name}", "w").close()
    return sorted(os.listdir("/tmp")), sorted(n for n in os.listdir("/proc") if n.isdigit())
'''


def test_two_forks_do_not_see_each_other(monkeypatch):
    first = _start([SPY], True, monkeypatch)
    second = _start([SPY], True, monkeypatch)
    try:
        for process, name in ((first, "first"), (second, "second")):
            tmp, pids = _call(process, "spy", name)
            assert (_own(tmp), pids) == ([name], ["1", "2"])
    finally:
        first.close()
        second.close()


SLEEPER = r'''
def sleeper(mark):
    import subprocess
    return subprocess.Popen(["/bin/sleep", mark], start_new_session=True).pid
'''


def _running(mark):
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and mark.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                found.append(pid)
        except OSError:
            continue
    return found


@pytest.mark.parametrize("end", ["close", "kill"])
def test_a_forked_learners_sleeper_ends_with_it(end, monkeypatch):
    mark = str(7_000_000 + os.getpid() * 2 + (end == "kill"))
    process = _start([SLEEPER], True, monkeypatch)
    try:
        assert _call(process, "sleeper", mark) > 2
        assert _until(lambda: _running(mark))
        if end == "kill":
            process.proc.kill()
    finally:
        process.close()
    assert _until(lambda: not _running(mark))  # the pid namespace's end reaches it


def _until(condition):
    for _ in range(200):
        if condition():
            return True
        time.sleep(0.05)
    return False


PATCH = r'''
def patch():
    import json, minigrad
    before = [hasattr(minigrad, "MARK"), hasattr(json, "MARK"), minigrad.tensor.__name__]
    minigrad.MARK = json.MARK = 1
    minigrad.tensor = None
    return before
'''


def test_a_forks_changes_do_not_reach_the_next(monkeypatch):
    for _ in range(2):
        process = _start([PATCH], True, monkeypatch)
        try:
            assert _call(process, "patch") == [False, False, "tensor"]
        finally:
            process.close()


def test_where_no_server_starts_a_learner_is_a_new_python(monkeypatch):
    def broken(*args):
        raise RuntimeError("the learners' fork server did not start")

    monkeypatch.setattr(forkserver_learner, "_SERVERS", {})
    monkeypatch.setattr(forkserver_learner, "_BROKEN", set())
    monkeypatch.setattr(forkserver_learner, "LearnerServer", broken)
    for _ in range(2):  # tried once, then not again
        process = verdicts._learner("bwrap", verdicts.BY_HAND, [SPY])
        try:
            assert not process.forked
            assert process.receive(time.monotonic() + 60)["op"] == "ready"
        finally:
            process.close()
    assert len(forkserver_learner._BROKEN) == 1


def test_the_servers_exit_needs_nothing_of_the_graders_side():
    """close_all runs at exit in the learners' server too, where the grader's modules
    (verdicts_learner.HOST_ONLY) cannot be imported: its exit prints no traceback."""
    code = ("import sys; sys.modules['minigrad.course.forkserver_host'] = None\n"
            "from minigrad.course import forkserver_learner\n"
            "forkserver_learner._SERVERS[(0, 'bwrap')] = None  # another process's: kept\n"
            "forkserver_learner.close_all()\n"
            "assert forkserver_learner._SERVERS == {}\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
