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

from flows.runtime import load_prefect, prefect_api, task_runner

load_prefect()

from prefect import flow, task  # noqa: E402  (settings must be in the environment first)
from prefect.cache_policies import NO_CACHE  # noqa: E402

from pipeline.build import steps  # noqa: E402
from pipeline.build.records import BuildConfig  # noqa: E402
from pipeline.store import Store  # noqa: E402

MAX_CANDIDATES_PER_ROW = 4  # give up on a template set that keeps fewer than one row in four items


@task(name="plan_round", cache_policy=NO_CACHE)
def plan_round(store_root: str, config_json: str, start: int, count: int) -> int:
    """Plan instances [start, start+count) into the store's build_plan table."""
    return steps.plan_round(Store(store_root), BuildConfig.model_validate_json(config_json), start, count)


@task(name="build_batch", cache_policy=NO_CACHE)
def build_batch(store_root: str, config_json: str, batch: int) -> dict[str, Any]:
    """Execute one planned batch; write runs, outcomes and candidate rows."""
    return steps.build_batch(Store(store_root), BuildConfig.model_validate_json(config_json), batch)


@task(name="write_dataset", cache_policy=NO_CACHE)
def write_dataset(store_root: str, config_json: str, n: int, before: int | None) -> int:
    """Copy the first n kept rows, in item order, into the dataset table."""
    config = BuildConfig.model_validate_json(config_json)
    return steps.write_dataset(Store(store_root), config, n, before)


@flow(name="surge-build-subset", log_prints=False)
def build_subset(store_root: str, config_json: str, n: int) -> dict[str, Any]:
    config = BuildConfig.model_validate_json(config_json)
    store = Store(store_root)
    planned = planned_items = 0
    ours: dict[str, Any] = {}
    first_undone: int | None = None
    ran_out = False
    while steps.kept_rows(store, config.build_key) < n and planned < n * MAX_CANDIDATES_PER_ROW:
        wanted = n - steps.kept_rows(store, config.build_key)
        count = -(-wanted // config.batch_size) * config.batch_size  # whole batches
        available = plan_round(store_root, config_json, planned, count)
        first = planned // config.batch_size
        futures = [
            build_batch.submit(store_root, config_json, batch)
            for batch in range(first, first + -(-available // config.batch_size))
        ]
        for future in futures:
            first_undone = _gather(future.result(), ours, first_undone)
        planned, planned_items = planned + count, planned_items + available
        if first_undone is not None:  # ours, not the items': stop, so a rerun builds them in their place
            break
        ran_out = available < count
        if ran_out:
            break
    rows = write_dataset(store_root, config_json, n, first_undone)
    return {
        "subset": config.subset,
        "rows": rows,
        "n": n,
        "planned_items": planned_items,
        "ran_out": ran_out,
        "ours": {key: value for key, value in ours.items() if key.startswith("ours:")},
        "details": {key: value for key, value in ours.items() if key.startswith("detail:")},
    } | steps.summary(store, config)


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
    # One batch at a time: each batch's sandbox already runs `config.workers` programs in parallel.
    one_at_a_time = build_subset.with_options(task_runner=task_runner(1))
    with prefect_api():
        return one_at_a_time(str(store_root), config.model_dump_json(exclude={"build_key"}), n)
