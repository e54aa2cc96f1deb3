"""The Python API: each command as a function taking typed options and returning a typed summary.

    from surge import run, stats
    ran = run(programs="examples/programs.jsonl", store="out/store")
    ran.verdicts, ran.written, stats(store="out/store").by_language

A function takes an options model (``pipeline/commands/options.py``) or its fields as keywords, and
returns the summary model holding what the command's ``--json`` prints (``.text``: what it prints
without). The CLI is a layer over the same ``perform``: parse the flags, make the options, print.

Importing changes nothing in the caller's process, and neither does a call: its Prefect settings are
Prefect's own settings context for the call's duration, never ``os.environ`` (docs/api.md says which). The
library raises the exceptions of ``pipeline.errors`` (each with a ``hint``); a failure of ours during
the work (a batch, the sandbox) is in the summary's ``failures``, as the CLI prints it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from pipeline.commands.options import (
    AuditOptions,
    AuditSummary,
    BuildOptions,
    BuildSummary,
    ExportOptions,
    ExportSummary,
    Options,
    RunOptions,
    RunSummary,
    ScoreOptions,
    ScoreSummary,
    StatsOptions,
    StatsSummary,
    Summary,
)

FAILED_EXIT_CODE = 1
# command -> its options; the command's module does the work (``execute``) and renders the text.
OPTIONS: dict[str, type[Options]] = {
    "run": RunOptions,
    "build": BuildOptions,
    "audit": AuditOptions,
    "export": ExportOptions,
    "score": ScoreOptions,
    "stats": StatsOptions,
}
S = TypeVar("S", bound=Summary)

__all__ = [
    "AuditOptions",
    "AuditSummary",
    "BuildOptions",
    "BuildSummary",
    "ExportOptions",
    "ExportSummary",
    "RunOptions",
    "RunSummary",
    "ScoreOptions",
    "ScoreSummary",
    "StatsOptions",
    "StatsSummary",
    "audit",
    "build",
    "export",
    "run",
    "score",
    "stats",
]


def run(options: RunOptions | None = None, /, **fields: Any) -> RunSummary:
    """Execute programs (a JSONL file) in sandboxes; one row per run in the store (`surge run`)."""
    return _call("run", options or RunOptions(**fields), RunSummary)


def build(options: BuildOptions | None = None, /, **fields: Any) -> BuildSummary:
    """Regenerate subsets with the paper's construction methods into the dataset table (`surge build`)."""
    return _call("build", options or BuildOptions(**fields), BuildSummary)


def audit(options: AuditOptions | None = None, /, **fields: Any) -> AuditSummary:
    """Re-execute a released dataset and classify every label (`surge audit`)."""
    return _call("audit", options or AuditOptions(**fields), AuditSummary)


def export(options: ExportOptions | None = None, /, **fields: Any) -> ExportSummary:
    """Write the dataset table as SURGE files or a Hugging Face dataset (`surge export`)."""
    return _call("export", options or ExportOptions(**fields), ExportSummary)


def score(options: ScoreOptions | None = None, /, **fields: Any) -> ScoreSummary:
    """Score predictions with each subset's metric (`surge score`)."""
    return _call("score", options or ScoreOptions(**fields), ScoreSummary)


def stats(options: StatsOptions | None = None, /, **fields: Any) -> StatsSummary:
    """Summarise every table of the store (`surge stats`)."""
    return _call("stats", options or StatsOptions(**fields), StatsSummary)


def perform(command: str, options: Options, as_json: bool = False) -> dict[str, Any]:
    """The command's work on these options: its summary, as the CLI prints it (``_text`` for the text;
    ``exit_code`` set by the one rule: 1 when something of ours failed, else the command's own)."""
    module = importlib.import_module(f"pipeline.commands.{command}")
    summary: dict[str, Any] = module.execute(options.namespace(as_json))
    failures = summary.get("failures", [])
    exit_code = FAILED_EXIT_CODE if failures else int(summary.get("exit_code", 0))
    if exit_code or "exit_code" in summary:
        summary["exit_code"] = exit_code
    return summary


def _call(command: str, options: Options, summary_type: type[S]) -> S:
    from flows.engine import engine_for

    # A flow command runs in the caller's engine if it opened one (`with Engine():` around several calls
    # shares one Prefect API), else in one of its own, closed as the call returns (flows/engine.py).
    with library_call(), engine_for(command):
        summary = perform(command, options)
    text = summary.pop("_text", "") or ""
    summary.pop("_screen", None)  # the CLI's drawing of the summary on a terminal: not the library's data
    result = summary_type.model_validate(summary)
    result._text = text
    return result


@contextmanager
def library_call() -> Iterator[None]:
    """A call in the caller's process: Prefect's start-up there freezes none of the caller's objects
    (``gc.freeze()``), in this call's context only (a call in another thread decides for itself)."""
    from flows.collector import imports_left_unfrozen

    with imports_left_unfrozen():
        yield
