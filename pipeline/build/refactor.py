"""Iterative refactor (ml; cl and bg are not wired yet): the existing refactor stack, then rows.

Per batch: each upstream item goes through the repair loop (LLM refactor, sandbox repair rounds, leak
guard; pipeline/refactor/loop.py) into the review queue (``<store>/review.db``, pipeline/review). Only
approved programs become rows; with ``--auto-approve`` a runnable candidate is approved by the reviewer
``auto-approve``, and its row says so. The approved program is executed again through the build's
execute step (its run lands in the runs table) and labelled with its stdout. A failed refactor, a
rejected review or a program that no longer runs is an outcome with its reason; an item still waiting
for review has no outcome, so the next build picks it up once it is decided.

LLM endpoint: SURGE_LLM_* settings if set, else the recorded responses in pipeline/build/recorded/
served by a local chat-completions server started here (pipeline/llm/replay_server.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.build.execute import execute
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import run_ref
from pipeline.dataset import DatasetRow, UpstreamRef
from pipeline.llm import LLMClient, LLMSettings
from pipeline.llm.replay_server import RECORDED_MODEL, RecordedServer, load_recorded
from pipeline.records import Program, RunRequest, RunResult, SourceItem, Verdict
from pipeline.review.queue import ACCEPTED_STATES, ReviewQueue, State
from pipeline.store import Store
from pipeline.subsets import subset_spec
from sandboxes.profiles import get_profile

RECORDED_DIR = Path(__file__).parent / "recorded"
AUTO_REVIEWER = "auto-approve"
SOURCES = {"ml": ("mceval",), "cl": ("leetcode", "ojcode"), "bg": ("debugbench",)}


@contextmanager
def llm_settings(subset: str) -> Iterator[LLMSettings]:
    """The configured endpoint, or a local server of recorded responses for the life of the block."""
    configured = LLMSettings.from_env()
    if configured.base_url and configured.model:
        yield configured
        return
    with (
        RecordedServer(load_recorded(RECORDED_DIR / f"{subset}.jsonl")) as server,
        tempfile.TemporaryDirectory() as cache,
    ):
        yield LLMSettings(
            base_url=server.base_url, model=RECORDED_MODEL, cache_dir=Path(cache), max_retries=0
        )


def refactor_items(store: Store, config: BuildConfig, items: list[SourceItem]) -> bool:
    """Run the repair loop on items the queue has not decided yet; True if the recorded default was used."""
    from pipeline.refactor.execute import Executor
    from pipeline.refactor.loop import RepairLoop
    from sandboxes import open_backend

    queue = ReviewQueue(store.root / "review.db")
    done = queue.done_item_ids()
    todo = [item for item in items if item.item_id not in done]
    with llm_settings(config.subset) as settings:
        recorded = settings.model == RECORDED_MODEL
        if todo:
            client = LLMClient(settings)
            with open_backend(config.backend, unsafe=config.unsafe, workers=1) as sandbox:
                loop = RepairLoop(client, Executor(sandbox, get_profile(config.profile)))
                for item in todo:
                    queue.add_outcome(item, loop.refactor(item))
    return recorded


def build_refactored(store: Store, config: BuildConfig, items: list[BuildItem]) -> tuple[list, list, int]:
    sources = {item.item_id: SourceItem.model_validate_json(item.source_item_json) for item in items}
    recorded = refactor_items(store, config, list(sources.values()))
    queue = ReviewQueue(store.root / "review.db")
    outcomes: list[BuildOutcome] = []
    rows: list[DatasetRow] = []
    for item in items:
        source = sources[item.item_id]
        entry = queue.get(source.item_id)
        auto = False
        if entry.state is State.PENDING and config.auto_approve and entry.run_is_acceptable:
            entry, auto = queue.approve(entry.entry_id, AUTO_REVIEWER), True
        auto = auto or entry.reviewer == AUTO_REVIEWER
        if entry.state is State.PENDING:
            continue  # waiting for a human: no outcome yet
        if entry.state is State.FAILED:
            outcomes.append(_outcome(config, item, "dropped", f"refactor failed: {entry.failure}", (), ()))
            continue
        if entry.state not in ACCEPTED_STATES or entry.program is None:
            outcomes.append(_outcome(config, item, "dropped", f"rejected review: {entry.reason}", (), ()))
            continue
        request = RunRequest(program=entry.program, profile=get_profile(config.profile), repeats=2)
        run = execute(store, [request], config.backend, config.unsafe, 1)[0]
        if run.verdict is Verdict.SANDBOX_ERROR:
            continue
        if run.verdict is not Verdict.OK or run.distinct_outputs > 1:
            why = run.verdict.value if run.verdict is not Verdict.OK else "non-deterministic"
            outcomes.append(_outcome(config, item, "dropped", f"approved program: {why}", (), (run.run_id,)))
            continue
        made = _row(config, source, entry.program, run, auto, recorded)
        outcomes.append(_outcome(config, item, "kept", "", (made.row_id,), (run.run_id,)))
        rows.append(made)
    return outcomes, rows, 0


def _row(
    config: BuildConfig, source: SourceItem, program: Program, run: RunResult, auto: bool, recorded: bool
) -> DatasetRow:
    spec = subset_spec(config.subset)
    code = program.entry_file.content
    return DatasetRow(
        subset=config.subset,
        category=spec.released_category,
        question=code,
        gt=run.label.rstrip("\n"),
        custom_features={
            "language": source.upstream_language or (source.language.value if source.language else ""),
            "lines": code.count("\n") + 1,
            "repo": source.upstream_repo,
        },
        upstream=UpstreamRef(
            source=source.source,
            repo=source.upstream_repo,
            commit=source.upstream_commit,
            path=source.upstream_path,
            key=source.key,
            item_id=source.item_id,
            licence=source.licence,
        ),
        run=run_ref(run),
        label_origin="executed",
        construction=spec.construction.value,
        auto_approved=auto,
        recorded_llm=recorded,
    )


def sample_items(source: str) -> list[SourceItem]:
    """Items of a source read from the bundled samples (sources/samples/<source>), as `surge pull` would."""
    from sources import SAMPLES
    from sources.registry import SOURCES as REGISTERED

    spec = REGISTERED[source]
    with tempfile.TemporaryDirectory() as folder:
        checkout = Path(folder)
        (checkout / "data").symlink_to((SAMPLES / source).resolve())
        loaded = list(spec.read(checkout, spec.commit or ""))
    return [item for item in loaded if isinstance(item, SourceItem)]
