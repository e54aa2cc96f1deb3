"""Iterative refactor (ml, cl and bg): the existing refactor stack, then rows.

Per batch: each upstream item goes through the repair loop (LLM refactor, sandbox repair rounds, leak
guard; pipeline/refactor/loop.py) into the review queue (``<store>/review.db``, pipeline/review). Only
approved programs become rows; with ``--auto-approve`` a runnable candidate is approved by the reviewer
``auto-approve``, and its row says so. The approved program is executed again through the build's
execute step (its run lands in the runs table) and labelled with its stdout. A refactor the model got
wrong, a rejected review or a program that no longer runs is an outcome with its reason; an item still
waiting for review has no outcome, so the next build picks it up once it is decided. A refactor that
ended because the endpoint or the sandbox failed is ours (pipeline/build/failures.py): no outcome, the
item is tried again by the next run.

cl: the LLM proposes a 1-5 difficulty (pipeline/refactor/prompts/difficulty.v1.md) and the reviewer
confirms or changes it (`surge review approve ID --difficulty N`); ``--auto-approve`` confirms the proposal
as ``auto-approve`` and leaves an item the LLM could not rate for a human. The row keeps both.

LLM endpoint: the command's --llm-* flags over SURGE_LLM_* settings if set, else the recorded responses in
pipeline/build/recorded/ served by a local chat-completions server started here
(pipeline/llm/replay_server.py). An item they hold no answer for is skipped, not dropped: setting an
endpoint builds it. Items of a batch are refactored ``--llm-concurrency`` at a time; a ``--budget``
stops asking once the run has spent it (pipeline/build/spend.py): an item it stopped is recorded
nowhere, so the next run refactors it in its place, replaying the answers the response cache holds.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack, contextmanager
from pathlib import Path
from queue import SimpleQueue
from typing import TYPE_CHECKING

from pipeline.build import failures, spend
from pipeline.build.execute import execute
from pipeline.build.failures import Built, OurFailure, Ours
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import run_ref, upstream_of
from pipeline.dataset_rows import DatasetRow
from pipeline.errors import BudgetSpent, ConfigurationError
from pipeline.llm import LLMClient, LLMSettings
from pipeline.llm.replay_server import RECORDED_MODEL, RecordedServer, load_recorded
from pipeline.programs import method_setting_for
from pipeline.questions import program_question
from pipeline.records import Program, RunRequest, RunResult, SourceItem, Verdict
from pipeline.refactor.execute import REFACTOR_LIMITS, Executor
from pipeline.refactor.loop import RepairLoop
from pipeline.refactor.methods import method_for
from pipeline.refactor.outcome import Outcome
from pipeline.review import queue_of
from pipeline.review.queue import ACCEPTED_STATES, Entry, ReviewQueue, State
from sandboxes import open_backend
from sandboxes.profiles import get_profile

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec

RECORDED_DIR = Path(__file__).parent / "recorded"
AUTO_REVIEWER = "auto-approve"


@contextmanager
def llm_settings(config: BuildConfig) -> Iterator[LLMSettings]:
    """The configured endpoint (the command's flags over SURGE_LLM_*), or a local server of recorded
    responses for the life of the block."""
    configured = config.llm or LLMSettings.from_env()
    if configured.base_url and configured.model:
        yield configured
        return
    with (
        RecordedServer(load_recorded(RECORDED_DIR / f"{config.subset}.jsonl")) as server,
        tempfile.TemporaryDirectory() as cache,
    ):
        yield LLMSettings(
            base_url=server.base_url,
            model=RECORDED_MODEL,
            cache_dir=Path(cache),
            max_retries=0,
            concurrency=configured.concurrency,
        )


def refactor_items(
    store: Store, config: BuildConfig, items: list[SourceItem], batch: int = 0
) -> tuple[bool, set[str]]:
    """Run the repair loop on items the queue has not decided yet, up to ``--llm-concurrency`` at a time;
    (whether the recorded default was used, the items the budget stopped before their refactor ended)."""
    queue = ReviewQueue(queue_of(store.root))
    done = queue.done_item_ids()
    todo = [item for item in items if item.item_id not in done]
    with llm_settings(config) as settings:
        recorded = settings.model == RECORDED_MODEL
        if not todo:
            return recorded, set()
        client = LLMClient(settings, allowance=spend.allowance_of(store, config))
        stopped: set[str] = set()
        try:
            stopped = _refactor_concurrently(queue, client, config, todo)
        finally:
            client.close()
            spend.record(store, config, batch, client.usage, len(stopped))
    return recorded, stopped


def _refactor_concurrently(
    queue: ReviewQueue, client: LLMClient, config: BuildConfig, todo: list[SourceItem]
) -> set[str]:
    """Each item's repair loop in a thread of its own, each thread's candidates in a sandbox of its own
    (the client bounds requests in flight); every outcome is queued as it ends, so a kill loses only the
    items in flight, whose answers the response cache already holds."""
    width = min(client.settings.concurrency, len(todo))
    stopped: set[str] = set()
    with ExitStack() as stack, ThreadPoolExecutor(max_workers=width) as pool:
        loops: SimpleQueue[RepairLoop] = SimpleQueue()
        for _ in range(width):
            sandbox = stack.enter_context(open_backend(config.backend, unsafe=config.unsafe, workers=1))
            loops.put(RepairLoop(client, Executor(sandbox, get_profile(config.profile))))
        futures = {pool.submit(_refactor_one, loops, item): item for item in todo}
        for future in as_completed(futures):
            item = futures[future]
            try:
                outcome = future.result()
            except BudgetSpent:
                stopped.add(item.item_id)  # not queued: a rerun replays its cached answers and goes on
                continue
            queue.add_outcome(item, outcome)
    return stopped


def _refactor_one(loops: SimpleQueue[RepairLoop], item: SourceItem) -> Outcome:
    loop = loops.get()
    try:
        return loop.refactor(item)
    finally:
        loops.put(loop)


def build_refactored(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """Refactor the batch's items, then run every approved program of the batch in one sandbox (``--workers``
    at a time) and label it."""
    sources = {item.item_id: SourceItem.model_validate_json(item.source_item_json) for item in items}
    batch = items[0].batch if items else 0
    recorded, stopped = refactor_items(store, config, list(sources.values()), batch)
    queue = ReviewQueue(queue_of(store.root))
    outcomes: list[BuildOutcome] = []
    ours: list[OurFailure] = []
    approved: list[tuple[BuildItem, Entry, bool]] = []
    for item in items:
        source = sources[item.item_id]
        if source.item_id in stopped:
            detail = f"budget {config.budget.describe()} spent"
            ours.append(OurFailure(kind=Ours.BUDGET_SPENT, index=item.index, detail=detail))
            continue  # nothing recorded: the next run refactors it in its place
        decided = _decide(config, queue, item, recorded)
        if isinstance(decided, OurFailure):
            ours.append(decided)
        elif isinstance(decided, BuildOutcome):
            outcomes.append(decided)
        elif decided is not None:
            approved.append((item, *decided))
    requests = [_request(spec, config, sources[item.item_id], entry) for item, entry, _ in approved]
    runs = execute(store, requests, config.backend, config.unsafe, config.workers)
    rows: list[DatasetRow] = []
    for (item, entry, auto), run in zip(approved, runs, strict=True):
        if failure := failures.of_runs_failure([run], item.index):
            ours.append(failure)
            continue
        if why := _unusable(spec, run):
            outcomes.append(_outcome(config, item, "dropped", f"approved program: {why}", (), (run.run_id,)))
            continue
        assert entry.program is not None
        made = _row(spec, config, sources[item.item_id], entry.program, run, auto, recorded, entry.extra)
        outcomes.append(_outcome(config, item, "kept", "", (made.row_id,), (run.run_id,)))
        rows.append(made)
    return outcomes, rows, ours


def _decide(
    config: BuildConfig, queue: ReviewQueue, item: BuildItem, recorded: bool
) -> OurFailure | BuildOutcome | tuple[Entry, bool] | None:
    """What the queue says of one refactored item: a failure of ours, an outcome (dropped), an approved
    entry with whether it was auto-approved, or None (waiting for a human: no outcome yet)."""
    source = SourceItem.model_validate_json(item.source_item_json)
    entry = queue.get(source.item_id)
    auto = False
    if entry.state is State.PENDING and config.auto_approve and _auto_approvable(entry):
        entry, auto = queue.approve(entry.entry_id, AUTO_REVIEWER), True
    auto = auto or entry.reviewer == AUTO_REVIEWER
    if entry.state is State.PENDING:
        return None
    if entry.state is State.FAILED and (kind := failures.of_refactor(entry.failure, recorded)):
        # the queue retries a failed entry; the build records nothing for it
        return OurFailure(kind=kind, index=item.index, detail=entry.failure[:200])
    if entry.state is State.FAILED:
        return _outcome(config, item, "dropped", f"refactor failed: {entry.failure}", (), ())
    if entry.state not in ACCEPTED_STATES or entry.program is None:
        return _outcome(config, item, "dropped", f"rejected review: {entry.reason}", (), ())
    return entry, auto


def _request(spec: SubsetSpec, config: BuildConfig, source: SourceItem, entry: Entry) -> RunRequest:
    """The approved program's run as the subset labels it (its profile and limits), twice for determinism."""
    assert entry.program is not None
    return RunRequest(
        program=entry.program,
        setting=method_setting_for(entry.program, method_for(source).setting),
        profile=get_profile(spec.build_profile_for(config.profile)),
        limits=spec.build_limits or REFACTOR_LIMITS,
        repeats=2,
    )


def _auto_approvable(entry: Entry) -> bool:
    """A runnable candidate, and if rated, rated by the LLM: a missing difficulty needs a human."""
    rated = "difficulty" in entry.extra
    return entry.run_is_acceptable and (not rated or entry.extra["difficulty"] is not None)


def _unusable(spec: SubsetSpec, run: RunResult) -> str:
    """Why an approved program's run cannot be a label ('' if it can). A subset that labels failing runs
    (bg: that is the point of a bug) still drops cases past its time limit, as SURGE did; ml/cl need a
    clean run."""
    if run.distinct_outputs > 1:
        return "non-deterministic"
    if spec.labels_failures:
        limits = {Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT}
        return "timeout (past 30 s)" if run.verdict in limits else ""
    return "" if run.verdict is Verdict.OK else run.verdict.value


def _features(spec: SubsetSpec, source: SourceItem, program: Program, extra: dict) -> dict[str, object]:
    """The row's custom_features, as the subset's spec makes them (SURGE's keys for that subset)."""
    make = spec.row_features
    if make is None:
        raise ConfigurationError(
            f"subset {spec.name!r} has no row_features for a refactor build",
            hint="give its spec row_features (pipeline/subsets/ml.py is the model)",
        )
    return make(source, program, extra)


def _row(
    spec: SubsetSpec,
    config: BuildConfig,
    source: SourceItem,
    program: Program,
    run: RunResult,
    auto: bool,
    recorded: bool,
    extra: dict,
) -> DatasetRow:
    return DatasetRow(
        subset=config.subset,
        category=spec.released_category,
        question=program_question(program),
        gt=run.label.rstrip("\n"),
        custom_features=_features(spec, source, program, extra),
        upstream=upstream_of(source),
        run=run_ref(run),
        label_origin="executed",
        construction=spec.construction.value,
        auto_approved=auto,
        recorded_llm=recorded,
    )


def sample_items(source: str) -> list[SourceItem]:
    """Items of a source read from its bundled sample (Source.samples), as `surge pull` would; none if
    the source bundles no records (OJCode's sample is a manifest: its programs are GPL code, not copied)."""
    from sources import SAMPLES
    from sources.registry import SOURCES as REGISTERED

    spec = REGISTERED[source]
    if not spec.samples:
        return []
    with tempfile.TemporaryDirectory() as folder:
        checkout = Path(folder)
        folder_name = spec.paths[0].split("/")[0]  # 'data/*.jsonl' -> data, 'problems/*.md' -> problems
        (checkout / folder_name).symlink_to((SAMPLES / spec.samples).resolve())
        loaded = list(spec.read(checkout, spec.commit or ""))
    return [item for item in loaded if isinstance(item, SourceItem)]
