"""How pending runs become batches: guided sizes, one backend per batch, largest batch first."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipeline.batches import (
    LARGEST_BATCH,
    SMALLEST_BATCH,
    batched,
    execute_batch,
    guided_sizes,
    plan,
)
from pipeline.records import Program, RunRequest
from pipeline.store import Store, StoreError, batch_id_for
from sandboxes.profiles import get_profile

PROFILE = get_profile("default")


def requests(count: int, backend: str = "bwrap") -> list[RunRequest]:
    return [
        RunRequest(program=Program.single("python", f"print({n})"), profile=PROFILE, backend=backend)
        for n in range(count)
    ]


@pytest.mark.parametrize("count", [1, 15, 16, 17, 100, 1000, 10_000])
@pytest.mark.parametrize("workers", [1, 2, 8])
def test_guided_sizes_cover_every_run_within_the_bounds(count: int, workers: int) -> None:
    sizes = guided_sizes(count, workers)
    assert sum(sizes) == count
    assert all(0 < size <= LARGEST_BATCH for size in sizes)
    assert all(size >= SMALLEST_BATCH for size in sizes[:-1])  # only the remainder may be smaller
    assert sizes == sorted(sizes, reverse=True)  # large first, small at the end


def test_guided_sizes_make_few_task_runs_and_a_short_tail() -> None:
    sizes = guided_sizes(1000, 2)
    assert len(sizes) <= 28  # 63 batches at a fixed 16
    assert sizes[0] == LARGEST_BATCH and sizes[-3:] == [SMALLEST_BATCH] * 2 + [sizes[-1]]


def test_a_fixed_batch_size_is_kept_and_backends_never_mix() -> None:
    mixed = requests(5) + requests(3, backend="docker")
    batches = batched(mixed, 2)
    assert [len(batch) for batch in batches] == [2, 2, 1, 2, 1]
    assert all(len({request.backend for request in batch}) == 1 for batch in batches)
    guided = batched(mixed, None, workers=2)
    assert [len(batch) for batch in guided] == guided_sizes(5, 2) + guided_sizes(3, 2)
    assert all(len({request.backend for request in batch}) == 1 for batch in guided)


def test_the_flow_gets_the_largest_batches_first(tmp_path: Path) -> None:
    store = Store(tmp_path)
    plan_id, count = plan(store, requests(300), None, workers=2)
    sizes = [len(store.batch_requests(plan_id, batch_id)) for batch_id in store.plan_batches(plan_id)]
    assert len(sizes) == count and sum(sizes) == 300
    assert sizes == sorted(sizes, reverse=True) and sizes == guided_sizes(300, 2)


def test_a_plan_is_one_part_with_a_row_group_per_batch_read_alone(tmp_path: Path) -> None:
    store = Store(tmp_path)
    first, count = plan(store, requests(100), None, workers=2)
    other, _ = plan(store, requests(30)[10:], 8)  # a second plan in the same store
    part = pq.ParquetFile(store.plan_part(first))
    assert part.metadata.num_row_groups == count
    sizes = store.plan_batches(first)
    assert sorted(sizes.values(), reverse=True) == guided_sizes(100, 2)
    for batch_id, size in sizes.items():
        batch = store.batch_requests(first, batch_id)
        assert len(batch) == size and batch_id_for(batch) == batch_id
    assert sum(len(store.batch_requests(other, b)) for b in store.plan_batches(other)) == 20
    assert store.batch_requests(other, next(iter(sizes))) == []  # a batch of another plan
    written = store.plan_part(first).stat().st_mtime_ns
    assert plan(store, requests(100), None, workers=2) == (first, count)  # planned once
    assert store.plan_part(first).stat().st_mtime_ns == written


def test_a_plan_the_store_lacks_is_a_store_error_with_its_fix(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not in the manifest") as raised:
        Store(tmp_path).plan_batches("no-such-plan")
    assert "shared path" in (raised.value.hint or "")


def test_a_shared_slot_bounds_the_batches_running_programs_not_the_batch_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_bwrap: None
) -> None:
    # Three batch threads, two slots (what the command's engine passes its batches, Engine.sandbox_slots):
    # at most two batches run programs at once (real bwrap runs); the third reads its requests meanwhile,
    # and every batch stores its rows.
    import sandboxes

    store = Store(tmp_path)
    plan_id, _ = plan(store, requests(6), 2)
    inside, most = [0], [0]
    lock = threading.Lock()
    real_open = sandboxes.open_backend

    @contextmanager
    def counted(*args: Any, **kwargs: Any) -> Iterator[Any]:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            with real_open(*args, **kwargs) as backend:
                yield backend
                time.sleep(0.2)  # hold the slot a while: a third batch would overlap here
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(sandboxes, "open_backend", counted)
    slots = threading.BoundedSemaphore(2)
    with ThreadPoolExecutor(3) as pool:
        counts = list(
            pool.map(
                lambda b: execute_batch(tmp_path, plan_id, b, False, slot=slots), store.plan_batches(plan_id)
            )
        )
    assert most[0] == 2
    assert sum(c.written for c in counts) == 6 and len(store.runs.existing_ids()) == 6
