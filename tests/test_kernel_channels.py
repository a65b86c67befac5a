"""A graded kernel's reply is read when it arrives, not at the cell's timeout.

In ``nbgrader autograde`` (nbclient 0.11, jupyter_client 8.10, pyzmq 27.3) the asyncio
wait on a kernel channel sometimes misses the socket's wake-up: the reply was in the
client's queue, and the wait ended only at its timeout, where pyzmq's last look finds it.
Five such stalls of 60 s (the cell timeout) were in one ``make test``, after widget cells of
chapters 01 and 10 (strace: the reply received at 12:57:47.29, read at 12:58:45.95, the
cell's start plus 60 s). :func:`~minigrad.course.nbgrader_plugins.polled_in_slices` waits
in slices, each ending with that look; GuardedExecute uses it on the shell and IOPub
channels. The channel below never wakes early (the stall's worst case), on a clock of its
own, so no test waits.
"""

import asyncio
import queue
from concurrent.futures import ThreadPoolExecutor

import pytest

from minigrad.course.nbgrader_plugins import GuardedExecute, polled_in_slices


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class MissedWakeup:
    """A channel whose wait never ends early: a message that arrives during a wait is seen
    when the wait's timeout ends."""

    def __init__(self, clock, arrives):
        self.clock, self.arrives, self.timeouts = clock, arrives, []

    async def get_msg(self, timeout=None):
        assert timeout is not None, "a wait without end never sees the message"
        self.timeouts.append(timeout)
        self.clock.now += timeout
        if self.clock.now >= self.arrives:
            return "reply"
        raise queue.Empty


def _run(coro):
    """``asyncio.run`` in a thread of its own: in a pytest worker an earlier test (the browser
    tests' playwright) may leave an event loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _read(arrives, timeout, sliced=True):
    clock = Clock()
    channel = MissedWakeup(clock, arrives)
    get_msg = polled_in_slices(channel.get_msg, every=0.5, clock=clock) if sliced \
        else channel.get_msg
    try:
        result = _run(get_msg(timeout=timeout))
    except queue.Empty:
        result = "empty"
    return result, clock.now


def test_the_channel_models_the_stall():
    assert _read(arrives=0.3, timeout=60, sliced=False) == ("reply", 60)


def test_a_reply_is_read_within_one_slice_of_its_arrival():
    assert _read(arrives=0.3, timeout=60) == ("reply", 0.5)
    assert _read(arrives=7.2, timeout=60) == ("reply", 7.5)


def test_no_reply_is_still_empty_at_the_timeout():
    result, now = _read(arrives=float("inf"), timeout=60)
    assert result == "empty" and now == pytest.approx(60)


def test_a_wait_without_timeout_is_sliced_too():
    assert _read(arrives=3.1, timeout=None) == ("reply", 3.5)


@pytest.mark.parametrize("twin", ["async", "sync"])
def test_guarded_execute_slices_both_channels(twin, monkeypatch):
    """Both of nbclient's ways in: nbgrader's (setup_kernel) calls the sync twin."""

    class Channel:
        async def get_msg(self, timeout=None):
            return "msg"

    class Client:
        shell_channel, iopub_channel, stdin_channel = Channel(), Channel(), Channel()

    async def started(self):
        self.kc = Client()
        return self.kc

    monkeypatch.setattr(GuardedExecute.__mro__[1], "async_start_new_kernel_client", started)
    execute = GuardedExecute()
    kc = (_run(execute.async_start_new_kernel_client()) if twin == "async"
          else execute.start_new_kernel_client())
    assert getattr(kc.shell_channel.get_msg, "sliced", False)
    assert getattr(kc.iopub_channel.get_msg, "sliced", False)
    assert not getattr(kc.stdin_channel.get_msg, "sliced", False)
    assert _run(kc.shell_channel.get_msg(timeout=1)) == "msg"
