"""Named causes: each detector on the evidence that shows it, and the order classify asks them."""

from __future__ import annotations

import pytest

from pipeline.audit.causes import code_nondeterminism, conflicting_labels
from pipeline.audit.classify import Evidence, classify
from pipeline.audit.rows import AuditClass, Conversion
from pipeline.audit.verdicts import audit_rows, by_answer
from pipeline.records import EnvironmentProfile, Language, PhaseResult, Program, RunRequest, Verdict
from pipeline.subsets import ProgramPlan
from sources.surge_release import ReleasedRecord
from tests.audit.fakes import make_result, result_for


@pytest.mark.parametrize(
    ("language", "source", "found"),
    [
        ("python", "import random\nprint(random.randint(1, 6))", "unseeded random"),
        ("python", "import numpy as np\nprint(np.random.rand(3))", "unseeded np.random"),
        ("python", "import time\nprint(time.time())", "a clock"),
        ("python", "x = object()\nprint(id(x))", "an object address"),
        ("cpp", '#include <cstdio>\nint main(){int a; printf("%p", &a);}', "a printed pointer address"),
        (
            "cpp",
            "#include <cstdlib>\nint main(){srand(time(0)); return rand();}",
            "rand() seeded with the clock",
        ),
        ("java", "class A{void f(){double d = Math.random();}}", "Math.random"),
    ],
)
def test_code_that_can_vary_is_named_and_quoted(language: str, source: str, found: str) -> None:
    suspicions = code_nondeterminism(Program.single(language, source))
    assert any(found in s for s in suspicions), suspicions


@pytest.mark.parametrize(
    ("language", "source"),
    [
        ("python", "import random\nrandom.seed(7)\nprint(random.randint(1, 6))"),
        ("python", "import numpy as np\nnp.random.seed(0)\nprint(np.random.rand(3))"),
        ("cpp", "#include <cstdlib>\nint main(){srand(42); return rand();}"),
        ("python", "print(sum(range(10)))"),
    ],
)
def test_seeded_or_plain_code_is_not_suspected(language: str, source: str) -> None:
    assert code_nondeterminism(Program.single(language, source)) == []


def test_a_disagreement_is_explained_in_order() -> None:
    ours = make_result("5\n")
    assert classify(ours, "4").audit_class is AuditClass.MISMATCH
    assert classify(ours, "   ").audit_class is AuditClass.EMPTY_LABEL
    suspected = classify(ours, "4", Evidence(suspicions=("unseeded random: `random.randint(`",)))
    assert suspected.audit_class is AuditClass.NON_DETERMINISTIC_CODE
    assert "random.randint(" in suspected.reason
    conflict = classify(ours, "4", Evidence(conflict="x", suspicions=("y",)))
    assert conflict.audit_class is AuditClass.CONFLICTING_DUPLICATE  # a sure cause before a suspicion
    # repeats agree and the labels agree: the suspicion does not demote a reproduced label
    assert classify(make_result("4\n"), "4", Evidence(suspicions=("y",))).audit_class is AuditClass.EXACT


def test_a_missing_module_is_our_environment() -> None:
    result = make_result("", Verdict.RUNTIME_ERROR)
    run = PhaseResult(stderr="ModuleNotFoundError: No module named 'scipy'\n", verdict=Verdict.RUNTIME_ERROR)
    result = result.model_copy(update={"run": run})
    verdict = classify(result, "[1.0, 2.0]")
    assert verdict.audit_class is AuditClass.MISSING_DEPENDENCY and "scipy" in verdict.reason


def test_build_failures_only_blame_repositories() -> None:
    run = PhaseResult(stderr="/bin/sh: 1: ./main: not found\n", exit_code=127, verdict=Verdict.RUNTIME_ERROR)
    result = make_result("", Verdict.RUNTIME_ERROR).model_copy(update={"run": run})
    assert classify(result, "42").audit_class is AuditClass.MISMATCH  # a single-file program: a real miss
    broken = classify(result, "42", Evidence(repository=True))
    assert broken.audit_class is AuditClass.CANNOT_BUILD and "./main" in broken.reason


def test_resource_limits_are_ours() -> None:
    verdict = classify(make_result("partial", Verdict.MEMORY_LIMIT), "full")
    assert verdict.audit_class is AuditClass.RESOURCE_LIMIT


def _conversion(index: int, gt: str) -> Conversion:
    record = ReleasedRecord(
        subset="ml", index=index, location=f"ml.json[{index}]", question="print(4)", gt=gt,
        language=Language.PYTHON, custom_features={"language": "Python"},
    )  # fmt: skip
    return Conversion(
        record=record, plan=ProgramPlan(language="python", program=Program.single("python", "print(4)"))
    )


def test_the_same_program_with_two_labels_is_a_conflicting_duplicate() -> None:
    profile = EnvironmentProfile(name="p")
    right, wrong, again = _conversion(0, "4"), _conversion(1, "5"), _conversion(2, "4")
    request = RunRequest(program=right.program, profile=profile)
    rows = audit_rows([right, wrong, again], [profile], by_answer([result_for(request, "4\n")]))
    classes = {r.location: r.audit_class for r in rows}
    assert classes == {
        "ml.json[0]": AuditClass.EXACT,
        "ml.json[1]": AuditClass.CONFLICTING_DUPLICATE,
        "ml.json[2]": AuditClass.EXACT,
    }
    assert "ml.json[0], ml.json[2]" in next(r.reason for r in rows if r.location == "ml.json[1]")
    assert conflicting_labels([("a", "x[0]", "k", "1"), ("b", "x[1]", "k", " 1\n")]) == {}


def test_fl_json_with_other_spacing_or_key_order_is_the_same_label() -> None:
    gt = '{"errors": [], "pass": true, "complete": true}'
    assert classify(make_result('{"complete":true,"errors":[],"pass":true}'), gt).audit_class is (
        AuditClass.NORMALISED
    )
    assert classify(make_result('{"errors": [], "pass": false, "complete": false}'), gt).audit_class is (
        AuditClass.MISMATCH
    )


def test_a_wall_clock_timeout_names_the_wall_limit_and_the_cpu_used() -> None:
    verdict = classify(make_result("", Verdict.WALL_TIME_LIMIT), "42", Evidence(recorded_time_s=1.5))
    assert verdict.audit_class is AuditClass.TIMEOUT
    assert "s wall" in verdict.reason and "CPU used" in verdict.reason and "recorded 1.5 s" in verdict.reason
