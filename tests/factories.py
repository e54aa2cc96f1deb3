"""Small builders of valid records for tests (real records, real validation)."""

from __future__ import annotations

from datetime import UTC, datetime

from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Language,
    Limits,
    PhaseResult,
    Program,
    Provenance,
    RunResult,
    Verdict,
    run_id_for,
)

PROFILE = EnvironmentProfile(name="test")


def make_result(source: str = "print(1)", stdout: str = "1\n", verdict: Verdict = Verdict.OK) -> RunResult:
    program = Program.single(Language.PYTHON, source)
    setting = ExecutionSetting()
    run = PhaseResult(
        command=("python3", "main.py"),
        stdout=stdout,
        exit_code=0,
        cpu_user_s=0.01,
        wall_s=0.02,
        max_rss_kib=9000,
        verdict=verdict,
    )
    return RunResult(
        run_id=run_id_for(program, setting, PROFILE),
        program_id=program.program_id,
        setting_id=setting.setting_id,
        profile_id=PROFILE.profile_id,
        language=program.language,
        setting=setting,
        run=run,
        verdict=verdict,
        origin={"name": source[:20]},
        provenance=Provenance(
            backend="test",
            profile=PROFILE.name,
            toolchain_versions={"python3": "3.11"},
            limits=Limits(),
            host="testhost",
            started_at=datetime(2026, 11, 21, tzinfo=UTC),
            pipeline_version="0",
        ),
    )
