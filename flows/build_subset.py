"""`surge build`: one flow per subset, planning and executing in rounds until n rows are kept.

Tasks take references (store root, the build's small config, a batch number) and return counts; the
programs, runs and rows live in the store. Every step is keyed by content ids, so an interrupted build
rerun skips planned items, finished runs and items with an outcome, and finishes exactly the rest.

A failure of ours (pipeline/build/failures.py) records nothing for the item: the flow stops planning after
that round and writes only rows of items before the first one left undone, so the rerun builds it in its
place and the dataset is the one an uninterrupted build gives. Items the recorded LLM responses have no
answer for are skipped (running again would not help) and the flow goes on past them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.engine import using_engine
from flows.naming import job_tags, summary_markdown
from flows.progress import Tallies
from flows.runtime import FailedWithSummary, publish_summary, summary_of, task_runner
from flows.surge_flow import surge_flow
from pipeline.build import steps
from pipeline.build.failures import Ours
from pipeline.build.records import BuildConfig
from pipeline.observe import Tally
from pipeline.store import Store
from pipeline.subsets import subset_spec

MAX_CANDIDATES_PER_ROW = 4  # give up on a template set that keeps fewer than one row in four items
BUDGET_KEY = f"ours:{Ours.BUDGET_SPENT}"


class BuildFailed(FailedWithSummary):
    """Something of ours left items undone: the flow run ends Failed, with the build's summary."""

    def __str__(self) -> str:
        return f"{self.summary['subset']}: failures of ours: {', '.join(self.summary['ours'])}"


# The config is a typed parameter (a small pydantic model: the UI shows its fields), never the programs.
@task(name="plan_round", task_run_name="plan {config.subset} items {start}-{stop}", cache_policy=NO_CACHE)
def plan_round(store_root: str, config: BuildConfig, start: int, count: int, stop: int = 0) -> int:
    """Plan instances [start, start+count) into the store's build_plan table (``stop`` only names it)."""
    return steps.plan_round(Store(store_root), config, start, count)


@task(name="calibrate_templates", task_run_name="calibrate {config.subset} templates", cache_policy=NO_CACHE)
def calibrate_templates(store_root: str, config: BuildConfig, n: int) -> BuildConfig:
    """tc: measure each sized template's run time over a ladder of sizes (stored; a rerun reuses it)."""
    return steps.calibrate(Store(store_root), config, n)


@task(name="build_batch", task_run_name="build {config.subset} batch {batch}", cache_policy=NO_CACHE)
def build_batch(store_root: str, config: BuildConfig, batch: int) -> dict[str, Any]:
    """Execute one planned batch; write runs, outcomes and candidate rows."""
    return steps.build_batch(Store(store_root), config, batch)


@task(name="write_dataset", task_run_name="write {config.subset} dataset n={n}", cache_policy=NO_CACHE)
def write_dataset(store_root: str, config: BuildConfig, n: int, before: int | None) -> int:
    """Copy the first n kept rows, in item order, into the dataset table."""
    return steps.write_dataset(Store(store_root), config, n, before)


@surge_flow("surge-build-subset")
def build_subset(store_root: str, config: BuildConfig, n: int) -> dict[str, Any]:
    # Items with an outcome (kept or dropped) of the items planned so far, and rows kept of the n asked:
    # the plan grows by a round while too few rows are kept, and the items' total grows with it.
    progress = Tallies(f"build {config.subset}", [Tally(name="items", total=0), Tally(name="rows", total=n)])
    with progress:
        summary = build_rounds(store_root, config, n, progress)
        progress.finish()  # also when the items ran out or a failure of ours stopped it short of n rows
    publish_build_summary(config, summary)
    if set(summary["ours"]) - {BUDGET_KEY}:  # a spent budget is "done, but", not a failed flow run
        raise BuildFailed(summary)  # the flow run ends Failed; the command reads the summary from it
    return summary


def build_rounds(store_root: str, config: BuildConfig, n: int, progress: Tallies) -> dict[str, Any]:
    """Plan and execute rounds until n rows are kept (or the items run out, or ours stop it); the summary."""
    store = Store(store_root)
    if subset_spec(config.subset).time_bins:  # the plan draws sizes from a calibration: part of the key
        config = calibrate_templates(store_root, config, n)
    planned = planned_items = 0
    ours: dict[str, Any] = {}
    first_undone: int | None = None
    ran_out = False
    decided, kept = steps.progress_counts(store, config.build_key)  # a rerun starts from what is stored
    progress.set("items", done=decided, total=decided)
    progress.set("rows", done=min(kept, n))
    while kept < n and planned < n * MAX_CANDIDATES_PER_ROW:
        count = steps.round_size(store, config, n, planned, n * MAX_CANDIDATES_PER_ROW)
        available = plan_round(store_root, config, planned, count, stop=planned + count)
        progress.set("items", total=max(planned_items + available, progress["items"].done))
        futures = [
            build_batch.submit(store_root, config, batch)
            for batch in steps.batches_of(config, planned, available)
        ]
        for future in futures:
            result = future.result()
            first_undone = _gather(result, ours, first_undone)
            kept_now = min(result.get("kept_rows", 0), n - progress["rows"].done)
            progress.count(items=result.get("kept", 0) + result.get("dropped", 0), rows=kept_now)
        planned, planned_items = planned + count, planned_items + available
        if first_undone is not None:  # ours, not the items': stop, so a rerun builds them in their place
            break
        ran_out = available < count
        if ran_out:
            break
        kept = steps.kept_rows(store, config.build_key)
    rows = write_dataset(store_root, config, n, first_undone)
    summary: dict[str, Any] = {
        "subset": config.subset,
        "rows": rows,
        "n": n,
        "planned_items": planned_items,
        "ran_out": ran_out,
        "ours": {key: value for key, value in ours.items() if key.startswith("ours:")},
        "details": {key: value for key, value in ours.items() if key.startswith("detail:")},
    } | steps.summary(store, config)
    if spread := steps.spread(store, config, n, first_undone):
        summary["spread"] = spread
    return summary


def flow_run_name(config: BuildConfig, n: int) -> str:
    """``build sc n=150 seed=7`` (the profile and backend when not the default ones)."""
    from pipeline.records import default_backend

    extra = "" if config.profile == "default" else f" profile={config.profile}"
    extra += "" if config.backend == default_backend() else f" backend={config.backend}"
    return f"build {config.subset} n={n} seed={config.seed}{extra}"


def publish_build_summary(config: BuildConfig, summary: dict[str, Any]) -> None:
    """The build's summary artifact and log line; each failure of ours as a warning (a few kinds)."""
    title = flow_run_name(config, summary["n"])
    line = (
        f"{title}: {summary['rows']} rows of {summary['n']}, {summary['kept_items']} items kept, "
        f"{summary['dropped_items']} dropped"
    )
    drops = [f"dropped ({reason}): {count}" for reason, count in summary["drop_reasons"].items()]
    ours = [f"failed (ours) {key.removeprefix('ours:')}: {count}" for key, count in summary["ours"].items()]
    notes = [f"build key {config.build_key}", *ours, *drops]
    if summary.get("spread"):
        from pipeline.build.spread import spread_line

        notes.append(spread_line(summary["spread"]))
    markdown = summary_markdown(title, summary, notes)
    publish_summary(f"surge-build-{config.subset}-summary", markdown, line, warnings=ours)


def _gather(result: dict[str, Any], ours: dict[str, Any], first_undone: int | None) -> int | None:
    """Add a batch's failures of ours to the round's; the earliest place left undone so far."""
    for key, value in result.items():
        if key.startswith("ours:"):
            ours[key] = ours.get(key, 0) + value
        elif key.startswith("detail:"):
            ours.setdefault(key, value)
    undone = result.get("first_undone")
    return undone if first_undone is None or (undone is not None and undone < first_undone) else first_undone


def run_build(config: BuildConfig, store_root: Path, n: int) -> dict[str, Any]:
    """Build one subset; returns its summary, also when something of ours failed (its ``ours`` says what;
    the flow run is then Failed in Prefect's UI). A crash of the flow itself is raised."""
    # One batch at a time: each batch's sandbox already runs `config.workers` programs in parallel.
    one_at_a_time = build_subset.with_options(
        task_runner=task_runner(1), flow_run_name=flow_run_name(config, n)
    )
    tagged = job_tags("build", subsets=[config.subset], profiles=[config.profile])
    with using_engine() as engine, engine.connected(tagged):
        state = one_at_a_time(str(store_root), config, n, return_state=True)
    return summary_of(state)
