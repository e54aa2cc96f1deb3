"""Execute a batch's run requests in one sandbox, reusing finished runs from the store.

The same entry the run flow uses (``sandboxes.open_backend``): one backend per batch, ``workers``
programs at a time inside it. A run already in the store's runs table under the same ``run_id``
(program, setting and profile hashed) is not executed again, so an interrupted build resumes without
repeating work. A failure of ours (the sandbox broke, a toolchain or image is missing: failures.py) is
never stored as the program's result, nor reused from an older store that kept one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.build.failures import of_run
from pipeline.records import RunRequest, RunResult

if (
    TYPE_CHECKING
):  # annotations only: Arrow (pipeline.store) loads when a build runs, not when the registry does
    from pipeline.store import Store


def stored_runs(store: Store, run_ids: set[str]) -> dict[str, RunResult]:
    if not run_ids or not store.runs.part_files():
        return {}
    found = store.runs.records(where={"run_id": sorted(run_ids)})
    return {run.run_id: run for run in found if run.repeats >= 1 and of_run(run) is None}


def execute(
    store: Store, requests: list[RunRequest], backend: str, unsafe: bool, workers: int, reuse: bool = True
) -> list[RunResult]:
    """Results in request order; new results (not sandbox errors) are appended to the runs table."""
    from sandboxes import open_backend

    stored = stored_runs(store, {r.run_id for r in requests})
    done = {run_id: run for run_id, run in stored.items() if reuse and _enough(run, requests)}
    todo = [r for r in requests if r.run_id not in done]
    fresh: list[RunResult] = []
    if todo:
        with open_backend(backend, unsafe=unsafe, workers=workers) as sandbox:
            fresh = list(sandbox.run_batch(todo))
    new: dict[str, RunResult] = {}
    for run in fresh:  # timing copies share a run_id: the runs table keeps one row per id
        if of_run(run) is None and run.run_id not in stored:
            new.setdefault(run.run_id, run)
    store.runs.append(new.values())
    store.runs.flush()
    by_id = dict(done)
    results: list[RunResult] = []
    pending = iter(fresh)
    for request in requests:
        results.append(by_id[request.run_id] if request.run_id in by_id else next(pending))
    return results


def _enough(run: RunResult, requests: list[RunRequest]) -> bool:
    """A stored run serves a request only if it was repeated at least as often (determinism checks)."""
    wanted = max((r.repeats for r in requests if r.run_id == run.run_id), default=1)
    return run.repeats >= wanted
