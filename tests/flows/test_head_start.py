"""The head start (flows/head_start.py): batches run while Prefect's API starts, and each is still one
Prefect task run with its real outcome, executed once."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from flows import head_start as head_start_module
from flows.engine import Engine
from pipeline.cli import main
from pipeline.store import Store
from tests.flows.test_run_flow import prefect_runs, write_programs


def run_with_the_api_held_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[dict[str, Any], list[int], Path]:
    """`surge run` of 8 programs in batches of 2, with an API that answers only once two batches are
    stored: (the summary, how many batches the head start had taken when the flow began, the store)."""
    import flows.runtime

    store = tmp_path / "store"
    real_wait = flows.runtime.LocalApi.wait_ready
    real_stop = head_start_module.HeadStart.stop
    at_stop: list[int] = []

    def slow_api(api: Any, timeout_s: float) -> None:
        deadline = time.monotonic() + 60
        while len(list((store / "runs").glob("part-*.parquet"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        real_wait(api, timeout_s)

    def counting_stop(early: head_start_module.HeadStart) -> None:
        if not early.stopped:
            at_stop.append(len(early.started))
        real_stop(early)

    monkeypatch.setattr(flows.runtime.LocalApi, "wait_ready", slow_api)
    monkeypatch.setattr(head_start_module.HeadStart, "stop", counting_stop)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    programs = write_programs(tmp_path / "p.jsonl", [f"print({n})" for n in range(8)])
    command = ["run", str(programs), "--store", str(store), "--batch-size", "2", "--json", *extra]
    with Engine() as engine:  # this command starts its own API, as a fresh `surge run` does
        assert main(command) == 0
        flow_runs, task_runs = prefect_runs()
        assert engine.early is None  # the head start was closed with the job, its outcomes dropped
    summary = json.loads(capsys.readouterr().out)
    return {**summary, "_prefect": (flow_runs, task_runs)}, at_stop, store


def assert_each_run_once_in_one_task_run_per_batch(summary: dict[str, Any], store: Path) -> None:
    # every run once: a batch run again would find its rows stored and say so
    assert summary["runs"] == summary["written"] == 8 and summary["found_stored"] == 0
    assert sorted(int(row.label) for row in Store(store).runs.records()) == list(range(8))
    flow_runs, task_runs = summary["_prefect"]
    (flow_run,) = [run for run in flow_runs if str(store) in json.dumps(run.parameters)]
    mine = [t for t in task_runs if t.flow_run_id == flow_run.id]
    assert len(mine) == summary["batches"] == 4 and all(t.state.is_completed() for t in mine)


@pytest.mark.slow
def test_batches_run_before_the_api_answers_and_are_task_runs_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, require_bwrap: None
) -> None:
    summary, at_stop, store = run_with_the_api_held_back(tmp_path, monkeypatch, capsys)
    assert at_stop and at_stop[0] >= 2  # the head start had taken batches before the flow began
    assert_each_run_once_in_one_task_run_per_batch(summary, store)


def test_a_claim_is_given_once_and_a_stopped_head_start_takes_nothing(tmp_path: Path) -> None:
    with Engine() as engine, engine.head_start(tmp_path, "plan", ["b0"], unsafe=False, workers=0) as early:
        assert early is not None and engine.early is early
        engine.stop_head_start()
        early.pending.extend(["b1", "b2"])
        assert early.take() is None  # stopped: the flow runs the rest itself
        early.stopped = False
        taken = early.take()
        assert taken is not None and taken[0] == "b0"
        outcome = engine.claim("b0")
        assert outcome is not None and engine.claim("b0") is None
        assert early.take() is not None and engine.claim_taken(["b1"]) == {}  # a task here claims b1
    assert engine.early is None and early.outcomes == {}  # closed with its unclaimed outcomes forgotten
