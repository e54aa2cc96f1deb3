"""What the audit stage takes and returns: its options (`surge audit`'s flags, field for field) and its
typed summary (`--json` prints its dump). The one place the options' limits become the stage's policy is
``AuditOptions.limit_policy``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.audit.figures import AuditFigures
from pipeline.audit.plan import LimitPolicy
from pipeline.bounds import (
    DEFAULT_STORE,
    MAX_BATCH_SIZE,
    MAX_COUNT,
    MAX_LIMIT_S,
    MAX_MEMORY_MIB,
    MAX_OUTPUT_BYTES,
    MAX_REPEATS,
    MAX_TIME_MARGIN,
    MAX_WORKERS,
)
from pipeline.records import Frozen, Limits, PhaseLimits
from pipeline.stage_results import Failure, StageResult
from sandboxes.backends.registry import DEFAULT_BACKEND, OLD_NAMES

RUN_LIMITS = PhaseLimits()


class Batching(Frozen):
    """How the audit's runs are cut into batches and where they run."""

    batch_size: int | None = Field(None, description="requests per batch (None: automatic)")
    workers: int | None = Field(None, description="programs at a time (None: this machine's cores)")
    dask_address: str | None = Field(None, description="run the batches on this Dask scheduler")


class AuditOptions(Frozen):
    """`surge audit`: re-execute a released dataset and classify every label. A field has the flag's name
    with ``_`` for ``-``; a repeatable flag is a list."""

    dataset: Path = Field(description="a SURGE dataset folder (or one <subset>.json)")
    subset: list[str] | None = Field(None, description="only these subsets (None: every one)")
    profile: list[str] | None = Field(None, description="profile names, or `all` (None: ['default'])")
    store: Path = Field(DEFAULT_STORE, description="the Parquet store folder")
    report: Path | None = Field(None, description="the HTML report (None: <store>/audit-report.html)")
    repeats: int = Field(2, ge=1, le=MAX_REPEATS, description="runs of a program that disagrees")
    limit: int | None = Field(None, ge=1, le=MAX_COUNT, description="records per subset at most")
    backend: str = Field(DEFAULT_BACKEND, description="sandbox for profiles on this machine's toolchains")
    batch_size: int | None = Field(None, ge=1, le=MAX_BATCH_SIZE, description="runs per batch (None: auto)")
    workers: int | None = Field(None, ge=1, le=MAX_WORKERS, description="programs at a time (None: cores)")
    dask_address: str | None = Field(None, description="run batches on this Dask scheduler (tcp://HOST:PORT)")
    cpu_s: float = Field(RUN_LIMITS.cpu_s, gt=0, le=MAX_LIMIT_S, description="CPU seconds per run")
    wall_s: float = Field(RUN_LIMITS.wall_s, gt=0, le=MAX_LIMIT_S, description="wall-clock seconds per run")
    memory_mib: int = Field(RUN_LIMITS.memory_mib, ge=1, le=MAX_MEMORY_MIB, description="memory, MiB")
    output_bytes: int = Field(RUN_LIMITS.output_bytes, ge=1, le=MAX_OUTPUT_BYTES, description="kept/stream")
    time_margin: float = Field(2.0, ge=1, le=MAX_TIME_MARGIN, description="recorded time x this")
    time_cap_s: float = Field(300.0, gt=0, le=MAX_LIMIT_S, description="raised limits stop here")
    exhaustive: bool = Field(False, description="every label under every profile (default: adaptive)")
    errata: Path | None = Field(None, description="write errata.jsonl, a corrected dataset and notes here")

    @field_validator("backend")
    @classmethod
    def today_name(cls, name: str) -> str:
        return OLD_NAMES.get(name, name)

    @property
    def subsets(self) -> set[str] | None:
        """The subsets asked for (None: every one)."""
        return set(self.subset) if self.subset else None

    @property
    def profiles(self) -> list[str]:
        return list(self.profile or ["default"])

    @property
    def report_path(self) -> Path:
        return self.report or (self.store / "audit-report.html")

    @property
    def limit_policy(self) -> LimitPolicy:
        """The run's limits, raised for a record with a recorded time by the margin, up to the cap."""
        run = PhaseLimits(
            cpu_s=self.cpu_s, wall_s=self.wall_s, memory_mib=self.memory_mib, output_bytes=self.output_bytes
        )
        return LimitPolicy(base=Limits(run=run), margin=self.time_margin, cap_s=self.time_cap_s)

    @property
    def batching(self) -> Batching:
        return Batching(batch_size=self.batch_size, workers=self.workers, dask_address=self.dask_address)


class Executed(BaseModel):
    """What one call of the engine did: the requests planned, those the store held, the rows written and
    what of ours failed. Read from the engine's counts, whose other keys are not the audit's."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    planned_runs: int
    already_stored: int
    written: int = 0
    sandbox_errors: int = 0
    failed_batches: int = 0
    failures: list[Failure] = Field(default_factory=list)


class RunCounts(Frozen):
    """What the sandbox did for the audit, over its rounds."""

    planned: int = 0
    reused: int = 0
    executed: int = 0
    sandbox_errors: int = 0
    failed_batches: int = 0
    failures: tuple[Failure, ...] = ()

    def plus(self, ran: Executed) -> RunCounts:
        """These counts plus one call of the engine's."""
        return RunCounts(
            planned=self.planned + ran.planned_runs,
            reused=self.reused + ran.already_stored,
            executed=self.executed + ran.written,
            sandbox_errors=self.sandbox_errors + ran.sandbox_errors,
            failed_batches=self.failed_batches + ran.failed_batches,
            failures=(*self.failures, *ran.failures),
        )


class AuditRuns(Frozen):
    """The audit's runs: its plan, what it ran and reused, what it saved, what is left, where it wrote."""

    plan: Literal["adaptive", "exhaustive"]
    first_profiles: dict[str, str] = Field(description="adaptive: subset -> the profile tried first")
    runs_planned: int
    runs_reused: int
    runs_executed: int
    executions_planned: int = Field(description="program executions planned (a run's repeats count)")
    executions_exhaustive: int = Field(description="what every label under every profile would execute")
    executions_saved: int = Field(description="executions_exhaustive - executions_planned")
    seed_pinned_labels: int = Field(
        0,
        description="labels whose repeats disagreed, rerun with their runtime's seed pinned (PYTHONHASHSEED)",
    )
    executions_seed_pinning: int = Field(
        0,
        description="program executions of those reruns (each value, its repeats), in executions_planned",
    )
    not_audited: int = Field(description="labels a sandbox error left without a row: run again")
    sandbox_errors: int
    failed_batches: int
    failures: list[Failure]
    report: str
    audit_table: str


class AuditSummary(StageResult, AuditFigures, AuditRuns):
    """Per subset and in total, each label counted once by its best class over profiles (the figures);
    the runs the plan made and saved; where the report, the table and the errata went. A stage's result
    like every other: its failures of ours decide its exit code."""

    errata: str | None = None

    @classmethod
    def of(cls, figures: AuditFigures, runs: AuditRuns) -> AuditSummary:
        return cls.model_validate({**dict(figures), **dict(runs)})
