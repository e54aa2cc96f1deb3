"""tc runs each program several times as separate requests (each copy's CPU time is a fact): the copies
are repeats, and must agree on everything the row claims, not only on the label's text."""

from __future__ import annotations

from pathlib import Path

from pipeline.build import manual, steps
from pipeline.build.plan import read_batch
from pipeline.build.records import BuildConfig
from pipeline.records import PhaseResult, Verdict
from pipeline.store import Store
from tests.factories import make_result


def test_a_copy_that_timed_out_after_printing_the_same_output_drops_the_item(tmp_path: Path) -> None:
    store = Store(tmp_path)
    config = BuildConfig(subset="tc", seed=2, batch_size=1, repeats=2)
    steps.plan_round(store, config, 0, 1)
    item = read_batch(store, config.build_key, 0)[0]
    finished = make_result("tc", "42\n")
    # the same stdout, then the program hung until the wall limit
    hung = finished.model_copy(
        update={
            "run": PhaseResult(stdout="42\n", signal="SIGKILL", verdict=Verdict.WALL_TIME_LIMIT),
            "verdict": Verdict.WALL_TIME_LIMIT,
        }
    )
    assert finished.label == hung.label
    outcome, rows = manual.judge(config, item, [finished, hung], timed=True)
    assert rows == [] and outcome.status == "dropped" and outcome.reason.startswith("non-deterministic")
