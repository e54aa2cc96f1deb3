"""`surge pull`: check out each source at its pinned commit, read its items, and store them.

One task per source (a source is one checkout and one read; items are never tasks). A source that
fails (no network, LFS objects missing) is a Failed task run and is reported with its hint; the others
still land, and the flow run then ends Failed, its summary kept for the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed

from flows.engine import using_engine
from flows.naming import job_tags, named, summary_markdown
from flows.progress import Tallies
from flows.runtime import FailedWithSummary, publish_summary, summary_of, task_runner
from flows.surge_flow import surge_flow
from pipeline.errors import SurgeError
from pipeline.observe import Tally
from pipeline.store import Store
from sources.git import PullOutcome, pull_source
from sources.registry import get_source
from sources.store import write_outcome

QUARANTINE_SHOWN = 20  # per source in the summary; all of them are in the quarantine table


class PullFailed(FailedWithSummary):
    """Some sources failed: the flow run ends Failed, with every source's summary."""

    def __str__(self) -> str:
        failed = [name for name, result in self.summary.items() if "error" in result]
        return f"sources failed: {', '.join(failed)}"


@task(name="pull_source", task_run_name="pull {name}", cache_policy=NO_CACHE)
def pull_one(name: str, cache_root: str, mirror: str | None, commit: str | None) -> PullOutcome:
    """Check out one source at its pinned (or the given) commit and read its items. Its failures
    (offline, LFS, a bad mirror: ``SurgeError``) fail the task run; the flow reports them with their fix."""
    return pull_source(get_source(name, commit), Path(cache_root), mirror)


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


@surge_flow("surge-pull")
def pull_sources(
    names: list[str], cache_root: str, store_root: str, mirrors: dict[str, str], commits: dict[str, str]
) -> dict[str, dict[str, Any]]:
    store = Store(Path(store_root))
    futures = {
        pull_one.submit(name, cache_root, mirrors.get(name), commits.get(name)): name for name in names
    }
    ended: dict[str, PullOutcome | SurgeError] = {}
    summary: dict[str, dict[str, Any]] = {}
    # Sources pulled of those named, and the items they held (no total: a source's size is known once read).
    progress = Tallies("pull", [Tally(name="sources", total=len(names)), Tally(name="items")])
    with progress:
        for future in as_completed(list(futures)):
            ended[futures[future]] = outcome = pulled(future)
            if isinstance(outcome, SurgeError):
                progress.lose("sources", 1)
            else:
                progress.count(sources=1, items=outcome.record.items)
            # Stored in the order named, as soon as every source before has ended: the items table's
            # order stays the same whichever source a run finished first.
            for name in names[len(summary) :]:
                if name not in ended:
                    break
                summary[name] = stored(store, ended[name])
    publish_pull_summary(summary)
    if any("error" in result for result in summary.values()):
        raise PullFailed(summary)
    return summary


def pulled(future: Any) -> PullOutcome | SurgeError:
    """A source's outcome, or its failure (offline, LFS, a bad mirror), reported with its fix."""
    try:
        outcome: PullOutcome = future.result()
    except SurgeError as error:
        return error
    return outcome


def stored(store: Store, outcome: PullOutcome | SurgeError) -> dict[str, Any]:
    """A pulled source's items written to the store, and its summary; a failed source's reason and fix."""
    if isinstance(outcome, SurgeError):  # this source failed; the others land
        return {"error": str(outcome), "hint": outcome.hint or ""}
    return summarise(outcome, write_outcome(store, outcome))


def publish_pull_summary(summary: dict[str, dict[str, Any]]) -> None:
    """One row per source in the summary artifact; each failed source as a warning with its fix."""
    rows = {name: result.get("commit", "FAILED")[:12] for name, result in summary.items()}
    failed = {name: result for name, result in summary.items() if "error" in result}
    notes = [f"{name}: {result['error']} (fix: {result['hint']})" for name, result in failed.items()]
    line = f"pull {len(summary)} sources: {len(summary) - len(failed)} stored, {len(failed)} failed"
    publish_summary("surge-pull-summary", summary_markdown(line, rows, notes), line, warnings=notes)


def pull_flow(
    names: list[str],
    cache_root: Path,
    store_root: Path,
    mirrors: dict[str, str],
    commits: dict[str, str],
    workers: int,
) -> dict[str, dict[str, Any]]:
    flow_with_pool = pull_sources.with_options(
        task_runner=task_runner(workers), flow_run_name=f"pull {named(tuple(names), 'sources')}"
    )
    # Failed sources reach the user as one line each with their fix, from the CLI, not as tracebacks.
    with using_engine() as engine, engine.connected(job_tags("pull")):
        state = flow_with_pool(names, str(cache_root), str(store_root), mirrors, commits, return_state=True)
    return summary_of(state)
