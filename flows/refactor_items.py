"""`surge refactor`: turn source items into review candidates with an LLM, checked in the sandbox.

One task per batch of items (one sandbox per batch); the LLM client is shared by all tasks, so its
concurrency bound holds for the whole run. Outcomes are written to the review queue as batches finish, so
an interrupted run keeps them, and a rerun skips every item already in the queue (failed ones are retried).

By reference: the items to refactor are written once to a work file beside the review queue,
named by their content; the flow gets its path, each task a (start, stop) range of its lines.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed

from flows.engine import using_engine
from flows.progress import Tallies
from flows.runtime import task_runner
from flows.surge_flow import surge_flow
from pipeline.llm import LLMClient, LLMSettings
from pipeline.observe import Tally
from pipeline.records import SourceItem, content_id
from pipeline.refactor.outcome import Outcome
from pipeline.review.queue import ReviewQueue


def write_work_file(items: list[SourceItem], folder: Path) -> Path:
    """The items as JSONL under a content-addressed name (the same job writes the same file once)."""
    work = folder / f"refactor-{content_id('refactor-items', [item.item_id for item in items])}.jsonl"
    if not work.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = work.with_suffix(f".{os.getpid()}.partial")
        partial.write_text("".join(item.model_dump_json(exclude={"item_id"}) + "\n" for item in items))
        os.replace(partial, work)
    return work


def read_work_range(work: str, start: int, stop: int) -> list[SourceItem]:
    with open(work, encoding="utf-8") as lines:
        return [SourceItem.model_validate_json(line) for line in itertools.islice(lines, start, stop)]


@task(name="refactor_batch", cache_policy=NO_CACHE)
def refactor_batch(
    work: str,
    start: int,
    stop: int,
    client: LLMClient,
    backend: str,
    unsafe: bool,
    max_rounds: int,
    method: str | None,
) -> list[Outcome]:
    """Refactor lines start..stop of the work file, executing the candidates in one sandbox."""
    from pipeline.refactor.execute import Executor
    from pipeline.refactor.loop import RepairLoop
    from sandboxes import open_backend

    with open_backend(backend, unsafe=unsafe, workers=1) as sandbox:
        loop = RepairLoop(client, Executor(sandbox), max_rounds=max_rounds, method_override=method)
        return [loop.refactor(item) for item in read_work_range(work, start, stop)]


@surge_flow("surge-refactor")
def refactor_items(
    work: str,
    count: int,
    db: str,
    settings: LLMSettings,
    backend: str,
    unsafe: bool,
    batch_size: int,
    max_rounds: int,
    method: str | None,
) -> dict[str, object]:
    queue = ReviewQueue(Path(db))
    by_id = {item.item_id: item for item in read_work_range(work, 0, count)}
    statuses: Counter[str] = Counter()
    rounds: Counter[int] = Counter()
    failed_batches: list[str] = []
    # Items refactored (a candidate or failed, each with its outcome) of the items asked, as batches end.
    progress = Tallies("refactor", [Tally(name="items", total=count, lost_as="in failed batches")])
    with LLMClient(settings) as client, progress:
        futures = {
            refactor_batch.submit(
                work, start, min(start + batch_size, count), client, backend, unsafe, max_rounds, method
            ): min(start + batch_size, count) - start
            for start in range(0, count, batch_size)
        }
        for future in as_completed(list(futures)):
            try:
                outcomes = future.result()
            except Exception as error:
                # A batch lost its sandbox: its items stay out of the queue, and a rerun retries them.
                failed_batches.append(repr(error))
                progress.lose("items", futures[future])
                continue
            for outcome in outcomes:
                queue.add_outcome(by_id[outcome.item_id], outcome)
                statuses[outcome.status] += 1
                rounds[len(outcome.rounds)] += 1
            progress.count(items=len(outcomes))
        usage = client.usage.as_dict()
    return {
        "candidates": statuses["candidate"],
        "failed": statuses["failed"],
        "rounds_histogram": dict(sorted(rounds.items())),
        "failed_batches": failed_batches,
        "llm": usage,
    }


def refactor_flow(
    items: list[SourceItem],
    db: Path,
    settings: LLMSettings,
    backend: str,
    unsafe: bool,
    batch_size: int,
    workers: int,
    max_rounds: int,
    method: str | None,
) -> dict[str, object]:
    work = write_work_file(items, db.parent / "work")
    flow_with_pool = refactor_items.with_options(task_runner=task_runner(workers))
    with using_engine() as engine, engine.connected():
        return flow_with_pool(
            str(work), len(items), str(db), settings, backend, unsafe, batch_size, max_rounds, method
        )
