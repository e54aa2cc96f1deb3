"""Stopping every program of this process at once, when its user interrupts it.

Ctrl-C raises KeyboardInterrupt in the main thread only. The batches' threads went on with their programs,
and the flow's task runner waits for its threads as the flow unwinds: an interrupted `surge run` whose
programs sleep 25 s took 39 s to exit. On an interrupt, ``stop_everything`` marks the process stopping and
kills every live runner (its programs die with it, in its sandbox), so each batch ends at once: it raises
``Stopped`` where it would have recorded the killed program as a sandbox error, or started the next one.
The rows finished before the interrupt are kept by the batch's writer as it leaves.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Protocol

STOPPING = threading.Event()
_live: weakref.WeakSet[Killable] = weakref.WeakSet()
# Re-entrant: the signal handler runs in the main thread, which may be inside ``track`` at that moment.
_live_lock = threading.RLock()


class Killable(Protocol):
    def kill(self) -> None:
        """End the runner and its programs now (it is closed afterwards, as any broken runner)."""
        ...


class Stopped(KeyboardInterrupt):
    """The user interrupted this process: the batch ends here, with no row (and no quarantine record) for
    the program it was running. A KeyboardInterrupt, so that nothing catching ``Exception`` records it."""


def track(runner: Killable) -> None:
    """A runner that ``stop_everything`` must kill (it is forgotten once nothing holds it)."""
    with _live_lock:
        _live.add(runner)


def stop_everything() -> None:
    """Mark the process stopping and kill its live runners (from a thread of its own: a container's kill
    is a request to the Docker engine, and the signal handler that calls this must return at once)."""
    STOPPING.set()
    with _live_lock:
        runners = list(_live)
    threading.Thread(target=kill_all, args=(runners,), name="surge-stop", daemon=True).start()


def kill_all(runners: list[Killable]) -> None:
    for runner in runners:
        with contextlib.suppress(Exception):  # already gone: nothing to stop
            runner.kill()


def check_not_stopping() -> None:
    """Raise ``Stopped`` once the process is stopping."""
    if STOPPING.is_set():
        raise Stopped("interrupted")
