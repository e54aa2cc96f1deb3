"""The predict stage: ask a model each record's prompt; append predictions that the score stage reads as
they are. A rerun resumes: what the output file already holds for this model and prompt is not asked."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import ConfigurationError, InputError
from pipeline.llm.budget import Budget, parse_budget, require_prices
from pipeline.observe import Observer, tell
from pipeline.scoring.predict import finished_ids
from pipeline.scoring.predict import predict as predict_records
from pipeline.scoring.predictions import read_dataset
from pipeline.stage_results import Failure, StageResult
from pipeline.stages.options import PredictOptions
from sources.surge_release import ReleasedRecord

BUDGET_EXIT_CODE = 3  # "done, but" the budget stopped it


class PredictSummary(StageResult):
    """What `surge predict` asked and wrote, and what it cost."""

    output: str
    dataset: str
    model: str
    prompt: str
    records: int
    already_done: int
    to_ask: int
    asked: int
    written: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    truncated: int
    prompt_too_long: int
    stopped_by_budget: bool


def predict(options: PredictOptions, *, observer: Observer | None = None) -> PredictSummary:
    """Ask a model each record's prompt; append predictions the score stage reads (`surge predict`)."""
    from pipeline.llm import LLMClient, LLMSettings

    budget = parse_budget(options.budget) if options.budget is not None else Budget()
    # The predictions file is the record of what was asked: a response cache would answer a rerun from
    # disk and hide a model's own variation, so predict always asks the endpoint.
    settings = LLMSettings.from_env(
        base_url=options.llm_base_url, model=options.model, concurrency=options.concurrency
    )
    settings = settings.model_copy(update={"cache_dir": None})
    settings.require_endpoint()
    require_prices(budget, bool(settings.price_prompt_per_1k or settings.price_completion_per_1k))
    records = dataset_records(options.dataset, set(options.subset) if options.subset else None)
    writable(options.output)
    done = finished_ids(options.output, settings.model, options.prompt)
    todo = [record for record in records if record.item_id not in done]
    if options.limit is not None:
        todo = todo[: options.limit]
    tell(observer, "predict", "asking", f"{len(todo)} records")
    with LLMClient(settings) as client:
        totals = predict_records(client, todo, options.prompt, options.output, budget)
    failures = (
        [Failure(reason=f"the endpoint failed: {totals.failure}", fix=totals.failure_fix)]
        if totals.failure is not None
        else []
    )
    return PredictSummary(
        output=str(options.output),
        dataset=str(options.dataset),
        model=settings.model,
        prompt=options.prompt,
        records=len(records),
        already_done=len(done),
        to_ask=len(todo),
        **totals.model_dump(include={"asked", "written", "prompt_tokens", "completion_tokens"}),
        cost_usd=round(totals.cost_usd, 6),
        truncated=totals.truncated,
        prompt_too_long=totals.prompt_too_long,
        stopped_by_budget=totals.stopped_by_budget,
        failures=failures,
        exit_code=BUDGET_EXIT_CODE if totals.stopped_by_budget else 0,
    )


def writable(path: Path) -> None:
    """Refuse an output that cannot take a line before asking anything (a folder, a read-only place)."""
    if path.exists() and not path.is_file():  # a device or pipe: read back to resume, it may never end
        raise ConfigurationError(f"{path} is not a regular file", hint="pick a file for --output")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise ConfigurationError(
            f"cannot write {path}: {error.strerror or error}", hint="pick a writable --output file"
        ) from None


def dataset_records(path: Path, subsets: set[str] | None) -> list[ReleasedRecord]:
    records = read_dataset(path, subsets)
    if not records:
        raise InputError(
            f"{path} holds no records{' of ' + ', '.join(sorted(subsets)) if subsets else ''}",
            hint="point at a dataset/ folder written by `surge export`",
        )
    return records
