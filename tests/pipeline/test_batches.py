"""How pending runs become batches: guided sizes, one backend per batch, largest batch first."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.batches import LARGEST_BATCH, SMALLEST_BATCH, batched, guided_sizes, plan
from pipeline.records import Program, RunRequest
from pipeline.store import Store
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
    assert len(sizes) <= 25  # 63 batches at a fixed 16
    assert sizes[0] == LARGEST_BATCH and sizes[-3:] == [SMALLEST_BATCH] * 2 + [sizes[-1]]


def test_a_fixed_batch_size_is_kept_and_backends_never_mix() -> None:
    mixed = requests(5) + requests(3, backend="docker")
    batches = batched(mixed, 2)
    assert [len(batch) for batch in batches] == [2, 2, 1, 2, 1]
    assert all(len({request.backend for request in batch}) == 1 for batch in batches)
    guided = batched(mixed, None, workers=2)
    assert [len(batch) for batch in guided] == [5, 3]


def test_the_flow_gets_the_largest_batches_first(tmp_path: Path) -> None:
    store = Store(tmp_path)
    plan_id, count = plan(store, requests(300), None, workers=2)
    sizes = [len(store.batch_requests(batch_id)) for batch_id in store.plan_batches(plan_id)]
    assert len(sizes) == count and sum(sizes) == 300
    assert sizes == sorted(sizes, reverse=True) and sizes == guided_sizes(300, 2)
