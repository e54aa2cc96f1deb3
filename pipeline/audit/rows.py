"""Typed records of the audit: a converted record, a refusal, and one audit row per label and profile."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, computed_field

from pipeline.records import ExecutionSetting, Frozen, Program, content_id

SUBSETS = ("ml", "cl", "rl", "sc", "tc", "bg", "dr", "fl")


class ReleasedRecord(Frozen):
    """One record of SURGE's released dataset/<subset>.json, as upstream wrote it."""

    subset: str
    index: int = Field(description="position in its file")
    location: str = Field(description="file[index]")
    question: str
    gt: str
    custom_features: dict[str, Any] = Field(default_factory=dict)
    problem: str = Field(default="", description="why the entry is malformed (it is then refused, not run)")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def record_id(self) -> str:
        return content_id("surge-released", self.subset, self.question, self.gt, self.custom_features)

    @property
    def language_name(self) -> str:
        return str(self.custom_features.get("language", ""))


class Conversion(Frozen):
    """A record turned into something runnable."""

    record: ReleasedRecord
    language: str = Field(description="the language as the audit reports it, e.g. 'cpp'")
    program: Program
    setting: ExecutionSetting = ExecutionSetting()


class Refusal(Frozen):
    """A record that cannot be turned into a program, and why (listed and counted, never fatal)."""

    record: ReleasedRecord
    reason: str


class AuditClass(StrEnum):
    """One class per label (issue 6). Ordered from 'label holds' to 'label is suspect'."""

    EXACT = "reproduced_exact"
    NORMALISED = "reproduced_normalised"  # whitespace, quote style, line wrapping
    TOOLCHAIN_DRIFT = "toolchain_drift"  # only compiler/interpreter diagnostics differ
    LOCALE_DRIFT = "locale_drift"
    NON_DETERMINISTIC = "non_deterministic"  # our own repeated runs disagree
    NOT_RUN = "not_run"  # toolchain missing (named in `reason`)
    TIMEOUT = "timeout"
    MISMATCH = "mismatch"


REPRODUCED = (AuditClass.EXACT, AuditClass.NORMALISED)


class AuditRow(Frozen):
    """The verdict on one label under one environment profile."""

    record_id: str
    subset: str
    index: int
    location: str
    language: str
    profile: str
    run_id: str | None = None
    verdict: str | None = Field(default=None, description="the run's Verdict, if it ran")
    audit_class: AuditClass
    metric: str = Field(description="the subset's SURGE metric, e.g. 'jaccard_words'")
    score: float | None = Field(description="the metric of our fresh output against gt, 0..1; None: not run")
    reason: str = Field(default="", description="why (not run: which toolchain; timeout: which limit)")
    evidence: str = Field(default="", description="a short diff of gt against our output")
    cpu_s: float = Field(default=0.0, description="compile + run CPU seconds (user + system)")
    distinct_outputs: int = 1
    recorded_time_s: float | None = Field(
        default=None,
        description="sc/tc: the run time SURGE recorded (custom_features.time), to compare with cpu_s",
    )
    observed: str = Field(default="", description="our label, truncated")
    expected: str = Field(default="", description="the released gt, truncated")
    leaks: tuple[str, ...] = Field(default=(), description="program text that reveals the expected output")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def audit_id(self) -> str:
        return content_id("audit", self.record_id, self.profile, self.run_id, self.audit_class, self.score)
