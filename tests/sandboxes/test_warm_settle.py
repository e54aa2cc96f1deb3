"""A warm compiler's settling after its reply (sandboxes/inner/warm.py ``settle``): the runner waits while
a thread of the server still works (a JVM's JIT threads after a compile), and not at all once none does.
Real processes: a child Python whose second thread spins, then rests."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from sandboxes.inner import warm

SPIN_THEN_REST = """\
import sys, threading, time
def spin():
    end = time.monotonic() + {spin_s}
    while time.monotonic() < end:
        pass
    print("rested", flush=True)
worker = threading.Thread(target=spin)
print("spinning", flush=True)
worker.start()
worker.join()
time.sleep(60)
"""


@pytest.fixture
def server() -> Iterator[subprocess.Popen[str]]:
    """A process whose second thread spins for 0.5 s, says so, then the process rests."""
    child = subprocess.Popen(
        [sys.executable, "-c", SPIN_THEN_REST.format(spin_s=0.5)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline() == "spinning\n"
    yield child
    child.kill()
    child.wait()


def test_settle_waits_while_a_thread_of_the_server_still_works(server: subprocess.Popen[str]) -> None:
    assert warm.working(server.pid)
    warm.settle(server.pid)
    assert not warm.working(server.pid)
    assert server.stdout is not None and server.stdout.readline() == "rested\n"  # the spin had ended


def test_a_server_at_rest_is_not_waited_for(
    server: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert server.stdout is not None and server.stdout.readline() == "rested\n"
    deadline = time.monotonic() + 5.0
    while warm.working(server.pid) and time.monotonic() < deadline:  # until it sleeps in time.sleep(60)
        time.sleep(0.01)
    naps: list[float] = []
    monkeypatch.setattr(warm.time, "sleep", naps.append)
    warm.settle(server.pid)
    assert naps == []


def test_a_server_that_is_gone_is_not_working() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not warm.working(child.pid)
