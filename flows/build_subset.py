"""`surge build`: one flow per subset, planning and executing in rounds until n rows are kept.

Tasks take references (store root, the build's small config, a batch number) and return counts; the
programs, runs and rows live in the store. Every step is keyed by content ids, so an interrupted build
rerun skips planned items, finished runs and items with an outcome, and finishes exactly the rest.
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
def build_batch(store_root: str, config_json: str, batch: int) -> dict[str, int]:
    """Execute one planned batch; write runs, outcomes and candidate rows."""
    return steps.build_batch(Store(store_root), BuildConfig.model_validate_json(config_json), batch)


@task(name="write_dataset", cache_policy=NO_CACHE)
def write_dataset(store_root: str, config_json: str, n: int) -> int:
    """Copy the first n kept rows, in item order, into the dataset table."""
    return steps.write_dataset(Store(store_root), BuildConfig.model_validate_json(config_json), n)


@flow(name="surge-build-subset", log_prints=False)
def build_subset(store_root: str, config_json: str, n: int) -> dict[str, Any]:
    config = BuildConfig.model_validate_json(config_json)
    store = Store(store_root)
    planned = sandbox_errors = 0
    while steps.kept_rows(store, config.build_key) < n and planned < n * MAX_CANDIDATES_PER_ROW:
        wanted = n - steps.kept_rows(store, config.build_key)
        count = -(-wanted // config.batch_size) * config.batch_size  # whole batches
        plan_round(store_root, config_json, planned, count)
        first = planned // config.batch_size
        futures = [
            build_batch.submit(store_root, config_json, batch)
            for batch in range(first, first + count // config.batch_size)
        ]
        for future in futures:
            sandbox_errors += future.result()["sandbox_errors"]
        planned += count
        if sandbox_errors:  # our failure, not the items': stop and let a rerun retry them
            break
    rows = write_dataset(store_root, config_json, n)
    return {"subset": config.subset, "rows": rows, "sandbox_errors": sandbox_errors} | steps.summary(
        store, config
    )


def run_build(config: BuildConfig, store_root: Path, n: int) -> dict[str, Any]:
    # One batch at a time: each batch's sandbox already runs `config.workers` programs in parallel.
    one_at_a_time = build_subset.with_options(task_runner=task_runner(1))
    with prefect_api():
        return one_at_a_time(str(store_root), config.model_dump_json(exclude={"build_key"}), n)
