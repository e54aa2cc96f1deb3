"""`import surge`: the Python API (pipeline/api.py, docs/api.md) under the command's own name.

Importing it changes nothing in the caller's process; each function configures what it needs (Prefect's
settings) inside the call and restores the environment when it returns.
"""

from pipeline.api import (
    AuditOptions,
    AuditSummary,
    BuildOptions,
    BuildSummary,
    ExportOptions,
    ExportSummary,
    RunOptions,
    RunSummary,
    ScoreOptions,
    ScoreSummary,
    StatsOptions,
    StatsSummary,
    audit,
    build,
    export,
    run,
    score,
    stats,
)
from pipeline.errors import SurgeError

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
    "SurgeError",
    "audit",
    "build",
    "export",
    "run",
    "score",
    "stats",
]
