"""tc runs each program several times as separate requests (each copy's CPU time is a fact): the copies
are repeats, and must agree on everything the row claims, not only on the label's text."""

from __future__ import annotations

from pathlib import Path

from pipeline.build import manual, steps
from pipeline.build.plan import read_batch, script_item
from pipeline.build.records import TIMING_RULE, BuildConfig
from pipeline.records import PhaseResult, RunResult, Verdict
from pipeline.store import Store
from pipeline.subsets import subset_spec
from pipeline.templates import library_scripts
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
    outcome, rows = manual.judge(subset_spec("tc"), config, item, [finished, hung], timed=True)
    assert rows == [] and outcome.status == "dropped" and outcome.reason.startswith("non-deterministic")


def _timed(cpu_user_s: float, verdict: Verdict = Verdict.OK) -> RunResult:
    result = make_result("tc", "42\n", verdict)
    assert result.run is not None
    return result.model_copy(update={"run": result.run.model_copy(update={"cpu_user_s": cpu_user_s})})


def test_a_third_copy_runs_only_for_the_items_whose_two_copies_disagree_on_cpu_time(
    tmp_path: Path, monkeypatch
) -> None:
    store = Store(tmp_path)
    config = BuildConfig(subset="tc", seed=2, batch_size=3, repeats=3)
    steps.plan_round(store, config, 0, 3)
    items = read_batch(store, config.build_key, 0)
    # per item, the CPU seconds of its successive copies: agreeing (3% apart), disagreeing (25%), failed
    times = {
        items[0].item_id: [40.0, 41.2],
        items[1].item_id: [20.0, 25.0, 21.0],
        items[2].item_id: [1.0, 9.0],
    }
    failed = items[2].item_id
    asked: list[tuple[str, int]] = []

    def fake_execute(store, requests, backend, unsafe, workers, reuse=True):
        assert not reuse  # timing copies are new facts, never served from the store
        by_program = {item.program().program_id: item.item_id for item in items}
        results = []
        for request in requests:
            item_id = by_program[request.program.program_id]
            done = sum(1 for seen, _ in asked if seen == item_id)
            asked.append((item_id, done))
            verdict = Verdict.RUNTIME_ERROR if item_id == failed else Verdict.OK
            results.append(_timed(times[item_id][done], verdict))
        return results

    monkeypatch.setattr(manual, "execute", fake_execute)
    runs = manual._timed_copies(store, config, items)
    assert [len(r) for r in runs] == [2, 3, 2]
    assert [manual.cpu_s(r) for r in runs[1]] == [20.0, 25.0, 21.0]


def test_the_timing_rule_is_part_of_a_timed_build_key_only() -> None:
    assert BuildConfig(subset="tc", seed=2, repeats=3, timed=True)._timing_rule() == (TIMING_RULE,)
    # two copies at most leave nothing to decide; sc's runs are not timing copies
    assert BuildConfig(subset="tc", seed=2, repeats=2, timed=True)._timing_rule() == ()
    assert BuildConfig(subset="sc", seed=2)._timing_rule() == ()


def test_copies_run_longest_first_and_come_back_in_item_order(tmp_path: Path, monkeypatch) -> None:
    """A batch's long instances start first, so no 40-second copy runs alone at the batch's end; each
    item still gets its own copies back."""
    config = BuildConfig(subset="tc", seed=2, batch_size=3, repeats=2)
    templates = library_scripts("tc")[:1]
    bins = ("<0.1s", ">=30s", "1-10s")
    items = [script_item(config, templates, i, None, {"target_bin": name}) for i, name in enumerate(bins)]
    cpu_by_item = {items[0].item_id: 0.02, items[1].item_id: 40.0, items[2].item_id: 3.0}
    asked: list[str] = []

    def fake_execute(store, requests, backend, unsafe, workers, reuse=True):
        by_program = {item.program().program_id: item.item_id for item in items}
        asked.extend(by_program[request.program.program_id] for request in requests)
        return [_timed(cpu_by_item[by_program[request.program.program_id]]) for request in requests]

    monkeypatch.setattr(manual, "execute", fake_execute)
    runs = manual._timed_copies(Store(tmp_path), config, items)
    longest_first = [items[1].item_id] * 2 + [items[2].item_id] * 2 + [items[0].item_id] * 2
    assert asked == longest_first
    assert [[manual.cpu_s(run) for run in copies] for copies in runs] == [[0.02] * 2, [40.0] * 2, [3.0] * 2]
