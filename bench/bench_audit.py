"""Audit bench: how fast released records are converted, and labels scored + classified (no sandbox);
and the adaptive plan against the exhaustive matrix, for real, on the bundled samples.

The baseline of the first is the cheapest possible audit of the same labels, a plain `ours == gt` string
compare, measured in the same run; the ratio says what the metrics, classes, diffs and leak scan cost on
top. The second runs `surge audit SAMPLES --profile all` (the profiles whose backend runs here) twice,
each into a fresh store, adaptive then `--exhaustive`: program executions and wall time, and their ratios.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from datetime import UTC, datetime

from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.verdicts import audit_row
from pipeline.records import EnvironmentProfile, PhaseResult, Provenance, RunRequest, RunResult, Verdict
from sources import SAMPLES  # noqa: E402  (bundled: the repository needs nothing beside it)

ROUNDS = 40
PROFILE = EnvironmentProfile(name="bench")


def result_for(request: RunRequest, label: str) -> RunResult:
    return RunResult(
        run_id=request.run_id, program_id=request.program.program_id, setting_id=request.setting.setting_id,
        profile_id=PROFILE.profile_id, language=request.program.language, setting=request.setting,
        run=PhaseResult(stdout=label, verdict=Verdict.OK), verdict=Verdict.OK,
        provenance=Provenance(
            backend="bench", profile=PROFILE.name, limits=request.limits, host="bench",
            started_at=datetime.now(UTC), pipeline_version="0",
        ),
    )  # fmt: skip


def audit_plan(exhaustive: bool) -> tuple[dict[str, object], float]:
    """One real audit of the bundled samples under every runnable profile: (its --json summary, wall s)."""
    from pipeline import cli

    with tempfile.TemporaryDirectory() as store:
        argv = ["audit", str(SAMPLES / "surge-released"), "--profile", "all", "--store", store, "--json"]
        out = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = cli.main(argv + (["--exhaustive"] if exhaustive else []))
        wall_s = time.perf_counter() - started
    assert code == 0, out.getvalue()[-2000:]
    summary: dict[str, object] = json.loads(out.getvalue())
    return summary, wall_s


def plans() -> dict[str, float]:
    adaptive, adaptive_s = audit_plan(exhaustive=False)
    matrix, matrix_s = audit_plan(exhaustive=True)
    for key in ("labels", "reproduced", "unexplained"):
        print(f"{key}: adaptive {adaptive[key]}, exhaustive {matrix[key]}")
    runs = float(adaptive["executions_planned"])  # type: ignore[arg-type]
    matrix_runs = float(matrix["executions_planned"])  # type: ignore[arg-type]
    return {
        "audit_adaptive_executions": runs,
        "audit_exhaustive_executions": matrix_runs,
        "audit_adaptive_wall_s": adaptive_s,
        "audit_exhaustive_wall_s": matrix_s,
        "audit_adaptive_vs_exhaustive_executions": runs / matrix_runs,
        "audit_adaptive_vs_exhaustive_wall": adaptive_s / matrix_s,
        "audit_profiles": float(len(adaptive["profiles"])),  # type: ignore[arg-type]
    }


def run() -> dict[str, float]:
    return {**scoring(), **plans()}


def scoring() -> dict[str, float]:
    records, _ = load_dataset(SAMPLES / "surge-released")
    started = time.perf_counter()
    for _ in range(ROUNDS):
        conversions, _, _ = convert_all(records)
    convert_s = time.perf_counter() - started

    # Our "output": the label re-wrapped (so normalisation and a diff are exercised on every label).
    results = [
        result_for(
            RunRequest(program=c.program, setting=c.setting, profile=PROFILE), c.record.gt.replace(" ", "\n")
        )
        for c in conversions
    ]
    started = time.perf_counter()
    for _ in range(ROUNDS):
        rows = [audit_row(c, PROFILE, r) for c, r in zip(conversions, results, strict=True)]
    audit_s = time.perf_counter() - started

    started = time.perf_counter()
    for _ in range(ROUNDS):
        same = [r.label == c.record.gt for c, r in zip(conversions, results, strict=True)]
    baseline_s = max(time.perf_counter() - started, 1e-9)
    assert len(rows) == len(same)
    labels = ROUNDS * len(conversions)
    return {
        "audit_convert_records_per_s": labels / convert_s,
        "audit_rows_per_s": labels / audit_s,
        "audit_row_cost_vs_plain_compare": audit_s / baseline_s,
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<40} {value:12.2f}")
