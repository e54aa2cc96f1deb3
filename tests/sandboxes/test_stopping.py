"""A user's interrupt ends a batch at once: its running program is killed in its sandbox, the batch raises
``Stopped`` (no sandbox error recorded for the program we killed), and what finished before stays."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.records import Language, Limits, PhaseLimits, Program, Verdict
from pipeline.stopping import STOPPING, Stopped, stop_everything
from tests.sandboxes.conftest import request, sandbox_uid_processes

# The sleeper's limits are far beyond the test's patience: it ends only if the interrupt ends it.
PATIENT = Limits(run=PhaseLimits(cpu_s=5, wall_s=300, memory_mib=256))


@pytest.fixture
def stopping_reset() -> Iterator[None]:
    """The stopping mark is the process's: cleared after the test, for every test after it."""
    yield
    STOPPING.clear()


def test_an_interrupt_kills_the_running_program_and_keeps_what_finished(
    require_bwrap: None, stopping_reset: None, tmp_path: Path
) -> None:
    from sandboxes.backends.bwrap import BwrapBackend

    quick = request(Program.single(Language.PYTHON, "print('done')\n"))
    sleeper = request(Program.single(Language.PYTHON, "import time\ntime.sleep(300)\n"), limits=PATIENT)
    after = request(Program.single(Language.PYTHON, "print('never')\n"))
    with BwrapBackend(cache_dir=tmp_path) as backend:
        results = iter(backend.run_batch([quick, sleeper, after]))
        first = next(results)
        threading.Timer(1.0, stop_everything).start()
        began = time.monotonic()
        with pytest.raises(Stopped):
            next(results)
        waited = time.monotonic() - began
        assert no_sandbox_process_within(backend, seconds=10)
    assert first.verdict is Verdict.OK and first.run is not None and first.run.stdout == "done\n"
    assert waited < 60, f"the batch waited {waited:.0f} s for a program the interrupt should have killed"


def no_sandbox_process_within(backend: object, seconds: float) -> bool:
    """The kernel ends a dead sandbox's pid namespace shortly after its first process dies."""
    deadline = time.monotonic() + seconds
    while sandbox_uid_processes(backend) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not sandbox_uid_processes(backend)


def test_a_batch_started_after_the_interrupt_runs_nothing(
    require_bwrap: None, stopping_reset: None, tmp_path: Path
) -> None:
    from sandboxes.backends.bwrap import BwrapBackend

    stop_everything()
    with BwrapBackend(cache_dir=tmp_path) as backend, pytest.raises(Stopped):
        next(iter(backend.run_batch([request(Program.single(Language.PYTHON, "print(1)\n"))])))
