"""sc/tc end to end through the build steps in a real sandbox: rows, timing, resume, determinism."""

from __future__ import annotations

import pytest

from pipeline.build import manual, steps
from pipeline.build.records import BuildConfig, outcome_table
from pipeline.dataset import read_rows
from pipeline.store import Store
from pipeline.subsets import subset_spec


def _build(store: Store, config: BuildConfig, n: int, batches: range) -> list:
    steps.plan_round(store, config, 0, n)
    for batch in batches:
        steps.build_batch(store, config, batch)
    steps.write_dataset(store, config, n)
    return read_rows(store, {config.subset})


def _content(rows: list) -> list:
    return [(r.upstream.key, r.question, r.gt, r.run.run_id) for r in rows]


@pytest.mark.slow
def test_same_seed_same_rows_and_a_resumed_build_finishes_exactly_the_rest(tmp_path, require_bwrap):
    config = BuildConfig(subset="sc", seed=4, batch_size=2)
    whole = _build(Store(tmp_path / "a"), config, 4, range(2))
    assert len(whole) == 4
    assert all(r.label_origin == "executed" and r.construction == "manual_implementation" for r in whole)
    assert whole[0].question.startswith("code:```\n") and "command:```\npython " in whole[0].question

    interrupted = Store(tmp_path / "b")
    steps.plan_round(interrupted, config, 0, 4)
    steps.build_batch(interrupted, config, 0)  # then the process dies
    assert steps.build_batch(interrupted, config, 0)["skipped"] == 1
    resumed = _build(interrupted, config, 4, range(2))
    assert _content(resumed) == _content(whole)
    assert len(list(outcome_table(interrupted).records())) == 4  # nothing ran twice


@pytest.mark.slow
def test_tc_records_median_cpu_time_its_spread_and_bin(tmp_path, require_bwrap):
    config = BuildConfig(subset="tc", seed=2, batch_size=2, repeats=3)
    rows = _build(Store(tmp_path / "s"), config, 2, range(1))
    for row in rows:
        features = row.custom_features
        low, high = features["cpu_s_spread"]
        assert low <= features["cpu_s_median"] <= high
        assert features["time"] == f"{features['cpu_s_median']:.4f} seconds"
        assert features["time_bin"] in {"<0.1s", "0.1-1s", "1-10s", "10-30s", ">=30s"}
        # two copies time an instance; the third only where those two were more than 10% apart
        assert row.run.repeats in (2, 3)
        if row.run.repeats == 2:
            assert high - low <= manual.TIMING_AGREEMENT * high + 1e-4


@pytest.mark.slow
def test_a_failing_instance_is_kept_as_an_outcome_with_its_reason(tmp_path, require_bwrap):
    store = Store(tmp_path / "s")
    config = BuildConfig(subset="sc", seed=0, batch_size=1)
    steps.plan_round(store, config, 0, 1)
    from pipeline.build import manual
    from pipeline.build.plan import read_batch

    item = read_batch(store, config.build_key, 0)[0]
    program = item.program().model_copy(update={"argv": ("--no-such-flag", "1")})
    broken = item.model_copy(update={"program_json": program.model_dump_json(exclude={"program_id"})})
    outcomes, rows, ours = manual.build_scripts(subset_spec("sc"), store, config, [broken])
    assert rows == [] and ours == []
    assert outcomes[0].status == "dropped" and outcomes[0].reason.startswith("runtime_error")
    assert "error: the following arguments are required" in outcomes[0].reason
