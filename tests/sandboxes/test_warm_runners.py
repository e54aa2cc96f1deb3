"""Runners stay warm between the backends of one process (a job opens one backend per batch)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pipeline.records import Program, Verdict
from tests.conftest import require_tool
from tests.sandboxes.conftest import run_one


def runner_pids(backend: Any) -> list[int]:
    return [runner.process.pid for runner in backend.launcher.all_runners]


def run_in_new_backend(cache_dir: Path, source: str) -> tuple[Any, list[int]]:
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=cache_dir) as backend:
        result = run_one(backend, Program.single("python", source))
        return result, runner_pids(backend)


def test_the_next_backend_takes_the_runner_the_last_one_left(tmp_path: Path) -> None:
    require_tool("bwrap")
    first, first_pids = run_in_new_backend(tmp_path, "open('/tmp/left-behind', 'w').write('x'); print(1)")
    second, second_pids = run_in_new_backend(tmp_path, "import os; print(os.path.exists('/tmp/left-behind'))")
    assert first.label == "1\n" and second_pids == first_pids
    assert second.verdict is Verdict.OK and second.label == "False\n"  # the workspace was reset


def test_a_warm_runner_outlives_the_thread_that_started_it(tmp_path: Path) -> None:
    """bwrap's --die-with-parent follows the starting *thread*: batch threads end, their runners stay."""
    require_tool("bwrap")
    started: list[list[int]] = []
    thread = threading.Thread(target=lambda: started.append(run_in_new_backend(tmp_path, "print(1)")[1]))
    thread.start()
    thread.join()
    result, pids = run_in_new_backend(tmp_path, "print(2)")
    assert result.verdict is Verdict.OK and result.label == "2\n", result.run
    assert pids == started[0]
