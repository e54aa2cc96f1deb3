"""How every surge flow runs Prefect: quiet, local, bounded.

Call ``configure_prefect()`` before importing ``prefect`` anywhere (settings are read at import):
PREFECT_HOME stays inside the project's working directory, telemetry is off, and with no
PREFECT_API_URL set Prefect starts its ephemeral server itself (no server to start by hand;
~8 s for the first flow of a process). Tasks take batches, never single programs: a task run
costs ~6 ms and ~4 KB of events, and the default thread pool is unbounded, so ``task_runner()`` caps
it. With a Dask scheduler address the batches run on that cluster instead (prefect-dask).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
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
        # Prefect 3 records task runs from their events (the task-run recorder): it stays on, so each
        # batch is a task run with its state in Prefect's database (issue 10); ``wait_for_task_runs``
        # lets it catch up before the process exits. The other services only feed the UI.
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "true",
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


def task_runner(max_workers: int | None = None, dask_address: str | None = None):  # -> a TaskRunner
    """A bounded thread pool here, or prefect-dask's runner on an existing Dask scheduler."""
    configure_prefect()
    if dask_address:
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(address=dask_address)
    from prefect.task_runners import ThreadPoolTaskRunner

    return ThreadPoolTaskRunner(max_workers=max_workers or default_workers())


_prestarted: list[threading.Thread] = []


def prestart_api() -> None:
    """Start Prefect's ephemeral server in the background while the command plans (it takes seconds).

    ``api_ready()`` joins it before the first flow: the server object is shared, and a second ``start``
    while the first is still booting would return before the server answers."""
    configure_prefect()
    from prefect.settings import PREFECT_API_URL

    if _prestarted or PREFECT_API_URL.value():
        return

    def start() -> None:
        from prefect.server.api.server import SubprocessASGIServer

        with contextlib.suppress(Exception):  # the flow's own start reports any failure, with its reason
            SubprocessASGIServer().start()

    _prestarted.append(threading.Thread(target=start, name="prefect-prestart", daemon=True))
    _prestarted[0].start()


def api_ready() -> None:
    for thread in _prestarted:
        thread.join()


@contextmanager
def api_for_workers(dask_address: str | None) -> Iterator[None]:
    """Dask workers run the task engine in their own processes and must reach the same Prefect API.

    With PREFECT_API_URL set (a `prefect server start` every host reaches, docs/scale-out.md) nothing is
    needed. Without it, Prefect would start one ephemeral server per worker process (tens of seconds
    each, and task runs recorded in the wrong database): the command's own ephemeral server is started
    here and its URL travels to the workers in the settings Prefect sends with each task. That URL is on
    127.0.0.1, so this only serves workers on this host (a local cluster, the tests).
    """
    from prefect.settings import PREFECT_API_URL, temporary_settings

    if not dask_address or PREFECT_API_URL.value():
        yield
        return
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()
    server.start(timeout=int(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"]))
    with temporary_settings({PREFECT_API_URL: server.api_url}):
        yield


def check_dask_address(address: str, timeout_s: float = 10.0) -> None:
    """Fail fast, with the fix, when no scheduler answers (before any flow run is created)."""
    from pipeline.errors import ConfigurationError

    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not address.startswith("tcp://") or not host or not port.isdigit():
        raise ConfigurationError(
            f"--dask-address {address!r} is not a scheduler address", hint="write it as tcp://HOST:PORT"
        )
    import socket

    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise ConfigurationError(
            f"no Dask scheduler answers at {address}: {error.strerror or error}",
            hint="start one (`dask scheduler` and `dask worker ADDRESS` on each host, docs/scale-out.md) "
            "or drop --dask-address to run here",
        ) from None


def wait_for_task_runs(flow_run_id: object, expected: int, timeout_s: float = 15.0) -> int:
    """Wait until Prefect's database holds the flow's task runs in final states; returns how many it does.

    Task runs reach the database through the server's task-run recorder, a little after the flow ends;
    without this wait a short command exits first and its batches are missing from Prefect's history.
    """
    import asyncio
    import time

    from prefect.client.orchestration import get_client

    query = {
        "flow_runs": {"id": {"any_": [str(flow_run_id)]}},
        "task_runs": {"state": {"type": {"any_": ["COMPLETED", "FAILED", "CRASHED", "CANCELLED"]}}},
    }

    async def final_count() -> int:
        async with get_client() as client:
            response = await client._client.post("/task_runs/count", json=query)
        return int(response.json())

    deadline = time.monotonic() + timeout_s
    count = asyncio.run(final_count())
    while count < expected and time.monotonic() < deadline:
        time.sleep(0.2)
        count = asyncio.run(final_count())
    return count
