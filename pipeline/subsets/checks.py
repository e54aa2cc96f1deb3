"""Self-checking labels: a program that asserts its own expected output, and the verdict of that check.

A benchmark such as CRUXEval-X ships programs ending in ``assert f(x) == y`` (in each language's idiom), and
its label is the claim "this check holds". The label we measure is the check's verdict, read from the facts
of the run (label protocol ``self_check``: every stream the harness wrote) through a ``CheckConvention``:
how that harness shows a failed check. Harnesses differ exactly where it matters (rackunit prints a failed
check and exits 0; mono exits 0 after a failed ``Debug.Assert``; Java's ``assert`` is off without ``-ea``),
so a convention is data a benchmark's plug-in declares per language, never a special case here.

A check that passes is only evidence if it could have failed: the audit also runs a *mutant*, the same
program with its expected value altered, which must fail (``pipeline/audit/checks.py``).
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import Field

from pipeline.records import Frozen, PhaseResult, RunResult, Verdict

MESSAGE_CHARS = 300
TIME_LIMITS = (Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT)
RESOURCE_LIMITS = (Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT)


class CheckStatus(StrEnum):
    """What became of a self-check: the label a self-checking benchmark claims is ``passed``."""

    PASSED = "passed"
    ASSERTION_FAILED = "assertion_failed"  # the check ran and failed: its message says how
    DID_NOT_COMPILE = "did_not_compile"
    CRASHED = "crashed"  # ended in an error that is not the check's (an exception before it, a signal)
    TIMED_OUT = "timed_out"
    RESOURCE_LIMIT = "resource_limit"  # memory or output
    MISSING_DEPENDENCY = "missing_dependency"  # a library the program needs is not installed here: ours
    NOT_RUN = "not_run"  # the toolchain is missing here: ours


class CheckConvention(Frozen):
    """How one harness shows a check's verdict, as a benchmark's plug-in declares it per language.

    Patterns are regular expressions searched in the output (MULTILINE). ``failed`` marks a failed check
    (Python's ``AssertionError``, Go's ``--- FAIL``, rackunit's ``FAILURE``); a run that matches one fails
    its check even when it exits 0. A run that ends in an error matching none of them crashed before or
    beside its check. ``missing`` maps a pattern of compile or run output to the dependency it names
    (``package org.javatuples does not exist`` -> the javatuples jar), which is never the program's fault.
    """

    failed: tuple[str, ...] = Field(description="patterns of a failed check in the run's stdout or stderr")
    missing: tuple[tuple[str, str], ...] = Field(
        default=(), description="(pattern in compile or run output, the dependency it names)"
    )
    # Harnesses whose failed check shows nothing but its exit status (Bash's `[[ ... ]]` under `set -e`,
    # a Perl script's `exit 1`): any run that ends in an error is the check failing.
    error_is_failure: bool = False

    def failure_line(self, text: str) -> str | None:
        """The line that shows the check failed, or None."""
        for pattern in self.failed:
            match = re.search(pattern, text, re.MULTILINE)
            if match:
                start = text.rfind("\n", 0, match.start()) + 1
                end = text.find("\n", match.end())
                return text[start : end if end >= 0 else len(text)].strip()
        return None

    def missing_dependency(self, text: str) -> str | None:
        for pattern, dependency in self.missing:
            if re.search(pattern, text, re.MULTILINE):
                return dependency
        return None


class CheckOutcome(Frozen):
    status: CheckStatus
    message: str = Field(default="", description="the failure's line, the first diagnostic, what is missing")

    @property
    def label(self) -> str:
        """The outcome as a label: ``passed``, or the status and its message (``assertion_failed: ...``)."""
        return self.status.value + (f": {self.message}" if self.message else "")


def check_outcome(convention: CheckConvention, result: RunResult) -> CheckOutcome:
    """The check's verdict from the facts of one run (its first repeat), read through its harness's
    convention."""
    return _outcome(convention, result.verdict, result.compile, result.run)


def check_outcomes(convention: CheckConvention, result: RunResult) -> tuple[CheckOutcome, ...]:
    """The check's distinct verdicts over the run's repeats, the first repeat's first. Repeats whose raw
    output differed may still agree on the check (a crash report with addresses after the same failed
    assertion): only a verdict that differs makes the check non-deterministic. A repeat ran only after
    its program compiled, so its own verdict is the result's."""
    repeats = [check_outcome(convention, result)]
    repeats += [_outcome(convention, other.verdict, result.compile, other) for other in result.other_runs]
    return tuple(dict.fromkeys(repeats))


def _outcome(
    convention: CheckConvention, verdict: Verdict, compile: PhaseResult | None, run: PhaseResult | None
) -> CheckOutcome:
    if verdict is Verdict.TOOLCHAIN_MISSING:
        return CheckOutcome(status=CheckStatus.NOT_RUN, message=_detail(verdict, run or compile))
    dependency = convention.missing_dependency(_streams(compile) + _streams(run))
    if dependency:
        return CheckOutcome(status=CheckStatus.MISSING_DEPENDENCY, message=dependency)
    if verdict is Verdict.COMPILE_ERROR:
        return CheckOutcome(status=CheckStatus.DID_NOT_COMPILE, message=_first_line(_streams(compile)))
    if verdict in TIME_LIMITS:
        return CheckOutcome(status=CheckStatus.TIMED_OUT, message=_detail(verdict, run or compile))
    if verdict in RESOURCE_LIMITS:
        return CheckOutcome(status=CheckStatus.RESOURCE_LIMIT, message=_detail(verdict, run or compile))
    failure = convention.failure_line(_streams(run))
    if failure is not None:
        return CheckOutcome(status=CheckStatus.ASSERTION_FAILED, message=failure[:MESSAGE_CHARS])
    if verdict is Verdict.OK:
        return CheckOutcome(status=CheckStatus.PASSED)
    if convention.error_is_failure and verdict is Verdict.RUNTIME_ERROR:
        return CheckOutcome(status=CheckStatus.ASSERTION_FAILED, message=_crash(verdict, run))
    return CheckOutcome(status=CheckStatus.CRASHED, message=_crash(verdict, run))


def _streams(phase: PhaseResult | None) -> str:
    return "" if phase is None else phase.stdout + ("\n" if phase.stdout else "") + phase.stderr


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or [""])[0][:MESSAGE_CHARS]


def _detail(verdict: Verdict, phase: PhaseResult | None) -> str:
    detail = phase.detail if phase is not None else ""
    return (detail or verdict.value)[:MESSAGE_CHARS]


def _crash(verdict: Verdict, run: PhaseResult | None) -> str:
    if run is None:
        return verdict.value
    ending = f"signal {run.signal}" if run.signal else f"exit {run.exit_code}"
    lines = [line.strip() for line in run.stderr.splitlines() if line.strip()]
    return f"{ending}: {lines[-1]}"[:MESSAGE_CHARS] if lines else ending
