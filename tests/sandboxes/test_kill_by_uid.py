"""A runner's kill-by-uid reaches its own PID namespace only: never a program of another sandbox (a
container's) that reserved the same uid from a /tmp of its own.

An unsafe-local runner as root kills by uid from the host's PID namespace, where kill(-1) also reaches
every container's processes: a program of a Dask worker's sandbox, running under the same reserved uid,
was SIGKILLed mid-run by it. Here a process of the uid in a nested PID namespace (`unshare --pid`) stands
for that program, and must outlive the runner's cleanup of its own process of the uid.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from sandboxes.backends.bwrap import reserve_uid
from sandboxes.inner.runner import kill_every_process_of

SETTLE_S = 5.0


def as_uid(uid: int) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def running_as(uid: int, pid: int) -> bool:
    """A live (not zombie) process ``pid`` of ``uid``, as the host's /proc shows it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["Uid"].split()[0]) == uid and fields["State"].split()[0] not in ("Z", "X")


def process_of(uid: int, parent: int) -> int | None:
    """The process of ``uid`` among ``parent``'s descendants (the sleep behind setpriv or unshare)."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
        found = [pid for pid in pids if running_as(uid, pid) and descends_from(pid, parent)]
        if found:
            return found[0]
        time.sleep(0.02)
    return None


def descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


def test_kill_by_uid_spares_the_same_uid_in_a_nested_pid_namespace() -> None:
    if os.getuid() != 0 or not (shutil.which("setpriv") and shutil.which("unshare")):
        pytest.skip("needs root, setpriv and unshare (util-linux) to run processes under a sandbox uid")
    uid, lock = reserve_uid()  # no other sandbox of this host uses it meanwhile
    started: list[subprocess.Popen[bytes]] = []
    their_pid = None
    try:
        ours = subprocess.Popen([*as_uid(uid), "sleep", "20"])
        theirs = subprocess.Popen(["unshare", "--pid", "--fork", *as_uid(uid), "sleep", "20"])
        started += [ours, theirs]
        our_pid, their_pid = process_of(uid, ours.pid), process_of(uid, theirs.pid)
        assert our_pid is not None and their_pid is not None, "the processes under the uid did not start"
        kill_every_process_of(uid)
        assert not running_as(uid, our_pid), "the runner's own process of the uid survived"
        assert running_as(uid, their_pid), "a process of the uid in another PID namespace was killed"
    finally:
        if their_pid is not None and running_as(uid, their_pid):
            os.kill(their_pid, signal.SIGKILL)  # the namespace's init: unshare's death leaves it running
        for process in started:
            process.kill()
            process.wait()
        lock.close()
