"""What the audit stage takes and returns: its options (the limits resolved into a policy) and its typed
summary (`--json` prints its dump). The command's and the Python API's options are
`pipeline.commands.options.AuditOptions`; the command turns them into these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.audit.plan import LimitPolicy
from pipeline.records import Frozen
from sandboxes.backends.registry import DEFAULT_BACKEND


class AuditOptions(Frozen):
    """What `surge audit` (or a caller of `run_audit`) asks for."""

    dataset: Path = Field(description="a released dataset/<subset>.json or the dataset/ folder")
    subsets: tuple[str, ...] = Field(default=(), description="only these subsets (empty: every one)")
    profiles: tuple[str, ...] = Field(default=("default",), description="profile names, or `all`")
    store: Path = Path(".surge/store")
    report: Path | None = Field(default=None, description="HTML report (None: STORE/audit-report.html)")
    repeats: int = Field(default=2, ge=1, le=100, description="runs of a disagreeing label")
    limit: int | None = Field(default=None, ge=1, description="at most N records per subset")
    backend: str = Field(default=DEFAULT_BACKEND, description="the backend of host-toolchain profiles")
    limits: LimitPolicy = LimitPolicy()
    exhaustive: bool = Field(default=False, description="every label under every profile, all repeated")
    errata: Path | None = Field(default=None, description="write errata.jsonl, a corrected dataset, notes")
    wave_runs: int | None = Field(
        default=None, ge=1, description="runs between two writes of finished rows (None: automatic)"
    )

    @property
    def report_path(self) -> Path:
        return self.report or (self.store / "audit-report.html")


class RunCounts(Frozen):
    """What the sandbox did for the audit, over its rounds."""

    planned: int = 0
    reused: int = 0
    executed: int = 0
    sandbox_errors: int = 0
    failed_batches: int = 0
    failures: tuple[dict[str, str], ...] = ()

    def plus(self, ran: dict[str, Any]) -> RunCounts:
        """These counts plus one call of the executor's (``execute_requests``'s dict)."""
        return RunCounts(
            planned=self.planned + int(ran["planned_runs"]),
            reused=self.reused + int(ran["already_stored"]),
            executed=self.executed + int(ran.get("written", 0)),
            sandbox_errors=self.sandbox_errors + int(ran.get("sandbox_errors", 0)),
            failed_batches=self.failed_batches + int(ran.get("failed_batches", 0)),
            failures=(*self.failures, *ran.get("failures", ())),
        )


class AuditSummary(Frozen):
    """Per subset and in total, each label counted once by its best class over profiles; the runs the
    plan made and saved; where the report, the table and the errata went."""

    labels: int
    reproduced: int
    explained: dict[str, int]
    unexplained: int
    refused: int
    not_run: int
    rows: int
    refusals: list[dict[str, str]]
    classes: dict[str, int]
    by_subset: dict[str, dict[str, Any]]
    by_language: dict[str, dict[str, Any]]
    leaks: list[str]
    profiles: list[str]
    skipped_profiles: dict[str, str]
    best_profile: dict[str, Any] | None
    reproduced_by: dict[str, list[str]]
    reproduced_per_profile: dict[str, int]
    plan: str = Field(description="adaptive (default) or exhaustive")
    first_profiles: dict[str, str] = Field(description="adaptive: subset -> the profile tried first")
    runs_planned: int
    runs_reused: int
    runs_executed: int
    executions_planned: int = Field(description="program executions planned (a run's repeats count)")
    executions_exhaustive: int = Field(description="what every label under every profile would execute")
    executions_saved: int = Field(description="executions_exhaustive - executions_planned")
    not_audited: int
    sandbox_errors: int
    failed_batches: int
    failures: list[dict[str, str]]
    report: str
    audit_table: str
    errata: str | None = None
