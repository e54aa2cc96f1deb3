"""Audit bench: how fast released records are converted, and labels scored + classified (no sandbox);
and the adaptive plan against the exhaustive matrix, for real, on the bundled samples.

The first part gives rates only. It used to divide the audit's time per label by a plain `ours == gt`
string compare of the same labels: no baseline can do an audit row's work (metrics, classes, diffs, the
leak scan) short of being the audit, and that ratio (~4,000) measured a ~0.1 µs compare's noise as much
as the audit, so it is gone; the per-label cost in µs says the same thing in a unit that stays put.

The second runs `surge audit SAMPLES --profile all` (the profiles whose backend runs here) twice, each
into a fresh store with a cold compile cache of its own (else the second plan reuses the first one's
compiles), adaptive then `--exhaustive`, against one Prefect API started before either (each command
would start its own: the same fixed cost in both): the same labels answered both ways, their program
executions and wall time, and the ratios.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import TINY, size  # noqa: E402

from pipeline.audit.convert import convert_all, load_dataset  # noqa: E402
from pipeline.audit.verdicts import audit_row  # noqa: E402
from pipeline.records import (  # noqa: E402
    EnvironmentProfile,
    PhaseResult,
    Provenance,
    RunRequest,
    RunResult,
    Verdict,
)
from sources import SAMPLES  # noqa: E402  (bundled: the repository needs nothing beside it)

ROUNDS = size(40, 2)
PROFILE = EnvironmentProfile(name="bench")
RELEASED = SAMPLES / "surge-released"
TINY_SUBSETS = ("ml", "sc")  # a tiny audit: the first record of each, a C-family and a script label
FIGURES = (
    "audit_convert_records_per_s",
    "audit_rows_per_s",
    "audit_row_us_per_label",
    "audit_adaptive_executions",
    "audit_exhaustive_executions",
    "audit_adaptive_wall_s",
    "audit_exhaustive_wall_s",
    "audit_adaptive_vs_exhaustive_executions",
    "audit_adaptive_vs_exhaustive_wall",
    "audit_profiles",
)


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


def released(folder: Path) -> Path:
    """The bundled release, or (tiny) the first record of TINY_SUBSETS' files in ``folder``."""
    if not TINY:
        return RELEASED
    folder.mkdir()
    for subset in TINY_SUBSETS:
        records = json.loads((RELEASED / f"{subset}.json").read_text())
        (folder / f"{subset}.json").write_text(json.dumps(records[:1]))
    shutil.copy(RELEASED / "README.txt", folder / "README.txt")
    return folder


def audit_plan(samples: Path, scratch: Path, exhaustive: bool) -> tuple[dict[str, object], float]:
    """One real audit of the samples under every runnable profile: (its --json summary, wall s)."""
    from pipeline import cli

    name = "exhaustive" if exhaustive else "adaptive"
    argv = ["audit", str(samples), "--profile", "all", "--store", str(scratch / f"{name}-store"), "--json"]
    out = io.StringIO()
    os.environ["SURGE_COMPILE_CACHE"] = str(scratch / f"{name}-compile-cache")
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli.main(argv + (["--exhaustive"] if exhaustive else []))
    wall_s = time.perf_counter() - started
    assert code == 0, out.getvalue()[-2000:]
    summary: dict[str, object] = json.loads(out.getvalue())
    return summary, wall_s


def plans() -> dict[str, float]:
    from flows.engine import Engine

    with tempfile.TemporaryDirectory() as folder, Engine() as engine:
        scratch = Path(folder)
        samples = released(scratch / "samples")
        with engine.connected():  # one Prefect API for both audits, up before either clock starts
            pass
        adaptive, adaptive_s = audit_plan(samples, scratch, exhaustive=False)
        matrix, matrix_s = audit_plan(samples, scratch, exhaustive=True)
    for key in ("labels", "reproduced", "unexplained"):
        print(f"{key}: adaptive {adaptive[key]}, exhaustive {matrix[key]}")
    assert adaptive["labels"] == matrix["labels"], "both plans must answer the same labels"
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
    records, _ = load_dataset(RELEASED)
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
    assert len(rows) == len(conversions)
    labels = ROUNDS * len(conversions)
    return {
        "audit_convert_records_per_s": labels / convert_s,
        "audit_rows_per_s": labels / audit_s,
        "audit_row_us_per_label": audit_s / labels * 1e6,
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<40} {value:12.2f}")
