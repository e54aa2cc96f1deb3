"""A self-checking label's class: the check's verdict under its harness's convention, and whether the
check could have failed at all (its mutant's verdict).

A check that passes is reproduced only when its mutant (the program with its expected value altered) fails
its check: then the check distinguishes right from wrong. A mutant that passes too makes the label
``vacuous_check`` (both runs the evidence): the harness cannot fail (Java's ``assert`` without ``-ea``, C#'s
``Debug.Assert`` without ``DEBUG``, D's ``unittest`` blocks compiled without unittests) or the comparison
cannot (a loose equality, a check of a value against itself). A check that does not hold contradicts the
label; a tool or library missing here is ours and says nothing of the label.
"""

from __future__ import annotations

from pipeline.audit.classify import Classification
from pipeline.audit.rows import AuditClass, Conversion
from pipeline.records import RunResult
from pipeline.subsets.checks import CheckConvention, CheckOutcome, CheckStatus, check_outcome, check_outcomes

CLASS_OF_STATUS = {
    CheckStatus.NOT_RUN: AuditClass.NOT_RUN,
    CheckStatus.MISSING_DEPENDENCY: AuditClass.MISSING_DEPENDENCY,
    CheckStatus.TIMED_OUT: AuditClass.TIMEOUT,
    CheckStatus.RESOURCE_LIMIT: AuditClass.RESOURCE_LIMIT,
}


def classify_check(
    conversion: Conversion, convention: CheckConvention, result: RunResult, mutant: RunResult | None
) -> tuple[Classification, tuple[CheckOutcome, ...]]:
    """The class of a self-check's label from its run and its mutant's run (None: no mutant), and the
    check's distinct verdicts over the run's repeats (the first repeat's first).

    The label is the check's verdict, so the repeats must agree on that verdict, not on every byte they
    wrote: a failed assertion followed by a crash report with addresses is one verdict. Rows stored before
    each repeat was kept have only their raw outputs to go by, and those must agree."""
    outcomes = check_outcomes(convention, result)
    outcome = outcomes[0]
    if outcome.status in CLASS_OF_STATUS:
        reason = f"{outcome.status.value}: {outcome.message}" if outcome.message else outcome.status.value
        return Classification(audit_class=CLASS_OF_STATUS[outcome.status], reason=reason), outcomes
    if len(outcomes) > 1 or (result.distinct_outputs > 1 and not result.other_runs):
        said = disagreement(result, outcomes)
        return Classification(audit_class=AuditClass.NON_DETERMINISTIC, reason=said), outcomes
    noise = (
        f" ({', '.join(result.varied)} varied between runs; the check's verdict did not)"
        if result.varied
        else ""
    )
    if outcome.status is not CheckStatus.PASSED:
        said = f"the check does not hold here: {outcome.label}"
        return Classification(audit_class=AuditClass.MISMATCH, reason=said + noise, evidence=said), outcomes
    passed = vacuity(conversion, convention, result, mutant)
    return passed.model_copy(update={"reason": passed.reason + noise}) if noise else passed, outcomes


def disagreement(result: RunResult, outcomes: tuple[CheckOutcome, ...]) -> str:
    """What the repeats disagreed on: each verdict they reached, else (old rows) what varied."""
    varied = ", ".join(result.varied) or "the output"
    if len(outcomes) > 1:
        seen = "; ".join(outcome.label for outcome in outcomes)
        said = f"the check's runs disagreed: {len(outcomes)} verdicts in {result.repeats} runs ({seen}; "
        return f"{said}{varied} varied)"[:600]
    return (
        f"the check's runs disagreed: {result.distinct_outputs} outcomes in {result.repeats} runs "
        f"({varied} varied; the first: {outcomes[0].label})"
    )


def vacuity(
    conversion: Conversion, convention: CheckConvention, result: RunResult, mutant: RunResult | None
) -> Classification:
    """A passing check: reproduced if its mutant fails, vacuous if its mutant passes too."""
    altered = conversion.plan.mutation
    if mutant is None:
        reason = f"the check passed; whether it can fail is untested: no mutant ({altered or 'none derived'})"
        return Classification(audit_class=AuditClass.EXACT, reason=reason)
    probed = check_outcome(convention, mutant)
    evidence = f"check (run {result.run_id}): passed\nmutant, {altered} (run {mutant.run_id}): {probed.label}"
    if probed.status is CheckStatus.ASSERTION_FAILED:
        reason = f"the check passed, and its mutant ({altered}) failed it"
        return Classification(audit_class=AuditClass.EXACT, reason=reason, evidence=evidence)
    if probed.status is CheckStatus.PASSED:
        reason = f"the check passes whatever it expects: its mutant ({altered}) passed too"
        return Classification(audit_class=AuditClass.VACUOUS_CHECK, reason=reason, evidence=evidence)
    reason = f"the check passed; whether it can fail is untested: its mutant ended {probed.label}"
    return Classification(audit_class=AuditClass.EXACT, reason=reason[:600], evidence=evidence)
