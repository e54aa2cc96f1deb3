"""Self-checking labels, run for real in the local sandbox: the label is the check's verdict, a passing
check counts as reproduced only when its mutant (the expected value altered) fails, and a check that
cannot fail is ``vacuous_check``. Python's ``-O`` (PYTHONOPTIMIZE) strips ``assert`` as Java does without
``-ea``: the same programs under a profile that sets it must be caught."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pipeline.audit.plan import plan_requests
from pipeline.audit.rows import AuditClass, AuditRow, Conversion
from pipeline.audit.verdicts import audit_rows, by_answer
from pipeline.records import EnvironmentProfile, LabelProtocol, Limits, PhaseLimits, Program
from pipeline.scoring.metrics import fixed
from pipeline.subsets import ConstructionMethod, ProgramPlan, SubsetSpec, register_subset, unregister_subset
from pipeline.subsets.checks import CheckConvention, CheckStatus, check_outcome
from sources.surge_release import ReleasedRecord
from tests.audit.fakes import make_result
from tests.conftest import require_tool

SUBSET = "selfcheck-test"
PYTHON = CheckConvention(
    failed=(r"^AssertionError",), missing=((r"No module named '(surge_absent\w*)'", "surge_absent"),)
)
LIMITS = Limits(run=PhaseLimits(cpu_s=5, wall_s=10))
F = "def f(x):\n    return x * 2\n\n"
CASES = {
    "passes": ("assert f(2) == 4\n", "assert f(2) == 5\n"),
    "cannot_fail": ("assert f(2) == 4 or True\n", "assert f(2) == 5 or True\n"),
    "wrong": ("assert f(2) == 5\n", "assert f(2) == 6\n"),
    "crashes": ("assert f([])[3] == 4\n", "assert f([])[3] == 5\n"),
    "needs": ("import surge_absent_lib\nassert f(2) == 4\n", None),
    "untested": ("assert f(2) == 4\n# no mutant\n", None),
}


@pytest.fixture(scope="module")
def spec() -> Iterator[SubsetSpec]:
    registered = register_subset(
        SubsetSpec(
            name=SUBSET,
            title="self-checks for a test",
            category=977,
            category_key="custom_category",
            construction=ConstructionMethod.INFERENCE_VERIFICATION,
            release_size=len(CASES),
            protocol=LabelProtocol.SELF_CHECK,
            feature_keys=(),
            few_shot_examples=0,
            to_program=lambda record: pytest.fail("built here, not converted"),
            metric=fixed("check_holds", lambda ours, gt: float(ours == gt)),
            score_prediction=lambda gt, features, reply: 0.0,
            upstream_release=False,
        )
    )
    yield registered
    unregister_subset(SUBSET)


def conversion(name: str, index: int) -> Conversion:
    check, altered = CASES[name]
    program = Program.single("python", F + check, protocol=LabelProtocol.SELF_CHECK)
    mutant = Program.single("python", F + altered, protocol=LabelProtocol.SELF_CHECK) if altered else None
    record = ReleasedRecord(
        subset=SUBSET, index=index, location=f"{name}.py", question=F + check, gt="passed"
    )
    mutation = "expected 4 -> 5" if altered else "no literal to alter"
    plan = ProgramPlan(language="python", program=program, check=PYTHON, mutant=mutant, mutation=mutation)
    return Conversion(record=record, plan=plan)


def audited(profile: EnvironmentProfile) -> dict[str, AuditRow]:
    require_tool("bwrap")
    from sandboxes import open_backend

    conversions = [conversion(name, i) for i, name in enumerate(CASES)]
    with open_backend("bwrap", workers=2) as backend:
        results = by_answer(backend.run_batch(plan_requests(conversions, [profile], LIMITS, 1)))
    return {row.location.removesuffix(".py"): row for row in audit_rows(conversions, [profile], results)}


@pytest.fixture(scope="module")
def rows(spec: SubsetSpec) -> dict[str, AuditRow]:
    from sandboxes.profiles import get_profile

    return audited(get_profile("default"))


def test_a_check_whose_mutant_fails_is_reproduced(rows: dict[str, AuditRow]) -> None:
    row = rows["passes"]
    assert (row.audit_class, row.observed, row.score) == (AuditClass.EXACT, "passed", 1.0)
    assert "mutant (expected 4 -> 5) failed it" in row.reason
    assert "check (run " in row.evidence and "assertion_failed: AssertionError" in row.evidence


def test_a_check_that_passes_whatever_it_expects_is_vacuous_not_reproduced(rows: dict[str, AuditRow]) -> None:
    row = rows["cannot_fail"]
    assert row.audit_class is AuditClass.VACUOUS_CHECK and row.observed == "passed"
    assert "mutant (expected 4 -> 5) passed too" in row.reason and row.evidence.count("passed") >= 2


def test_a_failed_check_or_a_crash_contradicts_the_label(rows: dict[str, AuditRow]) -> None:
    assert rows["wrong"].audit_class is AuditClass.MISMATCH and rows["wrong"].score == 0.0
    assert rows["wrong"].observed.startswith("assertion_failed: AssertionError")
    crash = rows["crashes"]
    assert crash.audit_class is AuditClass.MISMATCH and crash.observed.startswith(
        "crashed: exit 1: IndexError"
    )


def test_a_missing_library_is_ours_and_no_mutant_is_said(rows: dict[str, AuditRow]) -> None:
    assert rows["needs"].audit_class is AuditClass.MISSING_DEPENDENCY
    assert rows["needs"].reason == "missing_dependency: surge_absent"
    untested = rows["untested"]
    assert (
        untested.audit_class is AuditClass.EXACT
        and "untested: no mutant (no literal to alter)" in untested.reason
    )


def test_the_same_checks_with_asserts_stripped_are_all_caught(spec: SubsetSpec) -> None:
    """PYTHONOPTIMIZE drops every assert, as a JVM without -ea does: what passed before is vacuous now, and
    what failed before passes vacuously too; none is counted as reproduced."""
    from sandboxes.profiles import get_profile

    stripped = get_profile("default").model_copy(
        update={"name": "asserts-off", "env": {"PYTHONOPTIMIZE": "1"}}
    )
    rows = audited(stripped)
    for name in ("passes", "cannot_fail", "wrong"):
        assert rows[name].audit_class is AuditClass.VACUOUS_CHECK, (name, rows[name])


@pytest.mark.parametrize(
    ("stderr", "exit_code", "convention", "status"),
    [
        (
            "FAILURE\nname: check-equal?\n",
            0,
            CheckConvention(failed=(r"^FAILURE$",)),
            CheckStatus.ASSERTION_FAILED,
        ),
        ("", 1, CheckConvention(failed=(), error_is_failure=True), CheckStatus.ASSERTION_FAILED),
        ("", 1, CheckConvention(failed=()), CheckStatus.CRASHED),
        ("note: FAILURE is a word\n", 0, CheckConvention(failed=(r"^FAILURE$",)), CheckStatus.PASSED),
    ],
)
def test_a_convention_reads_a_failure_the_exit_status_hides(
    stderr: str, exit_code: int, convention: CheckConvention, status: CheckStatus
) -> None:
    """rackunit and mono print a failed check and exit 0; Bash under `set -e` fails with no message."""
    from pipeline.records import PhaseResult, Verdict

    result = make_result("")
    verdict = Verdict.OK if exit_code == 0 else Verdict.RUNTIME_ERROR
    run = PhaseResult(stderr=stderr, exit_code=exit_code, verdict=verdict)
    result = result.model_copy(update={"run": run, "verdict": verdict})
    assert check_outcome(convention, result).status is status


def test_a_check_that_passes_only_sometimes_is_non_deterministic_naming_what_varied(spec: SubsetSpec) -> None:
    require_tool("bwrap")
    from sandboxes import open_backend
    from sandboxes.profiles import get_profile

    # 16 repeats of a fair coin: all alike once in 32,768
    flaky = Program.single(
        "python", "import os\nassert os.urandom(1)[0] % 2 == 0\n", protocol=LabelProtocol.SELF_CHECK
    )
    record = ReleasedRecord(subset=SUBSET, index=9, location="flaky.py", question="", gt="passed")
    coin = Conversion(record=record, plan=ProgramPlan(language="python", program=flaky, check=PYTHON))
    profile = get_profile("default")
    with open_backend("bwrap", workers=2) as backend:
        results = by_answer(backend.run_batch(plan_requests([coin], [profile], LIMITS, 16)))
    (row,) = audit_rows([coin], [profile], results)
    assert row.audit_class is AuditClass.NON_DETERMINISTIC and row.distinct_outputs == 2
    assert "2 verdicts in 16 runs" in row.reason and "exit_code" in row.reason
    assert "passed" in row.reason and "assertion_failed: AssertionError" in row.reason


def test_repeats_that_differ_only_beside_the_checks_verdict_agree_on_the_label(spec: SubsetSpec) -> None:
    """Swift prints a crash report with ASLR addresses after a failed assertion: the raw streams of two
    repeats differ, the check's verdict does not. The label is the verdict, so it is a mismatch (or, for a
    passing check, reproduced), never non-deterministic; the reason says what varied beside it."""
    require_tool("bwrap")
    from sandboxes import open_backend
    from sandboxes.profiles import get_profile

    noisy = "import os, sys\nprint('report', os.urandom(8).hex(), file=sys.stderr)\n"
    failing = Program.single("python", noisy + "assert 1 == 2\n", protocol=LabelProtocol.SELF_CHECK)
    passing = Program.single("python", noisy + "assert 1 == 1\n", protocol=LabelProtocol.SELF_CHECK)
    conversions = [
        Conversion(
            record=ReleasedRecord(subset=SUBSET, index=i, location=f"noisy{i}.py", question="", gt="passed"),
            plan=ProgramPlan(language="python", program=program, check=PYTHON),
        )
        for i, program in enumerate([failing, passing])
    ]
    profile = get_profile("default")
    with open_backend("bwrap", workers=2) as backend:
        results = by_answer(backend.run_batch(plan_requests(conversions, [profile], LIMITS, 3)))
    assert all(result.distinct_outputs == 3 and result.varied == ("stderr",) for result in results.values())
    failed, passed = audit_rows(conversions, [profile], results)
    assert failed.audit_class is AuditClass.MISMATCH and failed.distinct_outputs == 1
    assert failed.observed.startswith("assertion_failed") and "stderr varied" in failed.reason
    assert passed.audit_class is AuditClass.EXACT and passed.distinct_outputs == 1
