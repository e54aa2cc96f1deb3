"""The typed options of every stage: what a command's flags hold, field for field.

``surge run --cpu-s 5`` is ``RunOptions(cpu_s=5)``; tests/pipeline/test_api.py keeps the options and the
flags in step, defaults included. A field has the flag's name with ``_`` for ``-``; a repeatable flag is a
list. Options are frozen and refuse an unknown field (a misspelt option is never ignored). The CLI makes
them from its parsed flags (pipeline/commands/); nothing here knows about flags.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.bounds import (
    DEFAULT_STORE,
    MAX_BATCH_SIZE,
    MAX_COUNT,
    MAX_LIMIT_S,
    MAX_MEMORY_MIB,
    MAX_NAMED_RUNS,
    MAX_OUTPUT_BYTES,
    MAX_PORT,
    MAX_PRICE_USD,
    MAX_REPEATS,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_WORKERS,
)
from pipeline.llm.settings import LLMSettings
from pipeline.records import PhaseLimits
from pipeline.review import DEFAULT_REVIEW_DB
from pipeline.vocabulary import DEFAULT_BACKEND
from sandboxes.backends.registry import OLD_NAMES
from sources.base import DEFAULT_CACHE

RUN_LIMITS = PhaseLimits()
DEFAULT_REVIEW_PORT = 8765


class Options(BaseModel):
    """What a stage is asked to do; unknown fields are refused (a misspelt option is never ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class StoreOption(Options):
    store: Path = Field(default=DEFAULT_STORE, description="the Parquet store folder")


class SandboxOptions(StoreOption):
    """How programs run: profiles, backend, batches."""

    profile: list[str] | None = Field(default=None, description="environment profiles (None: ['default'])")
    backend: str = Field(
        default=DEFAULT_BACKEND, description="sandbox for profiles on this machine's toolchains"
    )
    batch_size: int | None = Field(
        default=None, ge=1, le=MAX_BATCH_SIZE, description="items per task (None: auto)"
    )
    workers: int | None = Field(
        default=None, ge=1, le=MAX_WORKERS, description="programs at a time (None: cores)"
    )

    @field_validator("backend")
    @classmethod
    def today_name(cls, name: str) -> str:
        return OLD_NAMES.get(name, name)


class LimitOptions(SandboxOptions):
    """Run-phase limits and an optional Dask cluster (run, audit)."""

    dask_address: str | None = Field(
        default=None, description="run batches on this Dask scheduler (tcp://HOST:PORT)"
    )
    cpu_s: float = Field(default=RUN_LIMITS.cpu_s, gt=0, le=MAX_LIMIT_S, description="CPU seconds per run")
    wall_s: float = Field(
        default=RUN_LIMITS.wall_s, gt=0, le=MAX_LIMIT_S, description="wall-clock seconds per run"
    )
    memory_mib: int = Field(default=RUN_LIMITS.memory_mib, ge=1, le=MAX_MEMORY_MIB, description="memory, MiB")
    output_bytes: int = Field(
        default=RUN_LIMITS.output_bytes, ge=1, le=MAX_OUTPUT_BYTES, description="kept/stream"
    )


class RunOptions(LimitOptions):
    """`surge run`: execute a JSONL file of programs."""

    programs: Path = Field(description="JSONL file, one program per line (README: 'A program line')")
    setting: str | None = Field(
        default=None, description="a setting such as g++-C++14--O2 for lines without one"
    )
    repeats: int = Field(default=1, ge=1, le=MAX_REPEATS, description="runs per program")
    unsafe: bool = Field(default=False, description="allow running without a sandbox (trusted code only)")
    strict: bool = Field(default=False, description="exit_code 3 if any line was bad")


class EndpointOptions(Options):
    """An OpenAI-compatible endpoint, one meaning wherever it is asked (refactor, build)."""

    llm_base_url: str | None = Field(default=None, description="the endpoint (None: SURGE_LLM_BASE_URL)")
    llm_model: str | None = Field(default=None, description="the model (None: SURGE_LLM_MODEL)")
    llm_api_key: str | None = Field(default=None, description="the key (None: SURGE_LLM_API_KEY)")
    llm_concurrency: int | None = Field(default=None, ge=1, le=MAX_WORKERS, description="requests in flight")
    llm_cache: Path | None = Field(default=None, description="response cache folder (None: .surge/llm-cache)")
    price_prompt_per_1k: float | None = Field(
        default=None, ge=0, le=MAX_PRICE_USD, description="USD per 1k prompt tokens"
    )
    price_completion_per_1k: float | None = Field(
        default=None, ge=0, le=MAX_PRICE_USD, description="USD per 1k completion tokens"
    )

    def llm_settings(self) -> LLMSettings:
        """The endpoint these options name, each unset field from its SURGE_LLM_* variable."""
        return LLMSettings.from_env(
            base_url=self.llm_base_url,
            model=self.llm_model,
            api_key=self.llm_api_key,
            concurrency=self.llm_concurrency,
            cache_dir=self.llm_cache,
            price_prompt_per_1k=self.price_prompt_per_1k,
            price_completion_per_1k=self.price_completion_per_1k,
        )


class BuildOptions(SandboxOptions, EndpointOptions):
    """`surge build`: regenerate subsets into the store's dataset table."""

    subsets: list[str] = Field(default_factory=list, description="subsets to build (empty: SURGE's eight)")
    n: int | None = Field(default=None, description="rows per subset (None: SURGE's Table 1 size)")
    seed: int = Field(default=0, ge=0, le=MAX_SEED, description="same seed, same instances")
    repeats: int = Field(default=3, ge=1, le=MAX_REPEATS, description="tc: most timing runs per instance")
    templates: str = Field(default="library", description="the template library (sc, tc, dr)")
    items: str = Field(default="samples", description="where the source items come from")
    language: list[str] | None = Field(default=None, description="ml: only these languages")
    auto_approve: bool = Field(default=False, description="approve LLM candidates without review (marked so)")
    unsafe: bool = Field(default=False, description="allow running without bubblewrap")
    time_mix: str = Field(
        default="surge", description="tc: time bins to fill, 'surge' or 'BIN=WEIGHT,...' (scaled to n)"
    )
    compare_to: Path | None = Field(
        default=None, description="SURGE's dataset/ folder: each subset beside the release"
    )
    budget: str | None = Field(
        default=None, description="stop asking past '$2.50' or '50ktokens' in this run"
    )


class ExportOptions(Options):
    """`surge export`: the dataset table as SURGE files or a Hugging Face dataset."""

    store: Path = Field(description="the Parquet store folder")
    out: Path = Field(description="the folder to write")
    format: Literal["surge", "hf"] = Field(default="surge", description="output layout")
    faithful: bool = Field(default=False, description="keep the release's prompt defects")
    seed: int = Field(default=0, ge=0, le=MAX_SEED, description="few-shot examples' seed")
    subset: list[str] | None = Field(default=None, description="only these subsets")
    overwrite: bool = Field(default=False, description="replace an existing export")
    import_release: Path | None = Field(default=None, description="import a released dataset first")
    push: str | None = Field(default=None, description="commit to this Hub repository (OWNER/NAME), hf only")
    revision: str | None = Field(default=None, description="with push: the branch")
    compare_to: Path | None = Field(
        default=None, description="SURGE's dataset/ folder: the card shows the release beside"
    )


class ScoreOptions(Options):
    """`surge score`: score predictions with each subset's metric."""

    predictions: Path = Field(description="JSONL or JSON list of predictions")
    dataset: list[Path] = Field(min_length=1, description="dataset folders or <subset>.json; two compare")
    missing_as_zero: bool = Field(default=False, description="score a missing prediction 0")
    output: Path | None = Field(default=None, description="write each item's score as JSONL here")
    per_item: bool = Field(default=False, description="each item's score in the summary (the CLI's --json)")


class StatsOptions(StoreOption):
    """`surge stats`: what the store holds."""

    name_at_most: int = Field(
        default=10, ge=0, le=MAX_NAMED_RUNS, description="non-deterministic runs named in the text"
    )


class DoctorOptions(Options):
    """`surge doctor`: what this machine can run, under one profile."""

    profile: list[str] | None = Field(
        default=None, description="the profile whose toolchain choices to check (one; None: ['default'])"
    )


class ShowOptions(StoreOption):
    """`surge show`: one run as a person reads it."""

    run_id: str | None = Field(
        default=None, description="a run id or a prefix naming one run (None: give last)"
    )
    last: bool = Field(default=False, description="the run started most recently")


class PredictOptions(Options):
    """`surge predict`: ask a model each record's prompt and write predictions."""

    dataset: Path = Field(description="a dataset/ folder (as `surge export` writes) or <subset>.json")
    model: str | None = Field(default=None, description="model name (None: SURGE_LLM_MODEL)")
    subset: list[str] | None = Field(default=None, description="only these subsets")
    prompt: Literal["zero-shot", "few-shot", "cot"] = Field(
        default="zero-shot", description="the prompt asked"
    )
    output: Path = Field(default=Path("predictions.jsonl"), description="JSONL, appended; a rerun resumes it")
    concurrency: int | None = Field(
        default=None, ge=1, le=MAX_WORKERS, description="requests in flight (None: 4)"
    )
    budget: str | None = Field(default=None, description="stop asking past '$2.50' or '50ktokens'")
    limit: int | None = Field(default=None, ge=1, le=MAX_COUNT, description="ask at most this many new items")
    llm_base_url: str | None = Field(default=None, description="the endpoint (None: SURGE_LLM_BASE_URL)")


class PullOptions(StoreOption):
    """`surge pull`: check out upstream sources at their pinned commits and store their items."""

    sources: list[str] = Field(default_factory=list, description="sources to pull (empty: all)")
    mirror: list[str] = Field(default_factory=list, description="[SOURCE=]PATH|URL to clone from instead")
    commit: list[str] = Field(default_factory=list, description="[SOURCE=]REV to check out instead")
    cache: Path = Field(default=DEFAULT_CACHE, description="folder of the checkouts")
    workers: int | None = Field(default=None, ge=1, le=MAX_WORKERS, description="sources pulled at a time")


class RefactorOptions(EndpointOptions):
    """`surge refactor`: turn source items into programs with an LLM, queued for review."""

    items: Path = Field(description="JSONL of SourceItems, or a store folder with an items table")
    db: Path = Field(default=DEFAULT_REVIEW_DB, description="the review queue")
    source: list[str] | None = Field(default=None, description="only items of these sources")
    method: str | None = Field(
        default=None, description="force a method: mceval, leetcode, debugbench, ojcode"
    )
    limit: int | None = Field(default=None, ge=1, le=MAX_COUNT, description="at most N items")
    max_rounds: int = Field(
        default=3, ge=1, le=MAX_ROUNDS, description="LLM answers per item before it fails"
    )
    batch_size: int = Field(default=8, ge=1, le=MAX_BATCH_SIZE, description="items per task")
    workers: int | None = Field(default=None, ge=1, le=MAX_WORKERS, description="batches at a time")
    backend: str = Field(default=DEFAULT_BACKEND, description="the sandbox that runs candidates")
    unsafe: bool = Field(default=False, description="allow running candidates without a sandbox")


ReviewAction = Literal["list", "show", "approve", "reject", "edit", "serve", "export", "verify"]


class ReviewOptions(Options):
    """`surge review`: one action on the human review queue."""

    action: ReviewAction = Field(description="what to do")
    entry: str | None = Field(
        default=None, description="entry id or prefix; items JSONL or store folder (verify)"
    )
    db: Path = Field(default=DEFAULT_REVIEW_DB, description="the review queue")
    state: str | None = Field(default=None, description="list only this state")
    reviewer: str | None = Field(default=None, description="your name on decisions (None: $USER)")
    reason: str = Field(default="", description="why a program is rejected (reject)")
    difficulty: int | None = Field(default=None, description="approve/edit a rated (cl) item with this 1-5")
    ledger: Path | None = Field(default=None, description="ledger JSONL to write (export) or read (verify)")
    programs: Path | None = Field(default=None, description="with export: also write a `surge run` input")
    host: str = Field(default="127.0.0.1", description="serve: address to bind")
    port: int = Field(default=DEFAULT_REVIEW_PORT, ge=0, le=MAX_PORT, description="serve: port (0: any free)")
    token: str | None = Field(default=None, description="serve: the token every request must carry")
    backend: str = Field(default=DEFAULT_BACKEND, description="the sandbox that re-executes edited programs")
    unsafe: bool = Field(default=False, description="allow re-executing without a sandbox")
