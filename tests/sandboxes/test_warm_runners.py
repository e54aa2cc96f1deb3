"""Runners stay warm between the backends of one process (a job opens one backend per batch)."""

from __future__ import annotations

import os
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


def test_a_forked_child_starts_runners_of_its_own(tmp_path: Path) -> None:
    require_tool("bwrap")
    _, parent_pids = run_in_new_backend(tmp_path, "print(1)")
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        result, pids = run_in_new_backend(tmp_path, "print(2)")
        os._exit(0 if result.label == "2\n" and pids != parent_pids else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    again, pids = run_in_new_backend(tmp_path, "print(3)")
    assert again.label == "3\n" and pids == parent_pids  # ours stayed ours
