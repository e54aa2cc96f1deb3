"""The engine a command (or an API call) runs its flows with: one object, created and closed by its owner.

    with Engine() as engine:
        engine.start_api()                      # Prefect's API boots while the command plans
        with engine.head_start(...):            # a plan's first batches run meanwhile
            with engine.connected(tags):        # the flow runs against that API
                ...

It holds, as its own state, what used to be module globals reached from threads and tasks: this
command's Prefect API process (``flows.runtime.LocalApi``), its head start (``flows.head_start``) and
the claims on it, how many batches may run programs at once (``sandbox_slots``), who hears of rows as
they are stored (the progress line), and the Prefect settings it runs with (flows/settings.py): chosen
as it opens, in force as Prefect's own settings context while its owner works with it
(``settings_in_force``, which ``using_engine`` and ``connected`` enter). The process's environment is
never written, so engines in two threads, or one inside a flow of the user's, each keep their own.
Nothing is configured when a module is imported.

Who runs a batch is decided here. The flow's body and its tasks reach the engine through one context
variable the engine sets while it is open (``current_engine``): Prefect's thread pool copies the
submitting thread's context into each task thread, so a task here claims the head start's outcome
for its batch. A task on a Dask worker runs in another process, where no engine is open
(``engine_here`` is None): there the flow claims for it (flows/head_start.py). Flow and task parameters
stay references (a store path, a plan id, a batch id): the engine never rides in them.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar, Token
from pathlib import Path
from queue import SimpleQueue
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

from flows.collector import collector_paused
from flows.runtime import (
    LocalApi,
    check_api,
    make_home,
    quiet_engine_logs,
    quiet_senders,
    send_queued_events,
    send_queued_logs,
)
from flows.settings import PrefectSettings, choose_settings, settings_in_force

if TYPE_CHECKING:  # loaded as a batch first runs: the executable opens an engine before its own imports
    from flows.head_start import HeadStart
    from pipeline.batches import BatchCounts, Feed, RowsListener

_current: ContextVar[Engine | None] = ContextVar("surge_engine", default=None)
# The engine whose Prefect settings are in force in this context (entered once, however deeply nested).
_in_force: ContextVar[Engine | None] = ContextVar("surge_engine_settings", default=None)
# The commands that run a Prefect flow. The executable starts their local API first of all, so that its
# boot (~7 CPU-s on 2 cores) overlaps the command's own imports and parsing (~1.5 s on one core, the
# other idle) instead of the batches.
FLOW_COMMANDS = frozenset({"run", "audit", "build", "pull", "refactor"})


class Stored(NamedTuple):
    """Runs a batch of this process stored (a long one as it ended: ``pipeline.batches.STORED_AT_ONCE_S``;
    the rest with their batch's parts)."""

    run_ids: list[str]


class Fed(NamedTuple):
    """A fed job's source of work and its mailbox: ``Stored`` runs, and its flow's batch futures as they
    end, in the order they happened (one queue: the flow waits on both)."""

    feed: Feed
    mailbox: SimpleQueue[Any]


class Engine:
    """This command's Prefect API, head start, claims, sandbox slots and row listeners."""

    def __init__(self, state_dir: Path | None = None) -> None:
        self.state_dir = state_dir
        self.api: LocalApi | None = None
        self.early: HeadStart | None = None
        self.slots: threading.BoundedSemaphore | None = None
        self.slot_count = 0  # batches running programs at once here (0: no bound here, as on Dask)
        self.listeners: list[RowsListener] = []
        self.token: Token[Engine | None] | None = None
        self.chosen: PrefectSettings | None = None
        self.feeds: dict[str, Fed] = {}  # feed id -> the job's source of work (``run_feed``)

    def __enter__(self) -> Engine:
        self.chosen = choose_settings(self.state_dir)
        make_home(self.chosen.home)
        self.token = _current.set(self)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.token is not None:
            _current.reset(self.token)
            self.token = None
        self.stop_api()

    @property
    def settings(self) -> PrefectSettings:
        """The Prefect settings chosen as the engine opened."""
        if self.chosen is None:
            raise RuntimeError("an engine's settings are chosen as it opens: use `with Engine() as engine:`")
        return self.chosen

    @contextmanager
    def settings_in_force(self) -> Iterator[None]:
        """This engine's Prefect settings in force inside, as Prefect's settings context (for this thread
        and whatever copies its context); entered once per context, so a command's own ``using_engine``
        inside the executable's costs nothing."""
        if _in_force.get() is self:
            yield
            return
        token = _in_force.set(self)
        try:
            with settings_in_force(self.settings.updates()):
                yield
        finally:
            _in_force.reset(token)

    # -- Prefect's API -------------------------------------------------------------------------

    def start_api(self) -> None:
        """Start this command's Prefect API now, in the background, unless the user's settings name one."""
        if self.api is None and self.settings.api_url is None:
            self.api = LocalApi(self.settings)

    def stop_api(self) -> None:
        """Shut the local API down without waiting (by now the flows' states are in its database)."""
        if self.api is not None:
            self.api.stop(wait=False)
            self.api = None

    def import_prefect(self) -> None:
        """Prefect's flow and task engines, imported once per process without the cyclic collector
        (``collector_paused``); inside ``settings_in_force``, since Prefect sets up its logging from the
        settings in force as it is imported."""
        if "prefect.flows" in sys.modules:
            return
        with collector_paused():
            import prefect.flows  # noqa: F401  (the flow and task engines, their futures and cache policies)

    @contextmanager
    def connected(self, job_tags: tuple[str, ...] | list[str] = ()) -> Iterator[None]:
        """Run the flows inside against this command's API: the server the user's settings name, else the
        local one (started now if nobody started it), with the engine's settings in force. Its URL also
        reaches Dask workers in the settings Prefect sends with each task, so a cluster records its task
        runs in the command's database. The engines' failure logs stay quiet (the CLI prints each failure
        once, with its fix) and every run is tagged with the job's tags (``flows.naming.job_tags``), which
        the UI's filters offer."""
        self.start_api()
        with self.settings_in_force():
            self.import_prefect()
            with self.api_in_force(), quiet_engine_logs(), self.tagged(job_tags):
                yield

    @contextmanager
    def api_in_force(self) -> Iterator[None]:
        """The local API's URL in Prefect's settings once it answers; the user's server must answer."""
        if self.api is None:
            check_api(self.settings.api_url or "")
            yield
            return
        self.api.wait_ready(self.settings.startup_timeout_s)
        with settings_in_force({"PREFECT_API_URL": self.api.url}):
            yield

    @contextmanager
    def tagged(self, job_tags: tuple[str, ...] | list[str]) -> Iterator[None]:
        """The flows' work under the job's tags; a server gone mid-work is one line of ours; the queued
        logs and events sent while the API still answers (Prefect drains its senders only at the
        process's exit)."""
        import httpx
        from prefect import tags
        from prefect.settings import PREFECT_API_URL

        from pipeline.errors import EngineUnavailable

        quiet_senders()
        with tags(*job_tags):
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
        before = self.slots, self.slot_count
        self.slots, self.slot_count = (threading.BoundedSemaphore(count), count) if count else (None, 0)
        try:
            yield
        finally:
            self.slots, self.slot_count = before

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

    @contextmanager
    def feeding(self, feed: Feed) -> Iterator[str]:
        """Hold ``feed`` inside, under the id a flow is given to reach it: a flow's parameters are
        references, and the feed (an audit's labels and results) stays in this process. From now on
        (the head start's batches too), the runs this process's batches store are posted to the feed's
        mailbox as ``Stored``, so its flow lands them as they are stored, not as their batches end."""
        feed_id = uuid.uuid4().hex
        fed = Fed(feed, SimpleQueue())
        self.feeds[feed_id] = fed
        try:
            with self.rows_heard(lambda _batch_id, run_ids: fed.mailbox.put(Stored(run_ids))):
                yield feed_id
        finally:
            del self.feeds[feed_id]

    def feed(self, feed_id: str) -> Fed:
        return self.feeds[feed_id]

    def rows_stored(self, batch_id: str, run_ids: list[str]) -> None:
        """A batch of this process stored rows (or found them stored): tell whoever listens now."""
        for listener in list(self.listeners):
            listener(batch_id, run_ids)

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
        """One planned batch in this process: in one of the engine's sandbox slots, its rows heard (while
        it feeds a job, a long run's as it ends)."""
        from pipeline.batches import STORED_AT_ONCE_S, execute_batch

        at_once_s = STORED_AT_ONCE_S if self.feeds else None
        return execute_batch(
            store_root,
            plan_id,
            batch_id,
            unsafe,
            slot=self.batch_slot(),
            heard=self.rows_stored,
            at_once_s=at_once_s,
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
    call alone, closed when it returns; its Prefect settings in force inside."""
    engine = _current.get()
    if engine is not None:
        with engine.settings_in_force():
            yield engine
        return
    with Engine() as engine, engine.settings_in_force():
        yield engine


def engine_for(command: str) -> AbstractContextManager[object]:
    """A flow command runs inside an engine: the caller's (the executable's), else one of its own.
    Entered before the command imports its flows: Prefect sets up its logging from the settings in
    force as it is imported."""
    if command not in FLOW_COMMANDS:
        return nullcontext()
    return using_engine()
