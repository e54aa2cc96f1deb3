"""A batch stores its finished rows as it goes, each once, whatever copies of it run (real bwrap)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq

from pipeline.batches import execute_batch, plan
from pipeline.records import Limits, PhaseLimits, Program, RunRequest
from pipeline.store import Store
from sandboxes.profiles import get_profile

PROFILE = get_profile("default")
# Generous: a loaded 2-core machine starts a sandbox in well under this; nothing waits for it when fast.
WAIT_S = 120.0
POLL_S = 0.1


def request(source: str, wall_s: float = 20.0) -> RunRequest:
    limits = Limits(run=PhaseLimits(wall_s=wall_s))
    return RunRequest(program=Program.single("python", source), profile=PROFILE, limits=limits)


def stored_run_ids(store: Path) -> list[str]:
    """Every run id of every part, duplicates included (the store's own reads would hide nothing)."""
    return [
        run_id
        for part in sorted((store / "runs").glob("part-*.parquet"))
        for run_id in pq.read_table(part, columns=["run_id"]).column("run_id").to_pylist()
    ]


def test_a_fast_row_reaches_the_store_while_the_slow_one_after_it_runs(
    tmp_path: Path, require_bwrap: None
) -> None:
    store = Store(tmp_path / "store")
    fast = request("print('fast')")
    slow = request("import time; time.sleep(600)", wall_s=900)  # killed below, long before its limit
    plan_id, _ = plan(store, [fast, slow], batch_size=2)
    (batch_id,) = store.plan_batches(plan_id)
    code = (
        "from pipeline.batches import execute_batch; "
        f"execute_batch({str(store.root)!r}, {plan_id!r}, {batch_id!r}, False, flush_every_s=0.2)"
    )
    batch = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while not stored_run_ids(store.root) and batch.poll() is None and time.monotonic() < deadline:
            time.sleep(POLL_S)
        assert batch.poll() is None, f"the batch ended (exit {batch.returncode}) before a row was seen"
        assert stored_run_ids(store.root) == [fast.run_id]  # the slow one is still running
    finally:
        os.killpg(batch.pid, signal.SIGKILL)
        batch.wait(timeout=WAIT_S)


def test_two_copies_of_a_batch_at_once_store_each_row_once(tmp_path: Path, require_bwrap: None) -> None:
    # One copy stores a part per row as it goes; a second copy starts once two rows are stored (so it
    # runs the rest again) and stores one part at its end: without the write lock, the rows both ran
    # would be in a part of each.
    store = Store(tmp_path / "store")
    batch = [request(f"import time; time.sleep(0.3); print({n})") for n in range(6)]
    plan_id, _ = plan(store, batch, batch_size=6)
    (batch_id,) = store.plan_batches(plan_id)
    heard: list[int] = []
    counts = []

    lock = threading.Lock()

    def hear(_batch: str, run_ids: list[str]) -> None:  # both copies' parts are heard
        with lock:
            heard.append(len(run_ids))

    def copy(flush_every_s: float) -> None:
        counts.append(
            execute_batch(store.root, plan_id, batch_id, False, flush_every_s=flush_every_s, heard=hear)
        )

    first = threading.Thread(target=copy, args=(0.05,))
    first.start()
    deadline = time.monotonic() + WAIT_S
    while len(stored_run_ids(store.root)) < 2 and first.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    second = threading.Thread(target=copy, args=(3600.0,))
    second.start()
    for thread in (first, second):
        thread.join(timeout=WAIT_S)
    ids = stored_run_ids(store.root)
    assert sorted(ids) == sorted(r.run_id for r in batch)  # each once
    assert sum(c.written for c in counts) == len(batch)
    assert sum(heard) == sum(c.runs for c in counts)  # every stored part was heard, with its runs


def test_a_fed_batch_stores_a_long_run_or_a_missing_toolchain_as_it_ends(tmp_path: Path) -> None:
    """What moves a fed audit on is stored at once; a short ordinary run waits for the batch's flush."""
    from pipeline.batches import RowWriter
    from pipeline.records import PhaseResult, Verdict
    from tests.audit.fakes import result_for

    heard: list[list[str]] = []
    short, long, missing = (request(f"print({n})") for n in range(3))
    with RowWriter(
        Store(tmp_path / "store"), "b", 600.0, lambda _, ids: heard.append(ids), at_once_s=1.0
    ) as rows:
        rows.add(result_for(short, "0\n"))
        assert heard == []
        long_result = result_for(long, "1\n").model_copy(
            update={"run": PhaseResult(stdout="1\n", wall_s=1.5, verdict=Verdict.OK)}
        )
        rows.add(long_result)
        assert heard == [[short.run_id, long.run_id]]
        rows.add(result_for(missing, "", verdict=Verdict.TOOLCHAIN_MISSING))
        assert heard[-1] == [missing.run_id]
