"""The audit as a library function: typed options in, the typed summary out, the same data `surge audit
--json` prints; the options' limits become the stage's policy in one place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sandboxes
from flows import engine as flows_engine
from flows.engine import Engine
from pipeline import bounds, cli
from pipeline.audit.plan import LimitPolicy
from pipeline.records import Limits, PhaseLimits
from pipeline.stages.audit import AuditOptions, AuditSummary, audit
from tests.audit.fakes import FakeBackend
from tests.audit.test_audit_command import _answer


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeBackend:
    backend = FakeBackend(_answer)
    monkeypatch.setattr(sandboxes, "open_backend", lambda *a, **k: backend)
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    return backend


def test_the_stage_returns_what_the_command_prints_as_json(
    fake: FakeBackend, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released = samples / "surge-released"
    asked = {"subset": ["cl", "sc"], "limit": 2, "profile": ["default", "surge-repro"]}
    library = tmp_path / "library"
    summary = audit(AuditOptions(dataset=released, store=library, **asked))
    assert isinstance(summary, AuditSummary)
    assert summary.by_subset["cl"].reproduced == 2 and summary.by_language["sc/python"].unexplained == 2
    assert summary.report == str(library / "audit-report.html") and Path(summary.report).is_file()

    command = tmp_path / "command"
    argv = ["audit", str(released), "--subset", "cl", "--subset", "sc", "--limit", "2"]
    argv += ["--profile", "default", "--profile", "surge-repro", "--store", str(command), "--json"]
    assert cli.main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(summary.model_dump_json().replace(str(library), str(command))) == printed


def test_every_round_of_the_stage_runs_in_one_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Called from a library, outside any engine: the stage opens one for all its jobs, not one a wave
    (each would start Prefect's API again)."""
    current: list[Engine | None] = []

    def rounds(options: AuditOptions, execute: object) -> str:
        current.append(flows_engine._current.get())
        return "audited"

    monkeypatch.setattr("pipeline.stages.audit.run_audit", rounds)
    outside = flows_engine._current.set(None)  # the test session's own engine set aside
    try:
        assert audit(AuditOptions(dataset=Path("d"))) == "audited"
    finally:
        flows_engine._current.reset(outside)
    assert len(current) == 1 and isinstance(current[0], Engine)


def test_the_limit_flags_become_the_stages_policy() -> None:
    options = AuditOptions(
        dataset=Path("d"), cpu_s=3, wall_s=6, memory_mib=512, output_bytes=4096, time_margin=3, time_cap_s=20
    )
    run = PhaseLimits(cpu_s=3, wall_s=6, memory_mib=512, output_bytes=4096)
    assert options.limit_policy == LimitPolicy(base=Limits(run=run), margin=3, cap_s=20)
    # a recorded time of 5 s raises the CPU limit to 5 x 3 + 1 s, the wall limit to twice that
    assert options.limit_policy.for_time(5.0).run.model_dump(include={"cpu_s", "wall_s"}) == {
        "cpu_s": 16.0,
        "wall_s": 32.0,
    }


@pytest.mark.parametrize(
    ("field", "bound"),
    [
        ("cpu_s", bounds.MAX_LIMIT_S),
        ("time_cap_s", bounds.MAX_LIMIT_S),
        ("memory_mib", bounds.MAX_MEMORY_MIB),
        ("output_bytes", bounds.MAX_OUTPUT_BYTES),
        ("repeats", bounds.MAX_REPEATS),
        ("workers", bounds.MAX_WORKERS),
        ("batch_size", bounds.MAX_BATCH_SIZE),
        ("limit", bounds.MAX_COUNT),
        ("time_margin", bounds.MAX_TIME_MARGIN),
    ],
)
def test_the_library_takes_what_the_flags_take_and_no_more(field: str, bound: float) -> None:
    """The flags' ranges are pipeline/bounds.py's (pipeline/commands/common.py); so are the options'."""
    from pydantic import ValidationError

    assert getattr(AuditOptions(dataset=Path("d"), **{field: bound}), field) == bound
    with pytest.raises(ValidationError, match=field):
        AuditOptions(dataset=Path("d"), **{field: bound * 2})


def test_an_option_out_of_range_is_refused_before_any_work() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="cpu_s"):
        AuditOptions(dataset=Path("d"), cpu_s=bounds.MAX_LIMIT_S * 2)
    with pytest.raises(ValidationError, match="repeat"):
        AuditOptions(dataset=Path("d"), repeat=3)  # type: ignore[call-arg]


def test_the_python_api_returns_the_stages_summary(fake: FakeBackend, samples: Path, tmp_path: Path) -> None:
    from pipeline import api

    summary = api.audit(dataset=samples / "surge-released" / "cl.json", store=tmp_path, limit=2)
    assert isinstance(summary, AuditSummary) and not summary.failures
    assert (summary.labels, summary.reproduced) == (2, 2)
    # the data, not its drawing: the text is the CLI's (pipeline/commands/audit.py)
    assert not hasattr(summary, "text")
