"""`surge run`: execute planned run requests in sandboxes and append the results to the store.

One task per batch (a sandbox per batch, never a task per program); finished batches are written as
they complete, so an interrupted run keeps them and a rerun resumes from the store.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from flows.runtime import batched, configure_prefect, task_runner

configure_prefect()

from prefect import flow, task  # noqa: E402  (settings must be in the environment first)
from prefect.cache_policies import NO_CACHE  # noqa: E402
from prefect.futures import as_completed  # noqa: E402

from pipeline.records import QuarantinedRecord, RunRequest, RunResult, Verdict  # noqa: E402
from pipeline.store import Store  # noqa: E402


# NO_CACHE: hashing every program to build a cache key would cost more than the runs it saves.
@task(name="execute_batch", cache_policy=NO_CACHE)
def execute_batch(requests: list[RunRequest], backend: str, unsafe: bool) -> list[RunResult]:
    """Run one batch of requests in one sandbox."""
    from sandboxes import open_backend

    with open_backend(backend, unsafe=unsafe, workers=1) as sandbox:
        return list(sandbox.run_batch(requests))


def write_rows(store: Store, results: list[RunResult]) -> tuple[int, list[QuarantinedRecord]]:
    """Append finished runs; a sandbox failure is quarantined instead, so a rerun tries it again."""
    kept = [r for r in results if r.verdict is not Verdict.SANDBOX_ERROR]
    failed = [
        QuarantinedRecord(
            stage="run", source=r.origin.get("source", "run"), location=r.run_id, reason=_detail(r)
        )
        for r in results
        if r.verdict is Verdict.SANDBOX_ERROR
    ]
    store.runs.append(kept)
    store.runs.flush()
    store.quarantine.append(failed)
    store.quarantine.flush()
    return len(kept), failed


def _detail(result: RunResult) -> str:
    phase = result.run or result.compile
    return f"sandbox error: {phase.detail if phase else 'no phase recorded'}"


@flow(name="surge-run", log_prints=False)
def run_programs(
    requests: list[RunRequest], store_root: str, backend: str, unsafe: bool, batch_size: int
) -> dict[str, object]:
    store = Store(Path(store_root))
    verdicts: Counter[str] = Counter()
    futures = [execute_batch.submit(batch, backend, unsafe) for batch in batched(requests, batch_size)]
    written = sandbox_errors = failed_batches = 0
    for future in as_completed(futures):
        try:
            results = future.result()
        except Exception as error:  # a whole batch lost its sandbox: say so, keep the others
            failed_batches += 1
            store.quarantine.append(
                [
                    QuarantinedRecord(
                        stage="run", source="batch", location=str(future.task_run_id), reason=repr(error)
                    )
                ]
            )
            store.quarantine.flush()
            continue
        count, failed = write_rows(store, results)
        verdicts.update(r.verdict.value for r in results)
        written += count
        sandbox_errors += len(failed)
    return {
        "written": written,
        "sandbox_errors": sandbox_errors,
        "failed_batches": failed_batches,
        "verdicts": dict(verdicts),
    }


def run_flow(
    requests: list[RunRequest], store_root: Path, backend: str, unsafe: bool, batch_size: int, workers: int
) -> dict[str, object]:
    flow_with_pool = run_programs.with_options(task_runner=task_runner(workers))
    return flow_with_pool(requests, str(store_root), backend, unsafe, batch_size)
