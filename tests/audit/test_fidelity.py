"""Issue 15 on small synthetic records, executed for real in the bwrap sandbox: argv with spaces, the
ambiguous reading kept by what reproduces, limits from the recorded time, a Makefile naming a missing
source, a run instruction calling a binary nothing builds, and a PlotNeuralNet record without a run
instruction. The records are hand-made in the release's format (tests/audit/data/synthetic/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.plan import LimitPolicy, alternative_requests, plan_requests
from pipeline.audit.rows import AuditClass, AuditRow, Conversion
from pipeline.audit.verdicts import audit_rows
from pipeline.records import EnvironmentProfile, Limits, PhaseLimits, RunRequest, RunResult
from pipeline.subsets.scripts import PARSER_VARIANT, SHELL_VARIANT
from tests.conftest import require_tool

SYNTHETIC = Path(__file__).parent / "data" / "synthetic"
TIGHT = Limits(compile=PhaseLimits(cpu_s=30, wall_s=60), run=PhaseLimits(cpu_s=0.3, wall_s=5))


def _conversions() -> dict[str, Conversion]:
    records, refusals = load_dataset(SYNTHETIC)
    conversions, unrunnable, refused = convert_all(records)
    assert refusals == [] and refused == [] and unrunnable == []
    return {c.record.location.rsplit("/", 1)[-1]: c for c in conversions}


def _run(requests: list[RunRequest]) -> dict[str, RunResult]:
    from sandboxes import open_backend

    with open_backend("bwrap", workers=2) as backend:
        return {r.answers: r for r in backend.run_batch(requests)}


def _audit(conversions: list[Conversion], policy: LimitPolicy) -> dict[str, AuditRow]:
    """The command's two rounds without the engine: first readings, then the others where needed."""
    from sandboxes.profiles import get_profile

    profiles = [get_profile("default")]
    results = _run(plan_requests(conversions, profiles, policy, 1))
    rows = audit_rows(conversions, profiles, results)
    results |= _run(alternative_requests(conversions, rows, profiles, policy, 1))
    return {r.location.rsplit("/", 1)[-1]: r for r in audit_rows(conversions, profiles, results)}


@pytest.fixture(scope="module")
def rows() -> dict[str, AuditRow]:
    require_tool("bwrap")
    conversions = _conversions()
    scripts = [c for name, c in conversions.items() if not name.startswith("tc")]
    # Generous limits for everything but the tc record, whose limit must come from its recorded time.
    audited = _audit(scripts, LimitPolicy())
    audited |= _audit([conversions["tc.json[0]"]], LimitPolicy(base=TIGHT))
    capped = _audit([conversions["tc.json[0]"]], LimitPolicy(base=TIGHT, cap_s=0.4))
    audited["tc.json[0]:capped"] = capped["tc.json[0]"]
    return audited


def test_a_matrix_with_spaces_stays_one_argument() -> None:
    conversion = _conversions()["sc.json[0]"]
    assert conversion.program.argv == ("--matrix", "87 19 45 ;71 88 25", "--scale", "2")
    assert [a.name for a in conversion.plan.alternatives] == [SHELL_VARIANT]


def test_matrix_reproduces_with_the_parser_reading(rows: dict[str, AuditRow]) -> None:
    row = rows["sc.json[0]"]
    assert (row.audit_class, row.variant) == (AuditClass.EXACT, PARSER_VARIANT), row.evidence


def test_ambiguous_argv_keeps_the_reading_that_reproduces(rows: dict[str, AuditRow]) -> None:
    # nargs is a variable: the parser reading joins `1 2 3 4` into one value, argparse rejects it;
    # the shell reading reproduces, and the row says which one was kept and what the other gave.
    row = rows["sc.json[1]"]
    assert (row.audit_class, row.variant) == (AuditClass.EXACT, SHELL_VARIANT), row.evidence
    assert f"kept '{SHELL_VARIANT}' of 2 readings" in row.reason and PARSER_VARIANT in row.reason


def test_recorded_time_raises_the_limit(rows: dict[str, AuditRow]) -> None:
    row = rows["tc.json[0]"]
    assert row.recorded_time_s == 2.5 and row.run_cpu_limit_s == 6.0  # 2.5 s x 2 + 1 s
    assert row.cpu_s > TIGHT.run.cpu_s  # it needed the raised limit
    assert row.audit_class is AuditClass.EXACT, row.reason


def test_a_label_past_the_cap_says_the_recorded_time(rows: dict[str, AuditRow]) -> None:
    row = rows["tc.json[0]:capped"]
    assert row.audit_class is AuditClass.TIMEOUT and row.run_cpu_limit_s == 0.4
    assert "SURGE recorded 2.5 s" in row.reason


def test_makefile_naming_a_missing_source_cannot_build(rows: dict[str, AuditRow]) -> None:
    row = rows["rl.json[1]"]
    assert row.audit_class is AuditClass.CANNOT_BUILD
    assert "util.cpp" in row.reason and "Makefile" in row.reason


def test_a_binary_nothing_builds_is_built_from_the_sources_present(rows: dict[str, AuditRow]) -> None:
    row = rows["rl.json[2]"]
    assert row.audit_class is AuditClass.RECONSTRUCTED, row.reason
    assert "built ./main.exe with `g++ main.cpp -o main.exe`" in row.reason


def test_a_makefiles_missing_source_is_read_as_the_one_source_present(rows: dict[str, AuditRow]) -> None:
    row = rows["rl.json[3]"]
    assert row.audit_class is AuditClass.RECONSTRUCTED, row.reason
    assert "missing 'main-3.cpp' read as 'main.cpp'" in row.reason


def test_a_repair_that_does_not_reproduce_stays_cannot_build_saying_what_was_tried(
    rows: dict[str, AuditRow],
) -> None:
    row = rows["rl.json[4]"]
    assert row.audit_class is AuditClass.CANNOT_BUILD and "'./run.exe'" in row.reason
    assert "reconstructed: built ./run.exe with `g++ main.cpp -o run.exe`: mismatch" in row.reason


def test_plotneuralnet_gets_an_inferred_run_instruction(rows: dict[str, AuditRow]) -> None:
    conversion = _conversions()["rl.json[0]"]
    assert "to_generate(generate_architecture_1(), path)" in conversion.plan.note
    row = rows["rl.json[0]"]
    assert (row.audit_class, row.variant) == (AuditClass.EXACT, "inferred run instruction"), row.evidence


def test_limit_policy_without_a_recorded_time_keeps_the_base() -> None:
    policy = LimitPolicy(base=TIGHT, margin=3, cap_s=20)
    assert policy.for_time(None) == TIGHT and policy.for_time(0.05) == TIGHT
    assert policy.for_time(143.0).run.cpu_s == 20 and policy.for_time(143.0).run.wall_s == 40
    profile = EnvironmentProfile(name="p")
    assert RunRequest(
        program=_conversions()["tc.json[0]"].program, profile=profile
    ).run_id  # id ignores limits


def test_a_run_instruction_that_builds_gets_the_compile_limits() -> None:
    repository = _conversions()["rl.json[1]"].plan  # `make\n./main`
    limits = LimitPolicy(base=TIGHT).for_plan(repository)
    assert (limits.run.cpu_s, limits.run.wall_s) == (TIGHT.compile.cpu_s, TIGHT.compile.wall_s)
    assert LimitPolicy(base=TIGHT).for_plan(_conversions()["sc.json[0]"].plan) == TIGHT
