"""Foundation costs: the Parquet store against raw pyarrow, and Prefect's per-task cost against a plain loop.

Figures:
  store_rows_per_s            RunResult rows appended + flushed per second through Store
  store_vs_raw_pyarrow_ratio  Store time / time to write the same rows with pyarrow.parquet directly
  prefect_task_overhead_ms    extra wall time per task run inside a flow (tasks do nothing)
  prefect_first_flow_s        start-up of the first flow in this process (ephemeral server)
  prefect_share_of_batch_pct  Prefect's per-task cost as a share of a 16-program batch (~20 ms a program)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.schema import arrow_schema, to_row  # noqa: E402
from pipeline.store import Store  # noqa: E402
from tests.factories import make_result  # noqa: E402

ROWS = 5000
TASKS = 200
TYPICAL_PROGRAM_MS = 20.0  # a sandboxed Python/C run here; a batch holds 16 of them
BATCH_SIZE = 16


def _rows() -> list:
    return [make_result(source=f"print({index})", stdout=f"{index}\n") for index in range(ROWS)]


def bench_store() -> dict[str, float]:
    results = _rows()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        store = Store(Path(folder) / "store")
        store.runs.append(results)
        store.runs.flush()
        store_s = time.perf_counter() - started

        started = time.perf_counter()
        schema = arrow_schema(type(results[0]))
        table = pa.Table.from_pylist([to_row(result) for result in results], schema=schema)
        pq.write_table(table, Path(folder) / "raw.parquet", compression="zstd")
        raw_s = time.perf_counter() - started
    return {"store_rows_per_s": ROWS / store_s, "store_vs_raw_pyarrow_ratio": store_s / raw_s}


def bench_prefect() -> dict[str, float]:
    from flows.runtime import configure_prefect, task_runner

    with tempfile.TemporaryDirectory() as home:
        configure_prefect(Path(home))
        from prefect import flow, task
        from prefect.cache_policies import NO_CACHE

        @task(cache_policy=NO_CACHE)
        def nothing(index: int) -> int:
            return index

        @flow(task_runner=task_runner(2))
        def many(count: int) -> int:
            return sum(future.result() for future in [nothing.submit(i) for i in range(count)])

        started = time.perf_counter()
        many(1)
        first_flow_s = time.perf_counter() - started

        started = time.perf_counter()
        many(1)
        empty_flow_s = time.perf_counter() - started
        started = time.perf_counter()
        many(TASKS)
        per_task_ms = (time.perf_counter() - started - empty_flow_s) / TASKS * 1000
    return {
        "prefect_first_flow_s": first_flow_s,
        "prefect_task_overhead_ms": per_task_ms,
        "prefect_share_of_batch_pct": 100 * per_task_ms / (BATCH_SIZE * TYPICAL_PROGRAM_MS),
    }


def run() -> dict[str, float]:
    return {**bench_store(), **bench_prefect()}


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<32} {value:10.3f}")
