"""How every surge flow runs Prefect: quiet, local, bounded (the pieces flows/engine.py's ``Engine`` uses).

Which settings Prefect runs with is flows/settings.py's: an engine puts them in force as Prefect's own
settings context for its work, never in ``os.environ``. With no server named by the user's settings,
``Engine.start_api()`` starts the app Prefect's ephemeral mode serves as a subprocess (``LocalApi``,
flows/api_server.py; no server to start by hand; ~5 s here, overlapped with the command's planning),
given its settings in the environment it starts with. Tasks take batches, never single programs: a task
run costs ~6 ms and ~4 KB of events, and the default thread pool is unbounded, so ``task_runner()`` caps
it. With a Dask scheduler address the batches run on that cluster instead (prefect-dask).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from flows.settings import PrefectSettings, choose_settings

# Prefect logs each failed task and flow with its traceback; the states in its database keep them.
ENGINE_LOGGERS = ("prefect.task_runs", "prefect.flow_runs")
# Prefect's background senders note on stderr that they are still sending ("EventsWorker - Still processing
# items: 300 items remaining...", named by the class, outside prefect's logger tree): at a command's end
# they drain and send all the same, so a person reads only noise. Their errors still show.
SENDER_LOGGERS = ("EventsWorker", "APILogWorker")
# Where Prefect says that its background senders failed: with its API gone, once per event, each line the
# event's whole repr (~2 KB), and the websocket's reconnect warning before each. ``OncePerKind`` keeps the
# first of each kind, in one short line; the command itself says, in its own line, that the API stopped.
SENDER_FAILURE_LOGGERS = ("prefect._internal.concurrency", "prefect.events.clients")


def configure_prefect(state_dir: Path | None = None) -> PrefectSettings:
    """Configure a process of surge's own, never a caller's: the API server, a Dask worker, a benchmark.

    Such a process reads its Prefect settings from its environment as it imports Prefect, so the chosen
    settings (flows/settings.py) go there, each only where the environment sets none, before anything
    imports Prefect. A command or a library call puts them in force as a settings context instead
    (``Engine``), leaving its process's environment as it was."""
    settings = choose_settings(state_dir)
    for name, value in settings.in_force.items():
        os.environ.setdefault(name, value)
    opt_out_of_telemetry()
    make_home(settings.home)
    return settings


def opt_out_of_telemetry() -> None:
    """In a process of surge's own (the `surge` executable, the API server, a Dask worker), as it starts:
    Prefect's client-side telemetry off unless its environment says otherwise. Prefect reads this opt-out
    from the environment alone (DO_NOT_TRACK, no setting), as it is imported: without it, a new user's
    first command in a terminal printed Prefect's telemetry notice and sent its first-import event. A
    library call runs in its caller's process and leaves this to the caller."""
    os.environ.setdefault("DO_NOT_TRACK", "1")


def make_home(home: Path) -> None:
    """Prefect creates its home without parents; missing, the ephemeral server never comes up and the
    client waits for the start-up timeout before failing."""
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a read-only working folder: one line with the fix, not a traceback
        from pipeline.errors import EngineUnavailable

        raise EngineUnavailable(
            f"cannot create Prefect's state folder {home}: {error.strerror}",
            hint="set PREFECT_HOME (or XDG_STATE_HOME) to a writable folder",
        ) from None


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def task_runner(max_workers: int | None = None, dask_address: str | None = None):  # -> a TaskRunner
    """A bounded thread pool here, or prefect-dask's runner on an existing Dask scheduler."""
    if dask_address:
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(address=dask_address)
    from prefect.task_runners import ThreadPoolTaskRunner

    return ThreadPoolTaskRunner(max_workers=max_workers or default_workers())


class LocalApi:
    """Prefect's API for this command: the app Prefect's ephemeral mode serves, as a subprocess on a free
    loopback port, started the moment a command knows it will run a flow.

    Prefect's own ephemeral start imports its server in the command's process first (about 4.5 s of CPU
    here, on top of the subprocess's own start), then boots the subprocess: one command paid ~10 s before
    its first task. Starting the subprocess directly overlaps its boot with the command's planning and
    leaves the command's CPU to the work (bench/bench_orchestration.py measures the fixed cost).
    """

    def __init__(self, settings: PrefectSettings) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/api"
        self.log_path = settings.home / f"server-{self.port}.log"
        self.keep_log = False
        # Its own session, so a Ctrl-C reaches the command (which records the flow as crashed through this
        # server) and not the server; it still dies with the command, even a command killed by SIGKILL.
        # -P: the command's working directory stays off the server's import path (a user's own `flows`
        # package there would shadow ours). Its settings are in the environment it starts with, a copy: the
        # command's own process keeps its environment as it was.
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-m", "flows.api_server", "--port", str(self.port)],
                env=settings.server_environment(),
                stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, preexec_fn=die_with_parent,
            )  # fmt: skip

    def wait_ready(self, timeout_s: float) -> None:
        """Block until the server answers its health check; a server that died or never answers is ours."""
        from pipeline.errors import EngineUnavailable

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        tail = self.log_path.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
        self.keep_log = True
        raise EngineUnavailable(
            f"Prefect's local API did not start on port {self.port}: {tail[0]}",
            hint=f"see {self.log_path}; or point PREFECT_API_URL at a running `prefect server start`",
        )

    def stop(self, wait: bool = True) -> None:
        """Shut the server down; ``wait`` until it has. A command leaving does not wait: by then its flow
        run's states and task runs are in the database (``wait_for_task_runs``), and the server's graceful
        shutdown (~0.2 s) was wall time of every command. It ends on its own, its log removed."""
        if self.process.poll() is None:
            self.process.terminate()
            if wait:
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
        if not self.keep_log:
            self.log_path.unlink(missing_ok=True)  # kept only to explain a failed start


def die_with_parent() -> None:
    """In the child before exec: the kernel sends SIGTERM when the thread that started it ends, which is
    the command's main thread (the engine starts it there), so when the command dies."""
    import ctypes

    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


SEND_AT_END_TIMEOUT_S = 5.0


class OncePerKind(logging.Filter):
    """Passes the first record of each kind (logger and message template), the item a background service
    failed to send named by its type rather than dumped."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if "failed to process item" in str(record.msg) and isinstance(record.args, tuple) and record.args:
            record.msg = "Service %r failed to send an item (%s) to Prefect's API; later failures not shown"
            record.args = (record.args[0], type(record.args[-1]).__name__)
        kind = (record.name, str(record.msg))
        if kind in self.seen:
            return False
        self.seen.add(kind)
        return True


def quiet_senders() -> None:
    """For the rest of the process (the senders' last drain is at its exit): their progress notes off,
    their failures once each, in one line."""
    for name in SENDER_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    for name in SENDER_FAILURE_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(known, OncePerKind) for known in logger.filters):
            logger.addFilter(OncePerKind())


def send_queued_logs() -> None:
    """Send the flows' queued log lines while the API still answers: Prefect's log worker sends in the
    background and drains at exit, after the command's own server is gone ("Error logging to API")."""
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=SEND_AT_END_TIMEOUT_S)


def send_queued_events() -> None:
    """Send the flows' queued events (the task runs' states, which the server records from them) while
    the API still answers. Prefect's events worker sends in the background and was drained only at the
    interpreter's exit: a short command ended with events still queued, and the drain's notes reached the
    terminal ("EventsWorker - Still processing items: 1 items remaining...", or connection errors once the
    command's own server had stopped)."""
    from prefect.events.worker import EventsWorker

    EventsWorker.drain_all(timeout=SEND_AT_END_TIMEOUT_S)


def check_api(url: str, timeout_s: float = 10.0) -> None:
    """The server the environment or the user's profile names must answer: one line with the fix, not an
    internal error from deep in Prefect's client."""
    from pipeline.errors import EngineUnavailable

    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/health", timeout=timeout_s):
            return
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise EngineUnavailable(
            f"Prefect's API at {url} (PREFECT_API_URL) does not answer: {reason}",
            hint="start it (`prefect server start`), or unset PREFECT_API_URL in the environment and in "
            "your Prefect profile (`prefect config unset PREFECT_API_URL`) to let surge start its own",
        ) from None


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


def cluster_threads(address: str) -> int:
    """How many batches a Dask cluster runs at once: its workers' threads (at least one)."""
    from distributed import Client

    from pipeline.errors import EngineUnavailable

    try:
        with Client(address, set_as_default=False, timeout=30) as client:
            return max(1, sum(client.nthreads().values()))
    except (OSError, TimeoutError) as error:
        raise EngineUnavailable(
            f"the Dask scheduler at {address} did not take a client: {error}",
            hint="check the scheduler (`dask scheduler`, docs/scale-out.md) or drop --dask-address",
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


_engine_logs_quiet: ContextVar[bool] = ContextVar("surge_engine_logs_quiet", default=False)


class QuietInside(logging.Filter):
    """Drops the records logged where ``quiet_engine_logs`` is in force: in its context and in the task
    threads that copy it. Whatever else logs there (the user's own flows, another thread's) passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _engine_logs_quiet.get()


@contextmanager
def quiet_engine_logs() -> Iterator[None]:
    """The engines' failure logs off for the flows run inside (the CLI prints each failure once, with its
    fix), by a context variable rather than the loggers' levels: a level is the whole process's, and two
    calls at once restored each other's."""
    for name in ENGINE_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(known, QuietInside) for known in logger.filters):
            logger.addFilter(QuietInside())
    token = _engine_logs_quiet.set(True)
    try:
        yield
    finally:
        _engine_logs_quiet.reset(token)


FLOW_LOGGER = "surge.flows"
_flow_log_made = threading.Lock()  # flows of two calls at once: one handler, or each line went out twice


def flow_log() -> Any:
    """The logger a flow writes its summary and warnings to: Prefect's API only (the CLI prints its own
    lines), so the UI shows them under the flow run and the terminal stays as it was. Its callers keep it
    bounded: a few lines a flow, never one per program or per batch."""
    logger = logging.getLogger(FLOW_LOGGER)
    with _flow_log_made:
        if not logger.handlers:
            from prefect.logging.handlers import APILogHandler

            logger.addHandler(APILogHandler())
            logger.setLevel(logging.INFO)
            logger.propagate = False
    return logger


def publish_summary(
    key: str,
    markdown: str,
    line: str,
    link: tuple[str, str] | None = None,
    warnings: Iterable[str] = (),
) -> None:
    """Inside a flow: its summary as a markdown artifact (``key``: lowercase letters, digits, dashes, the
    UI's Artifacts page groups by it), one log line, a link artifact (url, text), e.g. its report, and a
    warning per failure of ours (the caller bounds them)."""
    from prefect.artifacts import create_link_artifact, create_markdown_artifact

    create_markdown_artifact(markdown, key=key)
    if link is not None:
        create_link_artifact(link[0], link_text=link[1], key=f"{key}-report")
    log = flow_log()
    log.info(line)
    for warning in warnings:
        log.warning(warning)


class FailedWithSummary(Exception):
    """Something of ours failed in a flow: the flow run ends Failed (Prefect's UI says so), and the
    command still prints what was done, from the summary this carries."""

    def __init__(self, summary: Any) -> None:
        super().__init__(summary)
        self.summary = summary


def summary_of(state: Any) -> Any:
    """A finished flow run's summary: its result, or the summary its failure of ours carried; any other
    failure is raised as it was."""
    outcome = state.result(raise_on_failure=False)
    if isinstance(outcome, FailedWithSummary):
        return outcome.summary
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome
