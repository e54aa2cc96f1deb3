"""Whose failure is it (pipeline/build/failures.py): the one place that decides, verdict by verdict."""

from __future__ import annotations

import pytest

from pipeline.build import failures
from pipeline.build.failures import Ours
from pipeline.records import Verdict
from pipeline.stages.build import SubsetBuild
from tests.factories import make_result


@pytest.mark.parametrize("verdict", list(Verdict))
def test_only_a_missing_toolchain_and_a_broken_sandbox_are_ours_among_run_verdicts(verdict: Verdict) -> None:
    run = make_result(verdict=verdict)
    ours = {Verdict.TOOLCHAIN_MISSING: Ours.TOOLCHAIN_MISSING, Verdict.SANDBOX_ERROR: Ours.SANDBOX_ERROR}
    assert failures.of_run(run) is ours.get(verdict)  # a compile error, a crash, a limit: the item's


def test_a_refactor_that_the_endpoint_or_sandbox_ended_is_ours_one_the_model_got_wrong_is_the_items() -> None:
    assert (
        failures.of_refactor("llm_error: http://x refused the request (HTTP 401)", False)
        is Ours.ENDPOINT_ERROR
    )
    assert failures.of_refactor("llm_error: no recorded response", True) is Ours.NO_RECORDED_RESPONSE
    trouble = "sandbox: sandbox could not run the program (toolchain_missing): `gcc` is not installed"
    assert failures.of_refactor(trouble, False) is Ours.TOOLCHAIN_MISSING
    assert failures.of_refactor("sandbox: sandbox could not run the program (sandbox_error): x", False) is (
        Ours.SANDBOX_ERROR
    )
    wrong = "no usable program after 3 rounds; last problem: run: the program printed nothing"
    assert failures.of_refactor(wrong, False) is None
    assert failures.of_refactor("extract: no code block in the answer", True) is None


def test_only_recorded_responses_are_not_worth_running_again() -> None:
    assert [kind for kind in Ours if not kind.transient] == [Ours.NO_RECORDED_RESPONSE]


@pytest.mark.parametrize(
    ("reason", "ours"),
    [
        ("toolchain_missing: `python3` is not installed", True),
        ("toolchain_missing under surge-repro", True),
        ("approved program: toolchain_missing", True),
        ("refactor failed: llm_error: no recorded response matches this request", True),
        ("prover failed: llm_error: HTTP 404", True),
        ("runtime_error: Traceback (most recent call last):", False),
        ("non-deterministic: the output changes between repeats", False),
        ("refactor failed: no usable program after 3 rounds", False),
        ("same output under every profile", False),
    ],
)
def test_outcomes_older_versions_recorded_for_failures_of_ours_are_recognised(
    reason: str, ours: bool
) -> None:
    assert failures.recorded_by_mistake(reason) is ours


def test_a_sandbox_detail_becomes_what_failed_and_its_fix() -> None:
    detail = "image surge/python:bullseye is not built: build the images: `make images`"
    reason, fix = failures.describe(Ours.TOOLCHAIN_MISSING, 5, detail)
    assert reason == "image surge/python:bullseye is not built: 5 items not built, nothing recorded for them"
    assert fix.startswith("build the images: `make images`, then run the same command again")
    reason, fix = failures.describe(Ours.NO_RECORDED_RESPONSE, 2)
    assert "SURGE_LLM_BASE_URL" in fix


@pytest.mark.parametrize(
    ("result", "why"),
    [
        ({"ran_out": True, "planned_items": 4}, "there are only 4 items to build from"),
        ({"dropped_items": 9}, "it stopped after 12 items (4 per row asked): 9 dropped"),
        (
            {"awaiting_review": 2, "ran_out": True},
            "there are only 12 items to build from; 2 items await review",
        ),
        (
            {"ours": {"ours:toolchain_missing": 3}},
            "a failure of ours stopped it (below); run again once fixed",
        ),
        ({"ours": {"ours:no_recorded_response": 12}}, "the recorded responses cover 0 of 12 items"),
    ],
)
def test_a_build_short_of_n_says_why(result: dict, why: str) -> None:
    from pipeline.commands.build import _shortfall

    base = {"ours": {}, "ran_out": False, "planned_items": 12, "dropped_items": 0, "awaiting_review": 0}
    assert why in _shortfall(subset_build(base | result))


@pytest.mark.parametrize(
    ("subset", "why"),
    [
        ("sc", "(planned 160 for 150 rows: later rounds made up for dropped items)"),
        ("ml", "(planned 160 for 150 rows, in whole batches of 16 items: --batch-size)"),
    ],
)
def test_a_line_says_why_more_items_were_planned_than_rows(subset: str, why: str) -> None:
    """A template subset plans the items n rows need, so more means drops; ml, cl, bg plan whole batches."""
    from pipeline.commands.build import _line

    result = {"rows": 150, "n": 150, "kept_items": 150, "items": 160, "planned_items": 160, "batch_size": 16}
    result |= {"ours": {}, "ran_out": False, "dropped_items": 10, "awaiting_review": 0}
    assert why in _line(subset, subset_build(result))


def subset_build(figures: dict) -> SubsetBuild:
    """A subset's build with these figures, the rest of no consequence to its line."""
    neutral = {"subset": "sc", "rows": 0, "n": 4, "details": {}, "items": 12, "kept_items": 0}
    return SubsetBuild.model_validate(neutral | {"drop_reasons": {}, "batch_size": 16} | figures)
