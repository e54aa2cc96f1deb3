"""The build stage: regenerate SURGE's subsets from their sources (one Prefect flow per subset).

Exit codes (the one rule, pipeline/errors.py): 1 when a failure of ours left items unbuilt (a missing
toolchain or image, a broken sandbox, an LLM endpoint that failed, or none set and no recorded response:
each with its fix; nothing is recorded for those items and the next run builds them in their place); 3
("done, but") when a subset has fewer rows than ``n`` for the items' own reasons (the items ran out, too
many were dropped, some await review) or the budget stopped it.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, field_validator

from pipeline.build import failures
from pipeline.build.failures import Ours
from pipeline.build.spread import mix_text, parse_mix
from pipeline.errors import ConfigurationError
from pipeline.observe import Observer, tell, watched_by
from pipeline.stage_results import Failure, LLMFigures, StageResult
from pipeline.stages.options import BuildOptions
from pipeline.subsets import REGISTRY, RELEASED
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

if TYPE_CHECKING:
    from pipeline.build.records import BuildConfig
    from pipeline.llm.budget import Budget
    from pipeline.llm.settings import LLMSettings

BATCH_ITEMS = 16  # items per batch when no batch size is given
SHORT_EXIT_CODE = 3  # "done, but": every item was decided, yet fewer rows than n
NO_BUILDER_FIX = "leave the subset out, or give its spec a build_batch (docs/build.md, 'Adding a subset')"
NO_CHECKER_FIX = "leave fl out, or set up a Lean checker (surge doctor; docs/lean.md)"
# the construction methods whose items are an upstream's, pulled (a JSONL file or a store folder)
UPSTREAM_METHODS = (ConstructionMethod.ITERATIVE_REFACTOR, ConstructionMethod.INFERENCE_VERIFICATION)


class LLMTotals(LLMFigures):
    """The run's LLM figures over every subset it built, and its budget."""

    budget: str
    budget_stopped_items: int


class BinFill(BaseModel):
    """tc: a time bin's rows, built against the mix's target."""

    target: int
    built: int


class SubsetBuild(BaseModel):
    """One subset's build: rows of ``n``, items planned, kept and dropped (each drop reason counted), and
    the failures of ours by kind (``ours:<kind>``, with ``detail:<kind>``)."""

    subset: str
    rows: int
    n: int
    planned_items: int
    ran_out: bool
    ours: dict[str, int]
    details: dict[str, str]
    llm: LLMFigures | None = Field(default=None, description="refactor subsets: what the LLM was asked")
    awaiting_review: int = 0
    items: int
    kept_items: int
    dropped_items: int
    drop_reasons: dict[str, int]
    spread: dict[str, BinFill] | None = None
    batch_size: int

    @field_validator("llm", mode="before")
    @classmethod
    def no_figures_is_none(cls, figures: Any) -> Any:
        return figures or None  # a subset without an LLM reports {} from the flow

    @property
    def budget_stopped(self) -> int:
        return self.ours.get(f"ours:{Ours.BUDGET_SPENT}", 0)

    @property
    def skipped(self) -> int:
        """Items the recorded responses had no answer for (no endpoint set)."""
        return self.ours.get(f"ours:{Ours.NO_RECORDED_RESPONSE}", 0)


class LabelChars(BaseModel):
    median: float
    max: int


class SubsetFacts(BaseModel):
    """One side of a subset beside the release: families, languages, time bins, labels, categories."""

    rows: int
    families: int
    top_families: list[str]
    languages: dict[str, int]
    time_bins: dict[str, int]
    label_chars: LabelChars
    categories: dict[str, int]


class BesideRelease(BaseModel):
    build: SubsetFacts
    release: SubsetFacts


class BuildSummary(StageResult):
    """What `surge build` did, per subset, and what it could not build and why."""

    built: dict[str, SubsetBuild]
    llm: LLMTotals
    recorded_llm: list[str] = Field(description="refactor subsets answered from recorded responses")
    not_built: dict[str, str] = Field(description="subset -> why it was not built at all")
    short: list[str] = Field(description="subsets with fewer rows than n")
    store: str
    compare_to: dict[str, BesideRelease] | None = None


def build(options: BuildOptions, *, observer: Observer | None = None) -> BuildSummary:
    """Regenerate subsets with the paper's construction methods into the dataset table (`surge build`)."""
    from flows.engine import using_engine

    check_counts(options)
    mix = mix_text(parse_mix(options.time_mix))  # refused before any work when it does not parse
    settings, budget = llm_of(options)
    names = subsets_of(options)
    check_items(options.items, names)
    profile, backend = profile_and_backend(options)
    from sandboxes.backends.registry import check_available

    check_available({backend}, options.unsafe)  # no sandbox at all: refused before any item is tried
    built: dict[str, SubsetBuild] = {}
    cannot: dict[str, tuple[str, str]] = {}  # a subset we cannot build here is ours: exit 1, its fix
    llm_run = uuid.uuid4().hex  # the run a budget is counted over (pipeline/build/spend.py)
    with using_engine(), watched_by(observer):  # Prefect's settings made before the flows' import
        for name in names:
            if why_and_fix := unbuildable(name, REGISTRY[name]):
                cannot[name] = why_and_fix
                continue
            tell(observer, "build", "subset", name)
            config = config_of(options, name, profile, backend, mix, settings, budget, llm_run)
            built[name] = found = build_one(config, options, REGISTRY[name])
            tell(observer, "build", "built", f"{name}: {found.rows} of {found.n} rows")
    return summary_of(options, built, cannot, settings, budget)


def build_one(config: BuildConfig, options: BuildOptions, spec: SubsetSpec) -> SubsetBuild:
    from flows.build_subset import run_build

    n = options.n if options.n is not None else spec.release_size
    found = run_build(config, options.store, n)
    return SubsetBuild.model_validate({**found, "batch_size": config.batch_size})


def config_of(
    options: BuildOptions,
    name: str,
    profile: str,
    backend: str,
    mix: str,
    settings: LLMSettings,
    budget: Budget,
    llm_run: str,
) -> BuildConfig:
    from flows.runtime import default_workers
    from pipeline.build.records import BuildConfig

    spec = REGISTRY[name]
    n = options.n if options.n is not None else spec.release_size
    return BuildConfig(
        subset=name,
        seed=options.seed,
        profile=profile,
        repeats=options.repeats,
        templates=options.templates,
        backend=backend,
        unsafe=options.unsafe,
        batch_size=options.batch_size or default_batch(spec, n),
        workers=options.workers or default_workers(),
        items=options.items,
        languages=tuple(options.language or ()),
        auto_approve=options.auto_approve,
        time_mix=mix,
        llm=settings,
        budget=budget,
        llm_run=llm_run,
    )


def summary_of(
    options: BuildOptions,
    built: dict[str, SubsetBuild],
    cannot: dict[str, tuple[str, str]],
    settings: LLMSettings,
    budget: Budget,
) -> BuildSummary:
    unbuilt = [Failure(reason=f"{name}: not built: {why}", fix=fix) for name, (why, fix) in cannot.items()]
    found = [failure for name, result in built.items() for failure in failures_of(name, result)]
    short = [name for name, result in built.items() if result.rows < result.n]
    stopped = sum(result.budget_stopped for result in built.values())
    return BuildSummary(
        built=built,
        llm=LLMTotals(
            **llm_totals(built).model_dump(), budget=budget.describe(), budget_stopped_items=stopped
        ),
        recorded_llm=recorded_subsets(list(built), settings),
        not_built={name: why for name, (why, _) in cannot.items()},
        short=short,
        store=str(options.store),
        failures=unbuilt + found,
        # a spent budget is "done, but" (3), like a short subset; not built, or a failure of ours: exit 1
        exit_code=SHORT_EXIT_CODE if short or stopped else 0,
        compare_to=beside_release(options, list(built)),
    )


def subsets_of(options: BuildOptions) -> list[str]:
    names = options.subsets or list(RELEASED)  # subsets of ours (pyver) only when named
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise ConfigurationError(f"unknown subset {unknown[0]!r}", hint=f"use some of: {', '.join(REGISTRY)}")
    return names


def llm_of(options: BuildOptions) -> tuple[LLMSettings, Budget]:
    """(the endpoint's settings, the run's budget), from the options over SURGE_LLM_*; half an endpoint
    (a URL and no model, or the reverse) is refused rather than silently answered from recordings."""
    from pipeline.llm.budget import Budget, parse_budget, require_prices

    settings = options.llm_settings()
    if bool(settings.base_url) != bool(settings.model):
        missing = (
            "--model (or SURGE_LLM_MODEL)" if settings.base_url else "--llm-base-url (or SURGE_LLM_BASE_URL)"
        )
        raise ConfigurationError(
            f"half an LLM endpoint: {missing} is not set",
            hint=f"give {missing} too, or neither for the recorded responses",
        )
    budget = parse_budget(options.budget) if options.budget is not None else Budget()
    require_prices(budget, bool(settings.price_prompt_per_1k or settings.price_completion_per_1k))
    return settings, budget


def profile_and_backend(options: BuildOptions) -> tuple[str, str]:
    """The one profile a build runs under, and its backend as --backend means everywhere: a profile whose
    toolchains live in an image runs in Docker."""
    from sandboxes.backends.registry import backend_for
    from sandboxes.profiles import get_profile

    profile = one_profile(options.profile, "build")
    return profile, backend_for(get_profile(profile), options.backend)


def one_profile(names: list[str] | None, command: str) -> str:
    """The single profile of a command that takes one (several are taken wherever programs run under
    each): more than one is refused, never silently cut to the first."""
    names = names or ["default"]
    if len(names) > 1:
        raise ConfigurationError(
            f"`surge {command}` takes one --profile, not {len(names)} ({', '.join(names)})",
            hint=f"run `surge {command}` once per profile",
        )
    return names[0]


def beside_release(options: BuildOptions, names: list[str]) -> dict[str, BesideRelease] | None:
    """compare_to: the built subsets beside the release's (pipeline/export/compare.py)."""
    if not options.compare_to or not names:
        return None
    from pipeline.export.compare import compare_store

    found = compare_store(options.store, options.compare_to, names)["subsets"]
    return {name: BesideRelease.model_validate(sides) for name, sides in found.items()}


def check_counts(options: BuildOptions) -> None:
    """n 0 used to build SURGE's full size: below 1 is refused before any work."""
    if options.n is not None and options.n < 1:
        raise ConfigurationError(
            f"--n must be at least 1, not {options.n}",
            hint="give --n 1 or more, or leave --n out for SURGE's Table 1 size",
        )


def check_items(items: str, names: list[str]) -> None:
    """One --items serves every subset of the command, read as pulled items by the refactor and prover
    subsets and as a repository manifest by rl: a path one of them cannot read is refused before any
    subset is built, not after the others have run."""
    if items == "samples":
        return
    for name in names:
        construction = REGISTRY[name].construction
        if construction is ConstructionMethod.REPOSITORY_SAMPLING:
            from pipeline.build.repository import read_manifest

            read_manifest(Path(items))
        elif construction in UPSTREAM_METHODS:
            from pipeline.refactor.items import check_items_path

            check_items_path(Path(items))


def unbuildable(name: str, spec: SubsetSpec) -> tuple[str, str] | None:
    """(why, how to fix it) when this machine or this version cannot build the subset at all."""
    if spec.build_batch is None or spec.plan_items is None:  # reported, not faked
        return f"construction method {spec.construction.value} is not wired for {name} yet", NO_BUILDER_FIX
    if why := missing_checker(spec):
        return why, NO_CHECKER_FIX
    return None


def missing_checker(spec: SubsetSpec) -> str:
    """Why a verified subset (fl) cannot be built here, before any prover is asked ('' if it can)."""
    if spec.construction is not ConstructionMethod.INFERENCE_VERIFICATION:
        return ""
    from pipeline.build.prove import missing_checker as checker_missing

    why = checker_missing()
    return f"no Lean checker: {why}" if why else ""


def recorded_subsets(names: list[str], configured: LLMSettings) -> list[str]:
    """The subsets built here whose LLM answers came from recorded responses: refactor subsets, with no
    endpoint set."""
    if configured.base_url and configured.model:
        return []
    return [n for n in names if REGISTRY[n].construction is ConstructionMethod.ITERATIVE_REFACTOR]


def llm_totals(built: dict[str, SubsetBuild]) -> LLMFigures:
    """The run's LLM figures over every subset it built."""
    each = [result.llm for result in built.values() if result.llm is not None]
    return LLMFigures(
        requests=sum(f.requests for f in each),
        cache_hits=sum(f.cache_hits for f in each),
        retries=sum(f.retries for f in each),
        prompt_tokens=sum(f.prompt_tokens for f in each),
        completion_tokens=sum(f.completion_tokens for f in each),
        cost_usd=round(sum(f.cost_usd for f in each), 6),
    )


def default_batch(spec: SubsetSpec, n: int) -> int:
    """Items per batch without a batch size: no more than the items the rows asked for need (`--n 3`
    planned a whole batch of 16 once; a dr snippet gives about two rows), except where most items are
    dropped (refactor subsets)."""
    if spec.construction is ConstructionMethod.ITERATIVE_REFACTOR:
        return BATCH_ITEMS
    return min(BATCH_ITEMS, spec.items_for(n))


def recorded_reason(result: SubsetBuild) -> str:
    return failures.recorded_reason(result.skipped, result.planned_items)


def failures_of(name: str, result: SubsetBuild) -> list[Failure]:
    """The failures of ours that left this subset's items unbuilt, each with its fix (exit 1)."""
    found = []
    for key, count in result.ours.items():
        kind = Ours(key.removeprefix("ours:"))
        if kind is Ours.BUDGET_SPENT:
            continue  # not a failure: said once, on the LLM line, and the exit code is 3
        detail = str(result.details.get(f"detail:{kind}", ""))
        if kind is Ours.NO_RECORDED_RESPONSE:
            if result.rows < result.n:  # recorded answers reached n: said on the line, not a failure
                found.append(
                    Failure(reason=f"{name}: {recorded_reason(result)}", fix=failures.recorded_fix())
                )
            continue
        reason, fix = failures.describe(kind, count, detail)
        found.append(Failure(reason=f"{name}: {reason}", fix=fix))
    return found
