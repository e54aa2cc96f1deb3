"""The engine a command (or an API call) runs its flows with: one object, created and closed by its owner.

    with Engine() as engine:
        engine.start_api()                      # Prefect's API boots while the command plans
        with engine.head_start(...):            # a plan's first batches run meanwhile
            with engine.connected(tags):        # the flow runs against that API
                ...

It holds, as its own state, what used to be module globals reached from threads and tasks: this
command's Prefect API process (``flows.runtime.LocalApi``), its head start (``flows.head_start``) and
the claims on it, how many batches may run programs at once (``sandbox_slots``), and who hears of rows
as they are stored (the progress line). Entering it configures Prefect's environment
(``flows.runtime.configure_prefect``): nothing is configured when a module is imported.

Who runs a batch is decided here. The flow's body and its tasks reach the engine through one context
variable the engine sets while it is open (``current_engine``): Prefect's thread pool copies the
submitting thread's context into each task thread, so a task here claims the head start's outcome
for its batch. A task on a Dask worker runs in another process, where no engine is open
(``engine_here`` is None): there the flow claims for it (flows/head_start.py). Flow and task parameters
stay references (a store path, a plan id, a batch id): the engine never rides in them.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar, Token
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from flows.runtime import (
    HEARTBEAT_VARIABLES,
    LocalApi,
    check_api,
    collector_paused,
    configure_prefect,
    quiet_engine_logs,
    quiet_senders,
    send_queued_events,
    send_queued_logs,
)

if TYPE_CHECKING:  # loaded as a batch first runs: the executable opens an engine before its own imports
    from flows.head_start import HeadStart
    from pipeline.batches import BatchCounts, RowsListener

_current: ContextVar[Engine | None] = ContextVar("surge_engine", default=None)


class Engine:
    """This command's Prefect API, head start, claims, sandbox slots and row listeners."""

    def __init__(self, state_dir: Path | None = None) -> None:
        self.state_dir = state_dir
        self.api: LocalApi | None = None
        self.early: HeadStart | None = None
        self.slots: threading.BoundedSemaphore | None = None
        self.listeners: list[RowsListener] = []
        self.token: Token[Engine | None] | None = None
        self.environment: dict[str, str] = {}

    def __enter__(self) -> Engine:
        self.environment = dict(os.environ)
        configure_prefect(self.state_dir)
        self.token = _current.set(self)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.token is not None:
            _current.reset(self.token)
            self.token = None
        self.stop_api()
        self.restore_environment()

    def restore_environment(self) -> None:
        """Prefect's settings go into the environment as the engine opens (Prefect and its API server
        read them there); the caller's environment comes back as it closes."""
        for name in set(os.environ) - set(self.environment):
            del os.environ[name]
        for name, value in self.environment.items():
            if os.environ.get(name) != value:
                os.environ[name] = value

    # -- Prefect's API -------------------------------------------------------------------------

    def start_api(self) -> None:
        """Start this command's Prefect API now, in the background, unless PREFECT_API_URL names one."""
        if self.api is None and not os.environ.get("PREFECT_API_URL"):
            self.api = LocalApi()

    def stop_api(self) -> None:
        """Shut the local API down without waiting (by now the flows' states are in its database)."""
        if self.api is not None:
            self.api.stop(wait=False)
            self.api = None

    def import_prefect(self) -> None:
        """Prefect's flow and task engines, imported once per process without the cyclic collector
        (``collector_paused``); after ``__enter__``, since Prefect reads its settings as it is imported."""
        if "prefect.flows" in sys.modules:
            return
        with collector_paused():
            import fastapi.encoders  # noqa: F401  (a flow run's creation serializes its parameters with it)
            import prefect.flows  # noqa: F401  (the flow and task engines, their futures and cache policies)

    @contextmanager
    def connected(self, job_tags: tuple[str, ...] | list[str] = ()) -> Iterator[None]:
        """Run the flows inside against this command's API: PREFECT_API_URL's server if set, else the
        local one (started now if nobody started it). Its URL also reaches Dask workers in the settings
        Prefect sends with each task, so a cluster records its task runs in the command's database. The
        engines' failure logs stay quiet (the CLI prints each failure once, with its fix) and every run is
        tagged with the job's tags (``flows.naming.job_tags``), which the UI's filters offer.

        Flow-run heartbeats are off unless the environment sets their frequency: they serve automations
        that mark silent flows crashed, which a per-command API never runs, and their thread, sleeping in
        one-second steps, held every flow's end for up to a second (0.4 s on average, measured)."""
        self.start_api()
        self.import_prefect()
        from prefect import tags
        from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

        updates: dict[Any, Any] = {}
        if not HEARTBEAT_VARIABLES & os.environ.keys():
            updates[PREFECT_FLOWS_HEARTBEAT_FREQUENCY] = None
        if self.api is not None:
            self.api.wait_ready(float(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"]))
            updates[PREFECT_API_URL] = self.api.url
        else:
            check_api(os.environ["PREFECT_API_URL"])
        import httpx

        from pipeline.errors import EngineUnavailable

        quiet_senders()
        with temporary_settings(updates), quiet_engine_logs(), tags(*job_tags):
            try:
                yield
            except httpx.TransportError as error:  # the server went away during the work: ours, one line
                raise EngineUnavailable(
                    f"Prefect's API at {PREFECT_API_URL.value()} stopped answering: {error}",
                    hint="run the command again (finished rows are kept); if you run the server, check it "
                    "is up",
                ) from None
            finally:  # while the API still answers: Prefect's senders drained only at the process's exit
                send_queued_logs()
                send_queued_events()

    # -- who runs a batch ----------------------------------------------------------------------

    @contextmanager
    def sandbox_slots(self, count: int | None) -> Iterator[None]:
        """At most ``count`` batches of this process run programs at once, inside (None: no bound, as on
        a Dask worker). A command runs one batch thread more than that: a batch's own work before its
        first program and after its last (its requests, its part, ~35 ms of a core) then overlaps the
        other batches' programs (pipeline/batches.py, SMALLEST_BATCH)."""
        before, self.slots = self.slots, threading.BoundedSemaphore(count) if count else None
        try:
            yield
        finally:
            self.slots = before

    def batch_slot(self) -> threading.BoundedSemaphore | nullcontext[None]:
        """What a batch of this process holds while it runs programs."""
        return self.slots if self.slots is not None else nullcontext()

    @contextmanager
    def rows_heard(self, listener: RowsListener) -> Iterator[None]:
        """Call ``listener`` for each part this process's batches write, inside."""
        self.listeners.append(listener)
        try:
            yield
        finally:
            self.listeners.remove(listener)

    def rows_stored(self, batch_id: str, runs: int) -> None:
        """A batch of this process stored rows (or found them stored): tell whoever listens now."""
        for listener in list(self.listeners):
            listener(batch_id, runs)

    @contextmanager
    def head_start(
        self,
        store_root: Path | str,
        plan_id: str,
        batch_ids: list[str],
        unsafe: bool,
        workers: int,
        dask_address: str | None = None,
    ) -> Iterator[HeadStart | None]:
        """Run the plan's batches until the flow's body begins (``stop_head_start``); always closed,
        also on an interrupt, and what nobody claimed is forgotten."""
        from flows.head_start import ClusterHeadStart, HeadStart

        if not batch_ids:
            yield None
            return
        if dask_address:
            started: HeadStart = ClusterHeadStart(self, store_root, plan_id, batch_ids, unsafe, dask_address)
        else:
            started = HeadStart(self, store_root, plan_id, batch_ids, unsafe, workers)
        self.early = started
        try:
            yield started
        finally:
            started.close()
            started.forget()
            self.early = None

    def run_batch(self, store_root: Path | str, plan_id: str, batch_id: str, unsafe: bool) -> BatchCounts:
        """One planned batch in this process: in one of the engine's sandbox slots, its rows heard."""
        from pipeline.batches import execute_batch

        return execute_batch(
            store_root, plan_id, batch_id, unsafe, slot=self.batch_slot(), heard=self.rows_stored
        )

    def claim(self, batch_id: str) -> Future[BatchCounts] | None:
        """For a task of this process: the head start's outcome for its batch, once; None when the task
        runs the batch itself."""
        return self.early.claim(batch_id) if self.early is not None else None

    def claim_taken(self, batch_ids: list[str]) -> dict[str, Future[BatchCounts]]:
        """For the flow: the outcomes of the batches a cluster head start took, once (after
        ``stop_head_start``)."""
        return self.early.claim_taken(batch_ids) if self.early is not None else {}

    def stop_head_start(self) -> None:
        """What the flow calls as its body begins: the head start takes no other batch; from here on the
        flow's tasks run every batch or claim it."""
        if self.early is not None:
            self.early.stop()


def engine_here() -> Engine | None:
    """The engine open in this context: None in a task on a Dask worker (another process)."""
    return _current.get()


def current_engine() -> Engine:
    """The engine the flow runs under (a flow's body always runs in its command's process)."""
    engine = _current.get()
    if engine is None:
        raise RuntimeError("a surge flow ran outside an engine: open one with `with Engine() as engine:`")
    return engine


@contextmanager
def using_engine() -> Iterator[Engine]:
    """The engine its caller opened (the `surge` executable opens one per command), else one for this
    call alone, closed when it returns."""
    engine = _current.get()
    if engine is not None:
        yield engine
        return
    with Engine() as engine:
        yield engine
