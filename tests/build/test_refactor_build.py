"""ml through the refactor stack with the offline default: a local server of recorded responses."""

from __future__ import annotations

import pytest

from pipeline.build import steps
from pipeline.build.records import BuildConfig
from pipeline.dataset import read_rows
from pipeline.review.queue import ReviewQueue
from pipeline.store import Store


@pytest.fixture(autouse=True)
def _no_endpoint(monkeypatch):
    for name in ("SURGE_LLM_BASE_URL", "SURGE_LLM_MODEL", "SURGE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _build(store: Store, config: BuildConfig, n: int) -> None:
    steps.plan_round(store, config, 0, n)
    steps.build_batch(store, config, 0)
    steps.write_dataset(store, config, n)


@pytest.mark.slow
def test_auto_approved_rows_say_so_and_come_from_recorded_responses(tmp_path, require_bwrap):
    store = Store(tmp_path)
    config = BuildConfig(subset="ml", languages=("python",), auto_approve=True, batch_size=2)
    _build(store, config, 2)
    rows = read_rows(store, {"ml"})
    assert len(rows) == 2
    assert all(row.auto_approved and row.recorded_llm for row in rows)
    assert all(row.upstream.source == "mceval" and row.run is not None for row in rows)
    assert all(row.gt.strip() for row in rows)
    assert {row.custom_features["language"] for row in rows} == {"Python"}


@pytest.mark.slow
def test_without_approval_nothing_becomes_a_row_and_items_wait_for_review(tmp_path, require_bwrap):
    store = Store(tmp_path)
    config = BuildConfig(subset="ml", languages=("python",), batch_size=2)
    _build(store, config, 2)
    assert read_rows(store, {"ml"}) == []
    assert ReviewQueue(tmp_path / "review.db").counts() == {"pending": 2}
    summary = steps.summary(store, config)
    assert summary["items"] == 0 and summary["awaiting_review"] == 2  # no outcome until a reviewer decides


@pytest.mark.slow
def test_an_item_without_a_recorded_answer_is_skipped_not_dropped(tmp_path, require_bwrap):
    """No endpoint set and no recorded answer: ours, not the item's; nothing recorded, so an endpoint
    set later builds it in its place."""
    store = Store(tmp_path)
    config = BuildConfig(subset="ml", languages=("c",), auto_approve=True, batch_size=1)
    steps.plan_round(store, config, 0, 1)
    counts = steps.build_batch(store, config, 0)
    assert counts["ours:no_recorded_response"] == 1 and counts["dropped"] == 0
    assert "first_undone" not in counts  # recorded answers do not change: the build goes on past it
    summary = steps.summary(store, config)
    assert summary["items"] == 0 and summary["drop_reasons"] == {}


@pytest.mark.slow
def test_bg_runs_the_correct_program_then_the_buggy_one_and_keeps_gt0_and_bug_types(tmp_path, require_bwrap):
    store = Store(tmp_path)
    config = BuildConfig(subset="bg", languages=("python3",), auto_approve=True, batch_size=5)
    _build(store, config, 5)
    rows = {row.upstream.key: row for row in read_rows(store, {"bg"})}
    assert set(rows) == {"python3_double[1]", "python3_double[2]", "python3_double[3]"}
    complement = rows["python3_double[1]"]
    assert complement.custom_features["gt0"] == "2\n0\n5\n0\n"  # the correct solution's output
    assert "SyntaxError" in complement.gt  # the buggy snippet swapped in: `if num % 2 = 1`
    assert complement.custom_features["type"] == ["operation error", "== and = confusion"]
    assert complement.custom_features["language"] == "python3"
    summary = steps.summary(store, config)
    assert summary["items"] == 3 and summary["drop_reasons"] == {}  # items 0 and 4: no recorded answer


@pytest.mark.slow
def test_cl_difficulty_is_proposed_by_the_llm_and_confirmed_by_the_reviewer(tmp_path, require_bwrap):
    store = Store(tmp_path)
    config = BuildConfig(subset="cl", batch_size=3)
    _build(store, config, 3)
    queue = ReviewQueue(tmp_path / "review.db")
    pending = queue.entries("pending")
    assert len(pending) == 3 and read_rows(store, {"cl"}) == []
    proposals = {entry.key: entry.extra["difficulty"] for entry in pending}
    assert set(proposals.values()) <= {1, 2, 3, 4, 5}  # the recorded ratings, one per program
    first, second = pending[0], pending[1]
    queue.approve(first.entry_id, "ada")  # confirms the proposal
    queue.approve(second.entry_id, "ada", difficulty=5 if proposals[second.key] != 5 else 4)
    queue.reject(pending[2].entry_id, "ada", "the input is not a valid instance")
    steps.build_batch(store, config, 0)
    steps.write_dataset(store, config, 3)
    rows = {row.upstream.key: row for row in read_rows(store, {"cl"})}
    assert rows[first.key].custom_features["difficulty"] == proposals[first.key]
    assert rows[second.key].custom_features["difficulty"] != proposals[second.key]
    features = rows[first.key].custom_features
    assert set(features) == {"language", "lines", "repo", "difficulty", "keywords"}  # SURGE's cl keys
    assert features["repo"] == "LeetCode" and features["language"] == "Python"
    assert not any(row.auto_approved for row in rows.values())
    assert steps.summary(store, config)["drop_reasons"] == {"rejected review": 1}
