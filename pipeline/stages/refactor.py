"""The refactor stage: turn source items into runnable, leak-free programs with an LLM, queued for human
review (pipeline/review/)."""

from __future__ import annotations

from pydantic import Field

from pipeline.observe import Observer, tell, watched_by
from pipeline.stage_results import Failure, LLMFigures, StageResult
from pipeline.stages.options import RefactorOptions


class RefactorSummary(StageResult):
    """What `surge refactor` did: items read and refactored, candidates queued, failures."""

    items: int
    bad_lines: int
    already_queued: int
    refactored: int
    candidates: int = 0
    failed: int = Field(default=0, description="items whose rounds ran out (kept with the reason)")
    rounds_histogram: dict[int, int] = Field(default_factory=dict, description="rounds -> items")
    failed_batches: list[str] = Field(default_factory=list)
    llm: LLMFigures | None = None
    db: str


def refactor(options: RefactorOptions, *, observer: Observer | None = None) -> RefactorSummary:
    """Turn source items into runnable programs with an LLM, queued for review (`surge refactor`)."""
    from flows.engine import using_engine
    from pipeline.refactor.items import load_items
    from pipeline.refactor.methods import method_for
    from pipeline.review.queue import ReviewQueue

    settings = options.llm_settings()
    settings.require_endpoint()
    items, bad_lines = load_items(options.items)
    if options.source:
        wanted = set(options.source)
        items = [item for item in items if item.source in wanted]
    for item in items[:1]:
        method_for(item, options.method)  # fail fast on an unknown source, before any request
    done = ReviewQueue(options.db).done_item_ids()
    fresh = [item for item in items if item.item_id not in done]
    todo = fresh[: options.limit]
    outcome: dict[str, object] = {}
    if todo:
        tell(observer, "refactor", "started", f"{len(todo)} items")
        with using_engine(), watched_by(observer):  # Prefect's settings made before the flow's import
            from flows.refactor_items import refactor_flow

            outcome = refactor_flow(
                todo,
                options.db,
                settings,
                options.backend,
                options.unsafe,
                options.batch_size,
                options.workers or settings.concurrency,  # each batch waits on the LLM: a worker per slot
                options.max_rounds,
                options.method,
            )
    summary = RefactorSummary.model_validate(
        {
            **outcome,
            "items": len(items),
            "bad_lines": len(bad_lines),
            "already_queued": len(items) - len(fresh),
            "refactored": len(todo),
            "db": str(options.db),
        }
    )
    summary.failures = [
        Failure(reason=f"a refactor batch failed: {reason}", fix="run again: its items are retried")
        for reason in dict.fromkeys(summary.failed_batches)
    ]
    return RefactorSummary.model_validate(summary.model_dump())  # the exit rule, over the failures
