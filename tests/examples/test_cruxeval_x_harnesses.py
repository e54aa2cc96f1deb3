"""CRUXEval-X's programs run in their harnesses under bwrap, as `surge audit` runs them: per language with a
toolchain here, a passing check is reproduced (its mutant fails it) and a wrong expected value is a
mismatch; Java, C# and D run with their checks enabled, and the same program run as the core language
(no -ea, no DEBUG, no unittests) passes whatever it expects: vacuous_check. A check written so that it
cannot fail is vacuous_check; a missing library is missing_dependency, naming it."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from pipeline.audit.rows import AuditClass
from pipeline.records import ExecutionSetting, LabelProtocol, Language, Program
from pipeline.subsets import ProgramPlan
from sandboxes.languages import REGISTRY
from sandboxes.profiles import get_profile
from sources.surge_release import ReleasedRecord
from tests.examples.cruxeval_x_files import (
    PAIR,
    PASSES,
    PASSES_EMPTY,
    PASSES_LIST,
    VACUOUS,
    WRONG,
    records,
    run_plans,
    run_records,
)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("cruxeval_x", "require_bwrap")]

# every language whose toolchain may be here (Swift never is: its records are not_run)
RUNNABLE = ["cpp", "cs", "d", "go", "java", "jl", "js", "lua", "php", "pl", "py", "r", "rb", "rkt", "rs",
            "scala", "sh", "ts"]  # fmt: skip


def require_toolchain(stem: str) -> None:
    """Skip unless the language's sandbox is registered and its tools are installed, naming what is not."""
    from surge_cruxeval.x.languages import HARNESSES

    runs_as = Language(HARNESSES[stem].runs_as)
    if runs_as not in REGISTRY:
        pytest.skip(f"no sandbox language {runs_as!r} is registered (its core spec is not on this branch)")
    tools = REGISTRY[runs_as].tools(ExecutionSetting(), get_profile("default"))
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs `{'`, `'.join(missing)}` for {stem}")


@pytest.mark.parametrize("stem", RUNNABLE)
def test_a_passing_check_is_reproduced_with_a_failing_mutant_and_a_wrong_value_is_a_mismatch(
    stem: str,
) -> None:
    require_toolchain(stem)
    rows = run_records(records(stem, [PASSES, WRONG, PASSES_LIST, PASSES_EMPTY]))
    for key in (PASSES, PASSES_LIST):
        row = rows[key]
        assert row.audit_class is AuditClass.EXACT, (key, row.reason, row.evidence)
        assert "its mutant" in row.reason and "failed it" in row.reason, row.reason
        assert row.observed == "passed" and row.score == 1.0
    wrong = rows[WRONG]
    assert wrong.audit_class is AuditClass.MISMATCH, (wrong.reason, wrong.observed)
    assert wrong.observed.startswith("assertion_failed"), wrong.observed
    empty = rows[PASSES_EMPTY]  # an empty expected value: its language's rule, or no mutant and why
    assert empty.audit_class is AuditClass.EXACT, (empty.reason, empty.evidence)


def test_javas_pair_needs_the_javatuples_jar_and_a_missing_jar_is_a_missing_dependency() -> None:
    require_toolchain("java")
    from surge_cruxeval.x.harness import JAVA

    record = records("java", [PAIR])[PAIR]
    rows = run_records({PAIR: record})
    assert rows[PAIR].audit_class is AuditClass.EXACT, rows[PAIR].reason
    # the same harness with a class path that has no javatuples jar
    nojar = dataclasses.replace(JAVA, language=Language("cruxeval-java-nojar"), classpath="/app")
    REGISTRY[nojar.language] = nojar
    try:
        plan = plan_as(record, nojar.language)
        row = run_plans({PAIR: (record, plan)})[PAIR]
    finally:
        dict.pop(REGISTRY, nojar.language, None)
    assert row.audit_class is AuditClass.MISSING_DEPENDENCY, (row.reason, row.observed)
    assert "javatuples" in row.reason and "libjavatuples-java" in row.reason


# A check of each harness that needs checks enabled, `??` for its expected value; no import only the
# harness provides, so that the core language compiles it too
WITHOUT_HARNESS = {
    "java": ("java", 'class Problem {\n    public static void main(String[] args) {\n'
             '    assert(("ab").equals(??));\n    }\n}\n', '("ab")'),
    "cs": ("csharp", 'using System.Diagnostics;\nclass Problem {\n'
           '    public static void Main(string[] args) {\n    Debug.Assert(("ab").Equals(??));\n    }\n}\n',
           '("ab")'),
    "d": ("d", 'unittest\n{\n    assert("ab" == ??);\n}\nvoid main(){}', '"ab"'),
}  # fmt: skip


@pytest.mark.parametrize("stem", sorted(WITHOUT_HARNESS))
def test_the_same_check_run_without_its_harness_passes_whatever_it_expects(stem: str) -> None:
    require_toolchain(stem)
    core, question, expected = WITHOUT_HARNESS[stem]
    if core not in REGISTRY:
        pytest.skip(f"no core sandbox language {core!r} is registered")
    features = {"id": 0, "language": stem, "expected": expected, "expected_at": question.index("??")}
    record = records(stem, [PASSES])[PASSES].model_copy(
        update={"question": question, "custom_features": features}
    )
    harnessed = run_records({0: record})[0]
    assert harnessed.audit_class is AuditClass.EXACT, (harnessed.reason, harnessed.evidence)
    bare = run_plans({0: (record, plan_as(record, Language(core)))})[0]
    assert bare.audit_class is AuditClass.VACUOUS_CHECK, (bare.reason, bare.evidence)
    assert "passed too" in bare.reason


@pytest.mark.parametrize("stem", ["py", "lua"])
def test_a_check_that_holds_whatever_it_expects_is_vacuous(stem: str) -> None:
    require_toolchain(stem)
    row = run_records(records(stem, [VACUOUS]))[VACUOUS]
    assert row.audit_class is AuditClass.VACUOUS_CHECK, (row.reason, row.evidence)
    assert "mutant" in row.evidence and "passed" in row.evidence


def plan_as(record: ReleasedRecord, language: Language) -> ProgramPlan:
    """The record's plan with its program and mutant run as another sandbox language."""
    from surge_cruxeval.x.programs import to_program

    plan = to_program(record)

    def moved(program: Program | None) -> Program | None:
        if program is None:
            return None
        return Program(language=language, files=program.files, protocol=LabelProtocol.SELF_CHECK)

    return plan.model_copy(update={"program": moved(plan.program), "mutant": moved(plan.mutant)})


@pytest.mark.parametrize("stem", ["lua", "rb", "d", "go"])
def test_the_repeats_of_a_failing_check_agree(stem: str) -> None:
    """luaunit and test/unit print how long the run took on stdout, D's runtime a stack trace of addresses
    that ASLR moves, Go a test's duration: repeats of a failing check still agree on everything the
    self-check label is made of (the compiler's output and the run's stderr)."""
    require_toolchain(stem)
    from pipeline.audit.convert import convert
    from pipeline.audit.plan import plan_requests
    from pipeline.audit.rows import Conversion
    from pipeline.audit.verdicts import audit_rows, by_answer
    from pipeline.records import Limits
    from sandboxes import open_backend

    conversion = convert(records(stem, [WRONG])[WRONG])
    assert isinstance(conversion, Conversion)
    profile = get_profile("default")
    with open_backend("bwrap") as backend:
        results = by_answer(backend.run_batch(plan_requests([conversion], [profile], Limits(), 4)))
    (row,) = audit_rows([conversion], [profile], results)
    assert row.audit_class is AuditClass.MISMATCH and row.distinct_outputs == 1, (row.reason, row.observed)
