"""The Python API: every stage as a function taking typed options and returning a typed result.

    from surge import run, stats
    ran = run(programs="examples/programs.jsonl", store="out/store")
    ran.verdicts, ran.written, stats(store="out/store").by_language

A function takes an options model (``pipeline/stages/options.py``) or its fields as keywords, and returns
the stage's result model: the data the command's ``--json`` prints. The stages live in
``pipeline/stages/``; the CLI (``pipeline/cli.py``, ``pipeline/commands/``) is a layer over the same
functions that parses flags into options and renders the results, and nothing here imports it.

Importing changes nothing in the caller's process, and neither does a call: its Prefect settings are
Prefect's own settings context for the call's duration, never ``os.environ`` (docs/api.md says which). The
library raises the exceptions of ``pipeline.errors`` (each with a ``hint``); a failure of ours during
the work (a batch, the sandbox) is in the result's ``failures``, as the CLI prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel

from pipeline.audit.summary import AuditOptions, AuditSummary
from pipeline.observe import Observer, StageEvent, Tally
from pipeline.stage_results import Failure, StageResult
from pipeline.stages import build as build_stage
from pipeline.stages import doctor as doctor_stage
from pipeline.stages import export as export_stage
from pipeline.stages import predict as predict_stage
from pipeline.stages import pull as pull_stage
from pipeline.stages import refactor as refactor_stage
from pipeline.stages import review as review_stage
from pipeline.stages import run as run_stage
from pipeline.stages import score as score_stage
from pipeline.stages import show as show_stage
from pipeline.stages import stats as stats_stage
from pipeline.stages.audit import audit as audit_stage
from pipeline.stages.build import BuildSummary
from pipeline.stages.doctor import DoctorReport
from pipeline.stages.export import ExportSummary
from pipeline.stages.options import (
    BuildOptions,
    DoctorOptions,
    ExportOptions,
    PredictOptions,
    PullOptions,
    RefactorOptions,
    ReviewOptions,
    RunOptions,
    ScoreOptions,
    ShowOptions,
    StatsOptions,
)
from pipeline.stages.predict import PredictSummary
from pipeline.stages.pull import PullSummary
from pipeline.stages.refactor import RefactorSummary
from pipeline.stages.review import ReviewResult
from pipeline.stages.run import RunSummary
from pipeline.stages.score import ScoreSummary
from pipeline.stages.show import ShowResult
from pipeline.stages.stats import StatsSummary

# Every result is a StageResult (the audit's too: pipeline/audit/summary.py builds on the core base). The
# audit's options are frozen records of the audit's own package, which sits below pipeline/stages/options.py,
# so the options are asked only to be pydantic models.
OptionsT = TypeVar("OptionsT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=StageResult)

# stage -> its options: what a notebook, a test or the CLI can ask of each stage
OPTIONS: dict[str, type[BaseModel]] = {
    "run": RunOptions,
    "build": BuildOptions,
    "audit": AuditOptions,
    "export": ExportOptions,
    "score": ScoreOptions,
    "stats": StatsOptions,
    "show": ShowOptions,
    "predict": PredictOptions,
    "pull": PullOptions,
    "refactor": RefactorOptions,
    "review": ReviewOptions,
    "doctor": DoctorOptions,
}

__all__ = [
    "AuditOptions",
    "AuditSummary",
    "BuildOptions",
    "BuildSummary",
    "DoctorOptions",
    "DoctorReport",
    "ExportOptions",
    "ExportSummary",
    "Failure",
    "Observer",
    "PredictOptions",
    "PredictSummary",
    "PullOptions",
    "PullSummary",
    "RefactorOptions",
    "RefactorSummary",
    "ReviewOptions",
    "ReviewResult",
    "RunOptions",
    "RunSummary",
    "ScoreOptions",
    "ScoreSummary",
    "ShowOptions",
    "ShowResult",
    "StageEvent",
    "Tally",
    "StageResult",
    "StatsOptions",
    "StatsSummary",
    "audit",
    "build",
    "doctor",
    "export",
    "predict",
    "pull",
    "refactor",
    "review",
    "run",
    "score",
    "show",
    "stats",
]


def run(
    options: RunOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> RunSummary:
    """Execute programs (a JSONL file) in sandboxes; one row per run in the store (`surge run`)."""
    return _call(run_stage.run, options or RunOptions(**fields), observer)


def build(
    options: BuildOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> BuildSummary:
    """Regenerate subsets with the paper's construction methods into the dataset table (`surge build`)."""
    return _call(build_stage.build, options or BuildOptions(**fields), observer)


def audit(
    options: AuditOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> AuditSummary:
    """Re-execute a released dataset and classify every label (`surge audit`)."""
    return _call(audit_stage, options or AuditOptions(**fields), observer)


def export(
    options: ExportOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ExportSummary:
    """Write the dataset table as SURGE files or a Hugging Face dataset (`surge export`)."""
    return _call(export_stage.export, options or ExportOptions(**fields), observer)


def score(
    options: ScoreOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ScoreSummary:
    """Score predictions with each subset's metric (`surge score`)."""
    return _call(score_stage.score, options or ScoreOptions(**fields), observer)


def doctor(
    options: DoctorOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> DoctorReport:
    """What this machine can run: toolchains, sandboxes, the Lean checker, plug-ins (`surge doctor`)."""
    return _call(doctor_stage.doctor, options or DoctorOptions(**fields), observer)


def stats(
    options: StatsOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> StatsSummary:
    """Summarise every table of the store (`surge stats`)."""
    return _call(stats_stage.stats, options or StatsOptions(**fields), observer)


def show(
    options: ShowOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ShowResult:
    """One run of the store, whole (`surge show`)."""
    return _call(show_stage.show, options or ShowOptions(**fields), observer)


def predict(
    options: PredictOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> PredictSummary:
    """Ask a model each record's prompt; append predictions `score` reads (`surge predict`)."""
    return _call(predict_stage.predict, options or PredictOptions(**fields), observer)


def pull(
    options: PullOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> PullSummary:
    """Check out upstream sources at their pinned commits and store their items (`surge pull`)."""
    return _call(pull_stage.pull, options or PullOptions(**fields), observer)


def refactor(
    options: RefactorOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> RefactorSummary:
    """Turn source items into runnable programs with an LLM, queued for review (`surge refactor`)."""
    return _call(refactor_stage.refactor, options or RefactorOptions(**fields), observer)


def review(
    options: ReviewOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ReviewResult:
    """One action on the review queue: list, show, approve, reject, edit, export, verify (`surge review`)."""
    return _call(review_stage.review, options or ReviewOptions(**fields), observer)


def _call(stage: Callable[..., ResultT], options: OptionsT, observer: Observer | None) -> ResultT:
    with library_call():
        return stage(options, observer=observer)


@contextmanager
def library_call() -> Iterator[None]:
    """A call in the caller's process: Prefect's start-up there freezes none of the caller's objects
    (``gc.freeze()``), in this call's context only (a call in another thread decides for itself)."""
    from flows.collector import imports_left_unfrozen

    with imports_left_unfrozen():
        yield
