"""Whose failure is it? The one place a build decides whether a failure belongs to the item or to us.

An item's failure (a compile error, a crash, a limit, output that changes between repeats, a refactor the
model got wrong, a rejected review) is the item's **outcome**: recorded in ``build_outcomes`` with its
reason, never tried again, and the build plans further items to reach ``--n``.

A failure of ours (a missing toolchain or image, a sandbox that broke, an LLM endpoint that is not set,
not reachable or refused us, a repository we could not fetch) says nothing about the item: nothing is
recorded for it, the command exits non-zero with the fix, and the next run tries the same item again at
the same place in the seeded plan. So a build gives the same dataset whatever was installed on its first
run.

One failure of ours is not transient: with no endpoint set, the build answers from the recorded
responses bundled in ``pipeline/build/recorded/``; an item they have no answer for is *skipped* (its
place kept, nothing recorded) and the build goes on to the next items, since running again would not
help. Setting an endpoint builds the skipped items.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar

from pipeline.build.records import BuildItem, BuildOutcome
from pipeline.dataset_rows import DatasetRow
from pipeline.records import Frozen, RunResult, Verdict

DOCTOR = "`surge doctor` lists what this machine has"
ENDPOINT_SETTINGS = (
    "set SURGE_LLM_BASE_URL and SURGE_LLM_MODEL (and SURGE_LLM_API_KEY; pipeline/llm/settings.py)"
)


class Ours(StrEnum):
    """The kinds of failure of ours a build meets (a closed set, like ``Verdict``)."""

    TOOLCHAIN_MISSING = "toolchain_missing"  # a compiler, interpreter, image or Lean checker is not here
    SANDBOX_ERROR = "sandbox_error"  # the sandbox broke (not the program)
    ENDPOINT_ERROR = "endpoint_error"  # the configured LLM endpoint failed, refused or was unreachable
    NO_RECORDED_RESPONSE = "no_recorded_response"  # no endpoint set, and no recorded answer for this item
    FETCH_ERROR = "fetch_error"  # a repository could not be cloned or checked out
    # Not a failure: the run's --budget is spent, so an item's refactor stopped asking. Like the others
    # it records nothing for the item (the next run resumes it in its place), but the command says
    # "done, but" (exit 3), not "failed" (exit 1).
    BUDGET_SPENT = "budget_spent"

    @property
    def transient(self) -> bool:
        """Would running again (after the fix) help? Recorded responses do not change between runs."""
        return self is not Ours.NO_RECORDED_RESPONSE


class OurFailure(Frozen):
    """A failure of ours on one planned item: reported, never recorded as the item's outcome."""

    kind: Ours
    index: int  # the item's place in the build's seeded plan
    detail: str = ""


# What a build step gives back for one batch: outcomes, candidate rows, failures of ours.
Built = tuple[list[BuildOutcome], list[DatasetRow], list[OurFailure]]

RUN_KINDS = {Verdict.TOOLCHAIN_MISSING: Ours.TOOLCHAIN_MISSING, Verdict.SANDBOX_ERROR: Ours.SANDBOX_ERROR}


def of_run(run: RunResult) -> Ours | None:
    """Ours if the run did not get to judge the program (toolchain missing, sandbox broke), else None."""
    return RUN_KINDS.get(run.verdict)


def of_runs(runs: list[RunResult]) -> Ours | None:
    return next((kind for run in runs if (kind := of_run(run)) is not None), None)


def run_detail(runs: list[RunResult]) -> str:
    """What the sandbox said about the first failure of ours among ``runs`` (which tool, which image)."""
    for run in runs:
        if of_run(run) is None:
            continue
        for phase in (run.compile, run.run):
            if phase is not None and phase.verdict is run.verdict:
                return phase.detail or phase.stderr.strip()[-200:]
    return ""


def of_runs_failure(runs: list[RunResult], index: int) -> OurFailure | None:
    kind = of_runs(runs)
    return None if kind is None else OurFailure(kind=kind, index=index, detail=run_detail(runs))


Runs = TypeVar("Runs", list[RunResult], dict[str, RunResult])


def judge_each(
    items: list[BuildItem],
    runs_per_item: list[Runs],
    judge: Callable[[BuildItem, Runs], tuple[BuildOutcome, list[DatasetRow]]],
) -> Built:
    """Each item judged on its runs (a list, or a dict by setting or profile), unless one of them failed
    on our side: then the item gets no outcome, only its failure of ours."""
    outcomes: list[BuildOutcome] = []
    rows: list[DatasetRow] = []
    ours: list[OurFailure] = []
    for item, runs in zip(items, runs_per_item, strict=True):
        if failure := of_runs_failure(list(runs.values()) if isinstance(runs, dict) else runs, item.index):
            ours.append(failure)
            continue
        outcome, made = judge(item, runs)
        outcomes.append(outcome)
        rows += made
    return outcomes, rows, ours


# The repair loop (pipeline/refactor/loop.py) ends an item's refactor with one of these when the endpoint
# or the sandbox failed it, rather than the model's answers.
REFACTOR_PREFIXES = {"llm_error": Ours.ENDPOINT_ERROR, "sandbox": Ours.SANDBOX_ERROR}


def of_refactor(failure: str, recorded: bool) -> Ours | None:
    """Ours if a refactor ended because the endpoint or the sandbox failed, not the model's answers."""
    kind = next((k for prefix, k in REFACTOR_PREFIXES.items() if failure.startswith(f"{prefix}:")), None)
    if kind is Ours.ENDPOINT_ERROR:
        return of_llm_error(recorded)
    if kind is Ours.SANDBOX_ERROR and f"({Verdict.TOOLCHAIN_MISSING.value})" in failure:
        return Ours.TOOLCHAIN_MISSING
    return kind


def of_llm_error(recorded: bool) -> Ours:
    """An LLM request that failed: with no endpoint set, the recorded stand-in answers 404 to what it has
    no recording for."""
    return Ours.NO_RECORDED_RESPONSE if recorded else Ours.ENDPOINT_ERROR


# Outcomes that earlier versions recorded for failures of ours: read as "no outcome", so the next run
# retries those items instead of keeping a missing image as their verdict forever.
LEGACY_REASONS = (
    "toolchain_missing",
    "sandbox_error",
    "approved program: toolchain_missing",
    "approved program: sandbox_error",
    "refactor failed: llm_error",
    "refactor failed: sandbox:",
    "prover failed: llm_error",
    "checkout failed",
)


def recorded_by_mistake(reason: str) -> bool:
    """Was this dropped outcome really a failure of ours (as recorded before this module decided)?"""
    return reason.startswith(LEGACY_REASONS) or " toolchain_missing under " in f" {reason}"


AGAIN = "then run the same command again: those items are built in their place"
GENERIC_FIX = {
    Ours.TOOLCHAIN_MISSING: f"install what is missing ({DOCTOR})",
    Ours.SANDBOX_ERROR: f"check the sandbox ({DOCTOR})",
    Ours.ENDPOINT_ERROR: "check SURGE_LLM_BASE_URL, SURGE_LLM_MODEL, SURGE_LLM_API_KEY and that it answers",
    Ours.FETCH_ERROR: "check the manifest's repository URL and commit, and the network",
    Ours.BUDGET_SPENT: "run again (with a --budget for that run): cached answers cost nothing",
}
WHAT = {
    Ours.TOOLCHAIN_MISSING: "a toolchain or image is missing",
    Ours.SANDBOX_ERROR: "the sandbox failed",
    Ours.ENDPOINT_ERROR: "the LLM endpoint failed",
    Ours.FETCH_ERROR: "a repository could not be fetched",
    Ours.BUDGET_SPENT: "the budget stopped asking",
}


def describe(kind: Ours, count: int, detail: str = "") -> tuple[str, str]:
    """(what failed, for how many items; how to fix it), one line each. A sandbox's detail reads
    "WHAT: HOW" ("image surge/python:bullseye is not built: build the images: `make images`")."""
    if kind is Ours.NO_RECORDED_RESPONSE:
        return f"no recorded response: {count} items skipped, nothing recorded for them", recorded_fix()
    what, _, how = detail.partition(": ") if kind is Ours.TOOLCHAIN_MISSING else (detail, "", "")
    reason = f"{what or WHAT[kind]}: {count} items not built, nothing recorded for them"
    return reason, f"{how or GENERIC_FIX[kind]}, {AGAIN}"


def recorded_fix() -> str:
    return f"{ENDPOINT_SETTINGS} to build the rest with a real model"


def recorded_reason(skipped: int, asked: int) -> str:
    """With no endpoint set: how far the recorded responses reached."""
    return (
        f"no LLM endpoint is set and the recorded responses cover {asked - skipped} of {asked} items "
        f"({skipped} skipped, nothing recorded for them)"
    )
