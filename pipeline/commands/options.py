"""The typed options and results of the Python API (pipeline/api.py, docs/api.md).

An options model holds what a command's flags hold, field for field (``surge run --cpu-s 5`` is
``RunOptions(cpu_s=5)``; tests/pipeline/test_api.py keeps the two in step, defaults included); a summary
model holds what the command's ``--json`` prints. Summaries keep any key a command adds beyond the fields
declared here (``extra="allow"``), so they never hold less than ``--json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from pipeline.audit import summary as audit_stage
from pipeline.commands.common import (
    DEFAULT_STORE,
    MAX_BATCH_SIZE,
    MAX_LIMIT_S,
    MAX_MEMORY_MIB,
    MAX_OUTPUT_BYTES,
    MAX_REPEATS,
    MAX_SEED,
    MAX_WORKERS,
)
from pipeline.records import PhaseLimits
from sandboxes.backends.registry import DEFAULT_BACKEND, OLD_NAMES

RUN_LIMITS = PhaseLimits()


class Options(BaseModel):
    """What a command is asked to do; unknown fields are refused (a misspelt option is never ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        """The options of a parsed command line."""
        return cls.model_validate({name: getattr(args, name) for name in cls.model_fields})

    def namespace(self, as_json: bool) -> argparse.Namespace:
        """What the command's ``execute`` reads: the options as attributes, and ``json`` (--json)."""
        return argparse.Namespace(**dict(self), json=as_json)


class StoreOption(Options):
    store: Path = Field(DEFAULT_STORE, description="the Parquet store folder")


class SandboxOptions(StoreOption):
    """How programs run: profiles, backend, batches."""

    profile: list[str] | None = Field(None, description="environment profiles (None: ['default'])")
    backend: str = Field(DEFAULT_BACKEND, description="sandbox for profiles on this machine's toolchains")
    batch_size: int | None = Field(None, ge=1, le=MAX_BATCH_SIZE, description="items per task (None: auto)")
    workers: int | None = Field(None, ge=1, le=MAX_WORKERS, description="programs at a time (None: cores)")

    @field_validator("backend")
    @classmethod
    def today_name(cls, name: str) -> str:
        return OLD_NAMES.get(name, name)


class LimitOptions(SandboxOptions):
    """Run-phase limits and an optional Dask cluster (run, audit)."""

    dask_address: str | None = Field(None, description="run batches on this Dask scheduler (tcp://HOST:PORT)")
    cpu_s: float = Field(RUN_LIMITS.cpu_s, gt=0, le=MAX_LIMIT_S, description="CPU seconds per run")
    wall_s: float = Field(RUN_LIMITS.wall_s, gt=0, le=MAX_LIMIT_S, description="wall-clock seconds per run")
    memory_mib: int = Field(RUN_LIMITS.memory_mib, ge=1, le=MAX_MEMORY_MIB, description="memory, MiB")
    output_bytes: int = Field(RUN_LIMITS.output_bytes, ge=1, le=MAX_OUTPUT_BYTES, description="kept/stream")


class RunOptions(LimitOptions):
    """`surge run`: execute a JSONL file of programs."""

    programs: Path = Field(description="JSONL file, one program per line (README: 'A program line')")
    setting: str | None = Field(None, description="a setting such as g++-C++14--O2 for lines without one")
    repeats: int = Field(1, ge=1, le=MAX_REPEATS, description="runs per program")
    unsafe: bool = Field(False, description="allow running without a sandbox (trusted code only)")
    strict: bool = Field(False, description="exit_code 3 if any line was bad")


class BuildOptions(SandboxOptions):
    """`surge build`: regenerate subsets into the store's dataset table."""

    subsets: list[str] = Field(default_factory=list, description="subsets to build (empty: SURGE's eight)")
    n: int | None = Field(None, description="rows per subset (None: SURGE's Table 1 size)")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="same seed, same instances")
    repeats: int = Field(3, ge=1, le=MAX_REPEATS, description="tc: most timing runs per instance")
    templates: str = Field("library", description="the template library (sc, tc, dr)")
    items: str = Field("samples", description="where the source items come from")
    language: list[str] | None = Field(None, description="ml: only these languages")
    auto_approve: bool = Field(False, description="approve LLM candidates without review (marked so)")
    unsafe: bool = Field(False, description="allow running without bubblewrap")
    time_mix: str = Field(
        "surge", description="tc: time bins to fill, 'surge' or 'BIN=WEIGHT,...' (scaled to n)"
    )
    compare_to: Path | None = Field(
        None, description="SURGE's dataset/ folder: each subset beside the release"
    )
    llm_base_url: str | None = Field(None, description="ml, cl, bg: the endpoint (None: SURGE_LLM_BASE_URL)")
    llm_model: str | None = Field(None, description="the model (None: SURGE_LLM_MODEL)")
    llm_api_key: str | None = Field(None, description="the key (None: SURGE_LLM_API_KEY)")
    llm_concurrency: int | None = Field(None, ge=1, le=MAX_WORKERS, description="requests in flight")
    llm_cache: Path | None = Field(None, description="response cache folder (None: .surge/llm-cache)")
    price_prompt_per_1k: float | None = Field(None, ge=0, description="USD per 1k prompt tokens")
    price_completion_per_1k: float | None = Field(None, ge=0, description="USD per 1k completion tokens")
    budget: str | None = Field(None, description="stop asking past '$2.50' or '50ktokens' in this run")


class AuditOptions(audit_stage.AuditOptions, Options):
    """`surge audit`'s options: the audit stage's own (pipeline/audit/summary.py), read from flags."""


class ExportOptions(Options):
    """`surge export`: the dataset table as SURGE files or a Hugging Face dataset."""

    store: Path = Field(description="the Parquet store folder")
    out: Path = Field(description="the folder to write")
    format: Literal["surge", "hf"] = Field("surge", description="output layout")
    faithful: bool = Field(False, description="keep the release's prompt defects")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="few-shot examples' seed")
    subset: list[str] | None = Field(None, description="only these subsets")
    overwrite: bool = Field(False, description="replace an existing export")
    import_release: Path | None = Field(None, description="import a released dataset first")
    push: str | None = Field(None, description="commit to this Hub repository (OWNER/NAME), hf only")
    revision: str | None = Field(None, description="with push: the branch")
    compare_to: Path | None = Field(
        None, description="SURGE's dataset/ folder: the card shows the release beside"
    )


class ScoreOptions(Options):
    """`surge score`: score predictions with each subset's metric."""

    predictions: Path = Field(description="JSONL or JSON list of predictions")
    dataset: list[Path] = Field(min_length=1, description="dataset folders or <subset>.json; two compare")
    missing_as_zero: bool = Field(False, description="score a missing prediction 0")
    output: Path | None = Field(None, description="write each item's score as JSONL here")
    per_item: bool = Field(False, description="each item's score in the summary (the CLI's --json)")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        fields = {name: getattr(args, name) for name in cls.model_fields if name != "per_item"}
        return cls.model_validate({**fields, "per_item": args.json})

    def namespace(self, as_json: bool) -> argparse.Namespace:
        fields = {name: value for name, value in self if name != "per_item"}
        return argparse.Namespace(**fields, json=as_json or self.per_item)


class StatsOptions(StoreOption):
    """`surge stats`: what the store holds."""

    name_at_most: int = Field(10, ge=0, le=10_000, description="non-deterministic runs named in the text")


class Failure(BaseModel):
    """Something of ours that failed during the work, and how to fix it."""

    reason: str
    fix: str = ""


class Summary(BaseModel):
    """What a command did: the data of its ``--json``. ``text`` is the CLI's readable rendering."""

    model_config = ConfigDict(extra="allow")

    failures: list[Failure] = Field(default_factory=list)
    exit_code: int = Field(0, description="the code `surge` exits with (1 when failures)")
    _text: str = PrivateAttr("")

    @property
    def text(self) -> str:
        return self._text

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class RunSummary(Summary):
    programs: int
    bad_lines: list[dict[str, Any]]
    setting: dict[str, Any] | None
    planned_runs: int
    already_stored: int
    written: int
    verdicts: dict[str, int]
    sandbox_errors: int
    failed_batches: int
    store: str


class BuildSummary(Summary):
    built: dict[str, dict[str, Any]]
    not_built: dict[str, str]
    short: list[str]
    store: str
    compare_to: dict[str, Any] | None = None  # --compare-to: each subset's build beside the release


# The stage's failures are its own model of the same two fields (reason, fix) as ``Failure`` here.
class AuditSummary(audit_stage.AuditSummary, Summary):  # type: ignore[misc]
    """The audit stage's summary (pipeline/audit/summary.py), with the API's text and exit code."""


class ExportSummary(Summary):
    format: str
    faithful: bool
    imported: int
    rows: dict[str, int]


class ScoreSummary(Summary):
    datasets: dict[str, dict[str, Any]]
    coverage: dict[str, Any]
    missing_as_zero: bool


class StatsSummary(Summary):
    store: str
    runs: int
    parts: int
    quarantined: int
    nondeterministic: int
    by_language: dict[str, dict[str, int]]
    dataset_rows: dict[str, Any]
    build_outcomes: dict[str, Any]
    audit_classes: dict[str, Any]
    rows_by_table: dict[str, int]
