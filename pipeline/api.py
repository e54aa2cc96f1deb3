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
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from pipeline.observe import Observer, StageEvent, Tally
from pipeline.stage_results import Failure, StageResult
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

if TYPE_CHECKING:  # loaded on first use (``__getattr__``, each stage's function): `import surge` stays light
    from pipeline.audit.summary import AuditOptions, AuditSummary
    from pipeline.stages.build import BuildSummary
    from pipeline.stages.doctor import DoctorReport
    from pipeline.stages.export import ExportSummary
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
    from pipeline.stages.run import run as stage

    return _call(stage, options or RunOptions(**fields), observer)


def build(
    options: BuildOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> BuildSummary:
    """Regenerate subsets with the paper's construction methods into the dataset table (`surge build`)."""
    from pipeline.stages.build import build as stage

    return _call(stage, options or BuildOptions(**fields), observer)


def audit(
    options: AuditOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> AuditSummary:
    """Re-execute a released dataset and classify every label (`surge audit`)."""
    from pipeline.audit.summary import AuditOptions
    from pipeline.stages.audit import audit as stage

    return _call(stage, options or AuditOptions(**fields), observer)


def export(
    options: ExportOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ExportSummary:
    """Write the dataset table as SURGE files or a Hugging Face dataset (`surge export`)."""
    from pipeline.stages.export import export as stage

    return _call(stage, options or ExportOptions(**fields), observer)


def score(
    options: ScoreOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ScoreSummary:
    """Score predictions with each subset's metric (`surge score`)."""
    from pipeline.stages.score import score as stage

    return _call(stage, options or ScoreOptions(**fields), observer)


def doctor(
    options: DoctorOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> DoctorReport:
    """What this machine can run: toolchains, sandboxes, the Lean checker, plug-ins (`surge doctor`)."""
    from pipeline.stages.doctor import doctor as stage

    return _call(stage, options or DoctorOptions(**fields), observer)


def stats(
    options: StatsOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> StatsSummary:
    """Summarise every table of the store (`surge stats`)."""
    from pipeline.stages.stats import stats as stage

    return _call(stage, options or StatsOptions(**fields), observer)


def show(
    options: ShowOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ShowResult:
    """One run of the store, whole (`surge show`)."""
    from pipeline.stages.show import show as stage

    return _call(stage, options or ShowOptions(**fields), observer)


def predict(
    options: PredictOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> PredictSummary:
    """Ask a model each record's prompt; append predictions `score` reads (`surge predict`)."""
    from pipeline.stages.predict import predict as stage

    return _call(stage, options or PredictOptions(**fields), observer)


def pull(
    options: PullOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> PullSummary:
    """Check out upstream sources at their pinned commits and store their items (`surge pull`)."""
    from pipeline.stages.pull import pull as stage

    return _call(stage, options or PullOptions(**fields), observer)


def refactor(
    options: RefactorOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> RefactorSummary:
    """Turn source items into runnable programs with an LLM, queued for review (`surge refactor`)."""
    from pipeline.stages.refactor import refactor as stage

    return _call(stage, options or RefactorOptions(**fields), observer)


def review(
    options: ReviewOptions | None = None, /, *, observer: Observer | None = None, **fields: Any
) -> ReviewResult:
    """One action on the review queue: list, show, approve, reject, edit, export, verify (`surge review`)."""
    from pipeline.stages.review import review as stage

    return _call(stage, options or ReviewOptions(**fields), observer)


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


# stage -> its options: what a notebook, a test or the CLI can ask of each stage. Made on first use, with
# the result models below: the audit's options live with its summary, which loads the store and pyarrow.
OPTIONS: dict[str, type[BaseModel]]


def __getattr__(name: str) -> Any:
    """The result models, the audit's options and ``OPTIONS``, loaded on first use (`import surge` loaded
    every stage's module, pyarrow and numpy among them: 0.75 s became 2.4 s)."""
    if name != "OPTIONS" and name not in __all__:  # a name of __all__ not yet here is loaded on use
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pipeline.audit.summary import AuditOptions, AuditSummary
    from pipeline.stages.build import BuildSummary
    from pipeline.stages.doctor import DoctorReport
    from pipeline.stages.export import ExportSummary
    from pipeline.stages.predict import PredictSummary
    from pipeline.stages.pull import PullSummary
    from pipeline.stages.refactor import RefactorSummary
    from pipeline.stages.review import ReviewResult
    from pipeline.stages.run import RunSummary
    from pipeline.stages.score import ScoreSummary
    from pipeline.stages.show import ShowResult
    from pipeline.stages.stats import StatsSummary

    models: dict[str, Any] = {
        "AuditOptions": AuditOptions,
        "AuditSummary": AuditSummary,
        "BuildSummary": BuildSummary,
        "DoctorReport": DoctorReport,
        "ExportSummary": ExportSummary,
        "PredictSummary": PredictSummary,
        "PullSummary": PullSummary,
        "RefactorSummary": RefactorSummary,
        "ReviewResult": ReviewResult,
        "RunSummary": RunSummary,
        "ScoreSummary": ScoreSummary,
        "ShowResult": ShowResult,
        "StatsSummary": StatsSummary,
    }
    models["OPTIONS"] = {
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
    globals().update(models)  # each name is looked up here once
    return models[name]
