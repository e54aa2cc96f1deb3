"""How every surge flow runs Prefect: quiet, local, bounded.

Call ``configure_prefect()`` before importing ``prefect`` anywhere (settings are read at import):
PREFECT_HOME stays inside the project's working directory, telemetry is off, and with no
PREFECT_API_URL set Prefect starts its ephemeral server itself (no server to start by hand;
~8 s for the first flow of a process). Tasks take batches, never single programs: a task run
costs ~6 ms, and the default thread pool is unbounded, so ``task_runner()`` caps it.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_STATE_DIR = Path(".surge")


def configure_prefect(state_dir: Path = DEFAULT_STATE_DIR) -> None:
    defaults = {
        "PREFECT_HOME": str((state_dir / "prefect").resolve()),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_TO_API_ENABLED": "false",
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        # The ephemeral server's background services only feed the UI (schedules, automations, event
        # history); at process exit the task-run recorder is cancelled mid-flush and prints tracebacks.
        # Flow and task states are still written by the API itself.
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_LATE_RUNS_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_FOREMAN_ENABLED": "false",
    }
    for name, value in defaults.items():
        os.environ.setdefault(name, value)
    # Prefect creates its home without parents; missing, the ephemeral server never comes up and the
    # client waits for the start-up timeout before failing.
    Path(os.environ["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def task_runner(max_workers: int | None = None):  # -> ThreadPoolTaskRunner (import is deferred)
    configure_prefect()
    from prefect.task_runners import ThreadPoolTaskRunner

    return ThreadPoolTaskRunner(max_workers=max_workers or default_workers())


def batched(items: list, size: int) -> list[list]:
    """Split work into batches for tasks (one task per batch, not per item)."""
    return [items[start : start + size] for start in range(0, len(items), size)]
