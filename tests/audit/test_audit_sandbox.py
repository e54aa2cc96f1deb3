"""The audit on the released samples, executed for real in the bwrap sandbox (a few records per subset).

Prefect is left out here (the flow is covered with a fake backend in test_audit_command.py): this test
is about conversion + sandbox + scoring giving the classes the notes predict for these records.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.plan import plan_requests
from pipeline.audit.rows import AuditClass, AuditRow, Conversion
from pipeline.audit.verdicts import audit_rows, by_answer
from pipeline.records import Limits, PhaseLimits
from tests.conftest import require_tool

HERE = Path(__file__).parent
PICKED = {
    "cl.json": [0],
    "ml.json": [0, 1, 2],
    "bg.json": [0],
    "dr.json": [2],
    "sc.json": [0],
    "tc.json": [0],
    "fl.json": [0],
}
FAST_LIMITS = Limits(compile=PhaseLimits(cpu_s=30, wall_s=60), run=PhaseLimits(cpu_s=5, wall_s=10))


def _picked(released: Path) -> list[Conversion]:
    records = []
    for name, indices in PICKED.items():
        subset_records, _ = load_dataset(released / name)
        records += [subset_records[i] for i in indices]
    records += load_dataset(HERE / "data" / "ml.json")[0]  # Java, Rust, C#, Julia, unseeded Python
    conversions, unrunnable, refusals = convert_all(records)
    assert refusals == [] and unrunnable == []
    return conversions


@pytest.fixture(scope="module")
def rows(samples: Path) -> dict[str, AuditRow]:
    require_tool("bwrap")
    from sandboxes import open_backend
    from sandboxes.profiles import get_profile

    conversions = _picked(samples / "surge-released")
    profiles = [get_profile("default")]
    # Repeats cost a run each: only the unseeded program, whose non-determinism is asserted, runs twice.
    unseeded = [c for c in conversions if "urandom" in c.record.question]
    steady = [c for c in conversions if c not in unseeded]
    requests = plan_requests(steady, profiles, FAST_LIMITS, 1) + plan_requests(
        unseeded, profiles, FAST_LIMITS, 2
    )
    with open_backend("bwrap", workers=2) as backend:
        results = by_answer(backend.run_batch(requests))
    audited = audit_rows(conversions, profiles, results)
    return {f"{r.location.rsplit('/', 1)[-1]}:{r.language}": r for r in audited}


def _tool_present(row: AuditRow) -> None:
    if row.audit_class is AuditClass.NOT_RUN:
        pytest.skip(f"toolchain missing here: {row.reason}")


def test_cl_item_reproduced_exactly_and_leaks(rows: dict[str, AuditRow]) -> None:
    row = rows["cl.json[0]:python"]
    assert (row.audit_class, row.score, row.metric) == (AuditClass.EXACT, 1.0, "exact_match")
    assert row.leaks == ("comment line 19: # Output: 4",)


@pytest.mark.parametrize(
    "key",
    [
        "ml.json[0]:c",
        "ml.json[1]:cpp",
        "ml.json[2]:python",
        "ml.json[0]:java",
        "ml.json[1]:rust",
        "ml.json[2]:csharp",
    ],
)
def test_ml_languages_reproduce(rows: dict[str, AuditRow], key: str) -> None:
    row = rows[key]
    _tool_present(row)
    assert (row.audit_class, row.score) == (AuditClass.EXACT, 1.0), row.evidence


def test_julia_is_not_run_and_names_julia(rows: dict[str, AuditRow]) -> None:
    row = rows["ml.json[3]:julia"]
    if row.audit_class is not AuditClass.NOT_RUN:
        pytest.skip("julia is installed here")
    assert "julia" in row.reason and row.score is None


def test_unseeded_random_output_is_non_deterministic(rows: dict[str, AuditRow]) -> None:
    row = rows["ml.json[4]:python"]
    assert row.audit_class is AuditClass.NON_DETERMINISTIC and row.distinct_outputs == 2
    assert "from the code: os.urandom/uuid: `os.urandom(`" in row.reason, row.reason


def test_bg_java_compile_error_reproduced(rows: dict[str, AuditRow]) -> None:
    row = rows["bg.json[0]:java"]
    _tool_present(row)
    assert (row.audit_class, row.score) == (AuditClass.EXACT, 1.0), row.evidence
    assert row.observed.startswith("Compilation Error: /app/Main.java:7: error: ';' expected")


def test_dr_out_of_bounds_read_prints_zero(rows: dict[str, AuditRow]) -> None:
    row = rows["dr.json[2]:cpp"]
    _tool_present(row)
    assert (row.audit_class, row.score, row.metric) == (AuditClass.EXACT, 1.0, "jaccard_words")


def test_sc_numpy_wrapping_is_a_normalisation(rows: dict[str, AuditRow]) -> None:
    row = rows["sc.json[0]:python"]
    _tool_present(row)
    if row.audit_class is AuditClass.MISMATCH and "numpy" in row.observed:
        pytest.skip("numpy is not importable in the sandbox's python3")
    assert (row.audit_class, row.reason) == (AuditClass.NORMALISED, "line wrapping")
    assert (row.metric, row.score) == ("relative_absolute_error", 1.0)
    assert row.recorded_time_s == pytest.approx(0.2254748)


def test_tc_tsp_reproduced(rows: dict[str, AuditRow]) -> None:
    row = rows["tc.json[0]:python"]
    assert (row.audit_class, row.metric, row.score, row.recorded_time_s) == (
        AuditClass.EXACT,
        "exact_match",
        1.0,
        0.0,
    )


def test_lean_is_not_run(rows: dict[str, AuditRow]) -> None:
    row = rows["fl.json[0]:lean4"]
    if row.audit_class is not AuditClass.NOT_RUN:
        pytest.skip("lean is installed here")
    assert "lean" in row.reason and row.metric == "fl_score"
