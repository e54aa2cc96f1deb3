"""`surge pull`: check out each source at its pinned commit, read its items, and store them.

One task per source (a source is one checkout and one read; items are never tasks). A source that
fails (no network, LFS objects missing) is reported with its hint and the others still land.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flows.runtime import load_prefect, prefect_api, task_runner

load_prefect()

from prefect import flow, task  # noqa: E402  (settings must be in the environment first)
from prefect.cache_policies import NO_CACHE  # noqa: E402

from pipeline.errors import SurgeError  # noqa: E402
from pipeline.store import Store  # noqa: E402
from sources.git import PullOutcome, pull_source  # noqa: E402
from sources.registry import get_source  # noqa: E402
from sources.store import write_outcome  # noqa: E402

QUARANTINE_SHOWN = 20  # per source in the summary; all of them are in the quarantine table


@task(name="pull_source", cache_policy=NO_CACHE)
def pull_one(
    name: str, cache_root: str, mirror: str | None, commit: str | None
) -> PullOutcome | dict[str, str]:
    """Check out one source at its pinned (or the given) commit and read its items."""
    try:
        return pull_source(get_source(name, commit), Path(cache_root), mirror)
    except SurgeError as error:  # expected failures (offline, LFS, bad mirror) are results, not tracebacks
        return {"error": str(error), "hint": error.hint}


def summarise(outcome: PullOutcome, new_items: int) -> dict[str, Any]:
    record = outcome.record
    return {
        "commit": record.commit,
        "url": record.url,
        "items": record.items,
        "new_items": new_items,
        "quarantined": record.quarantined,
        "lfs_files": record.lfs_files,
        "quarantine": [
            {"location": q.location, "reason": q.reason} for q in outcome.quarantined[:QUARANTINE_SHOWN]
        ],
    }


@flow(name="surge-pull", log_prints=False)
def pull_sources(
    names: list[str], cache_root: str, store_root: str, mirrors: dict[str, str], commits: dict[str, str]
) -> dict[str, dict[str, Any]]:
    store = Store(Path(store_root))
    futures = {
        name: pull_one.submit(name, cache_root, mirrors.get(name), commits.get(name)) for name in names
    }
    summary: dict[str, dict[str, Any]] = {}
    for name, future in futures.items():
        outcome = future.result()
        if isinstance(outcome, dict):  # this source failed; the summary says how to fix it, the others land
            summary[name] = outcome
            continue
        summary[name] = summarise(outcome, write_outcome(store, outcome))
    return summary


def pull_flow(
    names: list[str],
    cache_root: Path,
    store_root: Path,
    mirrors: dict[str, str],
    commits: dict[str, str],
    workers: int,
) -> dict[str, dict[str, Any]]:
    flow_with_pool = pull_sources.with_options(task_runner=task_runner(workers))
    with prefect_api():
        return flow_with_pool(names, str(cache_root), str(store_root), mirrors, commits)
