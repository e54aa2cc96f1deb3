"""`surge audit`: execute the released records' programs batch by batch, reusing the runs store.

Only requests whose run id is not yet in ``store.runs`` reach this flow, so an interrupted audit
resumes where it stopped. Scoring and classifying happen afterwards in ``pipeline.audit`` (no engine).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from flows.runtime import batched, configure_prefect, task_runner

configure_prefect()

from prefect import flow  # noqa: E402  (settings must be in the environment first)
from prefect.futures import as_completed  # noqa: E402

from flows.run_programs import execute_batch, write_rows  # noqa: E402
from pipeline.records import QuarantinedRecord, RunRequest  # noqa: E402
from pipeline.store import Store  # noqa: E402


def progress_line(
    done_batches: int, total_batches: int, done_runs: int, total_runs: int, started: float
) -> str:
    elapsed_s = time.monotonic() - started
    rate = done_runs / elapsed_s if elapsed_s > 0 else 0.0
    left_s = (total_runs - done_runs) / rate if rate > 0 else 0.0
    filled = round(20 * done_runs / total_runs) if total_runs else 20
    bar = "#" * filled + "." * (20 - filled)
    return (
        f"audit [{bar}] batch {done_batches}/{total_batches}, runs {done_runs}/{total_runs}, "
        f"{elapsed_s:.0f} s elapsed, ~{left_s:.0f} s left"
    )


@flow(name="surge-audit", log_prints=False)
def audit_dataset(
    requests: list[RunRequest], store_root: str, backend: str, unsafe: bool, batch_size: int
) -> dict[str, object]:
    store = Store(Path(store_root))
    batches = batched(requests, batch_size)
    futures = [execute_batch.submit(batch, backend, unsafe) for batch in batches]
    started = time.monotonic()
    verdicts: Counter[str] = Counter()
    done_runs = written = sandbox_errors = failed_batches = 0
    for done_batches, future in enumerate(as_completed(futures), start=1):
        try:
            results = future.result()
        except Exception as error:  # a whole batch lost its sandbox: keep going, a rerun retries it
            failed_batches += 1
            store.quarantine.append(
                [
                    QuarantinedRecord(
                        stage="audit", source="batch", location=str(future.task_run_id), reason=repr(error)
                    )
                ]
            )
            store.quarantine.flush()
            continue
        count, failed = write_rows(store, results)
        written += count
        sandbox_errors += len(failed)
        done_runs += len(results)
        verdicts.update(r.verdict.value for r in results)
        print(progress_line(done_batches, len(batches), done_runs, len(requests), started), file=sys.stderr)
    return {
        "written": written,
        "sandbox_errors": sandbox_errors,
        "failed_batches": failed_batches,
        "verdicts": dict(verdicts),
    }


def audit_flow(
    requests: list[RunRequest], store_root: Path, backend: str, unsafe: bool, batch_size: int, workers: int
) -> dict[str, object]:
    flow_with_pool = audit_dataset.with_options(task_runner=task_runner(workers))
    return flow_with_pool(requests, str(store_root), backend, unsafe, batch_size)
