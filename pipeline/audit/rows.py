"""Typed records of the audit: a converted record, a refusal, and one audit row per label and profile."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, computed_field

from pipeline.records import ExecutionSetting, Frozen, Program, content_id
from pipeline.subsets import REGISTRY, ProgramPlan
from sources.surge_release import ReleasedRecord

SUBSETS = tuple(REGISTRY)


class Conversion(Frozen):
    """A record turned into something runnable; `candidate` picks one of the plan's readings."""

    record: ReleasedRecord
    plan: ProgramPlan
    candidate: int = Field(default=0, description="0: the plan's first reading; n: its n-th alternative")

    @property
    def language(self) -> str:
        return self.plan.language

    @property
    def program(self) -> Program:
        return self.plan.candidates()[self.candidate].program

    @property
    def variant(self) -> str:
        return self.plan.candidates()[self.candidate].name

    @property
    def repair(self) -> str:
        """What this reading repaired of a release that cannot build ('' when it runs as released)."""
        return self.plan.candidates()[self.candidate].repair

    @property
    def setting(self) -> ExecutionSetting:
        return self.plan.setting

    @property
    def probes(self) -> list[Program]:
        """Programs run beside this reading to judge it (a self-check's mutant): the first reading's only."""
        return self.plan.probes if self.candidate == 0 else []

    def alternatives(self) -> list[Conversion]:
        """The same record under each other reading of it (argv candidates)."""
        count = len(self.plan.candidates())
        return [self.model_copy(update={"candidate": i}) for i in range(count) if i != self.candidate]


class Refusal(Frozen):
    """A record that cannot be turned into a program, and why (listed and counted, never fatal)."""

    subset: str
    location: str
    reason: str
    record: ReleasedRecord | None = Field(default=None, description="None: the reader could not parse it")


class AuditClass(StrEnum):
    """One class per label. Reproduced, explained by a named cause, not run, or mismatch."""

    EXACT = "reproduced_exact"
    NORMALISED = "reproduced_normalised"  # whitespace, quote style, line wrapping
    RECONSTRUCTED = "reproduced_after_reconstruction"  # cannot build as released; the obvious repair does
    TOOLCHAIN_DRIFT = "toolchain_drift"  # only compiler/interpreter diagnostics differ
    LOCALE_DRIFT = "locale_drift"
    NON_DETERMINISTIC = "non_deterministic"  # our own repeated runs disagree
    NON_DETERMINISTIC_CODE = (
        "non_deterministic_code"  # repeats agree, but the code reads clocks, randomness..
    )
    CANNOT_BUILD = "cannot_build"  # a file, make target or binary the run needs is not in the release
    NO_RUN_INSTRUCTION = "no_run_instruction"  # nothing says how to run it, and nothing could be inferred
    MISSING_DEPENDENCY = "missing_dependency"  # e.g. a Python module our environment lacks
    EMPTY_LABEL = "empty_label"  # the released gt is empty, our run printed something
    CONFLICTING_DUPLICATE = "conflicting_duplicate"  # the same program has other, different labels
    # A self-check that passes whatever its expected value: its mutant (the expected value altered) passed
    # too, so the label proves nothing (Java's assert without -ea; a comparison that cannot fail).
    VACUOUS_CHECK = "vacuous_check"
    NOT_A_PROGRAM = "not_a_program"  # the record's code is not a program (prose where code should be)
    TIMEOUT = "timeout"  # past our limits (the reason says the recorded time, where there is one)
    RESOURCE_LIMIT = "resource_limit"  # memory or output limit
    NOT_RUN = "not_run"  # toolchain missing (named in `reason`)
    MISMATCH = "mismatch"  # a real disagreement: the label is suspect


REPRODUCED = (AuditClass.EXACT, AuditClass.NORMALISED)
UNEXPLAINED = (AuditClass.MISMATCH,)
EXPLAINED = tuple(c for c in AuditClass if c not in (*REPRODUCED, *UNEXPLAINED, AuditClass.NOT_RUN))
# Best first: a label's class over profiles and candidates is the first in this order that any row has.
# A mismatch ranks before not_run: a disagreement somewhere is news, a missing tool elsewhere is not.
CLASS_RANK = {c: i for i, c in enumerate([*REPRODUCED, *EXPLAINED, *UNEXPLAINED, AuditClass.NOT_RUN])}


class AuditRow(Frozen):
    """The verdict on one label under one environment profile."""

    record_id: str
    subset: str
    index: int
    location: str
    language: str
    profile: str
    run_id: str | None = None
    variant: str = Field(default="as released", description="which reading of the record ran (argv, ...)")
    verdict: str | None = Field(default=None, description="the run's Verdict, if it ran")
    audit_class: AuditClass
    metric: str = Field(description="the subset's SURGE metric, e.g. 'jaccard_words'")
    score: float | None = Field(description="the metric of our fresh output against gt, 0..1; None: not run")
    reason: str = Field(default="", description="why (not run: which toolchain; timeout: which limit)")
    evidence: str = Field(default="", description="a short diff of gt against our output")
    cpu_s: float = Field(default=0.0, description="compile + run CPU seconds (user + system)")
    run_cpu_limit_s: float | None = Field(default=None, description="the run phase's CPU limit we applied")
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
        return content_id(
            "audit", self.record_id, self.profile, self.run_id, self.variant, self.audit_class, self.score
        )


class Unrunnable(Frozen):
    """A well-formed record that cannot run as released and nothing could be inferred: it still gets a
    row per profile, classed by the named cause, instead of a refusal."""

    record: ReleasedRecord
    language: str
    audit_class: AuditClass
    reason: str
