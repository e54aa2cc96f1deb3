"""Foundation costs: the Parquet store against raw pyarrow, and Prefect's per-task cost against a batch.

Figures:
  store_rows_per_s            RunResult rows appended + flushed per second through Store
  store_vs_raw_pyarrow_ratio  Store time / time to write the same rows with pyarrow directly, into the
                              same files: parts of the Store's size, its row groups and compression,
                              each fsynced and renamed into place as the Store does (its atomic write)
  prefect_task_overhead_ms    extra wall time per task run inside a flow (tasks do nothing)
  prefect_first_flow_s        the first flow run of a process, its Prefect API up (flows/engine.py)
  bwrap_batch_of_16_ms        the baseline of the next: 16 Python one-liners through a warm bwrap
                              runner, one at a time, measured in this run
  prefect_share_of_batch_pct  Prefect's per-task cost as a share of that batch (a batch is one task)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import require_tools, size  # noqa: E402

from pipeline.parts import ROWS_PER_ROW_GROUP  # noqa: E402
from pipeline.schema import arrow_schema, to_row  # noqa: E402
from pipeline.store import Store  # noqa: E402
from tests.factories import make_result  # noqa: E402

ROWS = size(5000, 200)
TASKS = size(200, 10)
BATCH_SIZE = 16
FIGURES = (
    "store_rows_per_s",
    "store_vs_raw_pyarrow_ratio",
    "prefect_first_flow_s",
    "prefect_task_overhead_ms",
    "bwrap_batch_of_16_ms",
    "prefect_share_of_batch_pct",
)


def _rows() -> list:
    return [make_result(source=f"print({index})", stdout=f"{index}\n") for index in range(ROWS)]


def raw_write(folder: Path, rows: list[dict], schema: pa.Schema, rows_per_part: int) -> None:
    """The Store's files without the Store: one part per ``rows_per_part`` rows, written, fsynced, renamed."""
    folder.mkdir(parents=True)
    for number, start in enumerate(range(0, len(rows), rows_per_part)):
        table = pa.Table.from_pylist(rows[start : start + rows_per_part], schema=schema)
        temporary, final = folder / f".part-{number}.partial", folder / f"part-{number}.parquet"
        pq.write_table(table, temporary, compression="zstd", row_group_size=ROWS_PER_ROW_GROUP)
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, final)


def bench_store() -> dict[str, float]:
    results = _rows()
    with tempfile.TemporaryDirectory() as folder:
        # both paths once before the clock: the first call of either pays imports and schema building
        warm = results[:10]
        warm_store = Store(Path(folder) / "warm-store")
        warm_store.runs.append(warm)
        warm_store.runs.flush()
        raw_write(Path(folder) / "warm-raw", [to_row(r) for r in warm], arrow_schema(type(warm[0])), 10)
        started = time.perf_counter()
        store = Store(Path(folder) / "store")
        store.runs.append(results)
        store.runs.flush()
        store_s = time.perf_counter() - started

        started = time.perf_counter()
        rows = [to_row(result) for result in results]
        raw_write(Path(folder) / "raw", rows, arrow_schema(type(results[0])), store.runs.rows_per_part)
        raw_s = time.perf_counter() - started
    return {"store_rows_per_s": ROWS / store_s, "store_vs_raw_pyarrow_ratio": store_s / raw_s}


def bench_prefect() -> tuple[float, float]:
    """(first flow's wall s, per-task overhead ms), through an engine as a command opens one. Prefect's
    home is the environment's (`make bench` sets one): a fresh home would first create its database,
    a one-time cost of tens of seconds that no command after the first pays."""
    from flows.engine import Engine
    from flows.runtime import task_runner

    with Engine() as engine, engine.connected():
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
    return first_flow_s, per_task_ms


def batch_ms() -> float:
    """A batch of BATCH_SIZE distinct Python one-liners through a warm bwrap runner, one at a time."""
    from pipeline.records import Program, RunRequest
    from sandboxes.backends.bwrap import BwrapBackend
    from sandboxes.profiles import get_profile

    profile = get_profile("default")
    with tempfile.TemporaryDirectory() as cache, BwrapBackend(cache_dir=cache) as backend:
        list(backend.run_batch([RunRequest(program=Program.single("python", "pass\n"), profile=profile)]))
        batch = [
            RunRequest(program=Program.single("python", f"print({n})\n"), profile=profile)
            for n in range(BATCH_SIZE)
        ]
        started = time.perf_counter()
        list(backend.run_batch(batch))
        return (time.perf_counter() - started) * 1000


def run() -> dict[str, float]:
    require_tools("bwrap")  # the batch Prefect's per-task cost is compared with
    figures = bench_store()
    first_flow_s, per_task_ms = bench_prefect()
    batch = batch_ms()
    return figures | {
        "prefect_first_flow_s": first_flow_s,
        "prefect_task_overhead_ms": per_task_ms,
        "bwrap_batch_of_16_ms": batch,
        "prefect_share_of_batch_pct": 100 * per_task_ms / batch,
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<32} {value:10.3f}")
