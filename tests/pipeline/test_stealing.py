"""The registry between a fed job's flow and its batches' drivers (pipeline/stealing.py): what a driver
started cannot be taken, what was taken is never started by its batch, and only offered batches count."""

from __future__ import annotations

import pytest

import pipeline.stealing as stealing


@pytest.fixture(autouse=True)
def nothing_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stealing, "_offered", {})


RUNS = ["r1", "r2", "r3", "r4", "r5"]


def test_the_later_half_of_what_is_unstarted_is_taken_and_then_skipped() -> None:
    stealing.offer("b")
    with stealing.running_batch("b"):
        assert stealing.starting("r1") and stealing.starting("r2")  # running, and the one queued ahead
        assert stealing.take_unstarted("b", RUNS) == ["r4", "r5"]
        assert stealing.starting("r3")
        assert not stealing.starting("r4") and not stealing.starting("r5")


def test_a_started_run_is_never_taken_and_the_last_one_left_is() -> None:
    stealing.offer("b")
    with stealing.running_batch("b"):
        for run_id in RUNS[:4]:
            assert stealing.starting(run_id)
    assert stealing.take_unstarted("b", RUNS) == ["r5"]
    with stealing.running_batch("b"):
        assert not stealing.starting("r5")
    assert stealing.take_unstarted("b", RUNS) == []  # all started or taken


def test_a_batch_that_started_none_keeps_one() -> None:
    stealing.offer("b")
    assert stealing.take_unstarted("b", RUNS[:1]) == []  # taken whole it would be the same batch again
    assert stealing.take_unstarted("b", RUNS[:2]) == ["r2"]


def test_a_batch_not_offered_or_withdrawn_runs_everything_and_gives_nothing() -> None:
    assert stealing.take_unstarted("b", RUNS) == []
    with stealing.running_batch("b"):
        assert all(stealing.starting(run_id) for run_id in RUNS)
    stealing.offer("c")
    assert stealing.take_unstarted("c", RUNS) == ["r3", "r4", "r5"]
    stealing.withdraw("c")
    with stealing.running_batch("c"):
        assert stealing.starting("r5")


def test_offering_a_batch_again_forgets_what_its_earlier_run_lost() -> None:
    stealing.offer("b")
    assert stealing.take_unstarted("b", RUNS) == ["r3", "r4", "r5"]
    stealing.offer("b")  # the same batch id in a later job of this process
    with stealing.running_batch("b"):
        assert stealing.starting("r5")


def test_a_thread_not_running_a_batch_is_never_refused() -> None:
    stealing.offer("b")
    stealing.take_unstarted("b", RUNS)
    assert stealing.starting("r5")  # no batch named on this thread
