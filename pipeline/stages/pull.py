"""The pull stage: check out upstream sources at their pinned commits and store their items as Parquet."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pipeline.errors import ConfigurationError
from pipeline.observe import Observer, tell, watched_by
from pipeline.stage_results import Failure, StageResult
from pipeline.stages.options import PullOptions


class QuarantinedLine(BaseModel):
    location: str
    reason: str


class SourcePulled(BaseModel):
    """One source: the commit pulled and its items, or why it could not be pulled and how to fix it."""

    commit: str | None = None
    url: str | None = None
    items: int = 0
    new_items: int = 0
    quarantined: int = 0
    lfs_files: int = 0
    quarantine: list[QuarantinedLine] = Field(default_factory=list, description="the first few, shown")
    error: str | None = None
    hint: str | None = None


class PullSummary(StageResult):
    """What `surge pull` stored, per source, and which sources failed."""

    sources: dict[str, SourcePulled]
    store: str
    failed: list[str]


def pull(options: PullOptions, *, observer: Observer | None = None) -> PullSummary:
    """Check out upstream sources at their pinned commits and store their items (`surge pull`)."""
    from flows.engine import using_engine
    from flows.runtime import default_workers
    from sources.registry import SOURCES, get_source

    names = list(dict.fromkeys(options.sources)) or list(SOURCES)
    for name in names:
        get_source(name)  # unknown names fail here, with the list of known ones
    mirrors = per_source("--mirror", options.mirror, names, set(SOURCES))
    commits = per_source("--commit", options.commit, names, set(SOURCES))
    workers = min(len(names), options.workers or default_workers())
    tell(observer, "pull", "started", ", ".join(names))
    with using_engine(), watched_by(observer):  # Prefect's settings are made before the flow is imported
        from flows.pull_sources import pull_flow

        results = pull_flow(names, options.cache, options.store, mirrors, commits, workers)
    pulled = {name: SourcePulled.model_validate(result) for name, result in results.items()}
    failed = sorted(name for name, result in pulled.items() if result.error is not None)
    return PullSummary(
        sources=pulled,
        store=str(options.store),
        failed=failed,
        # a source that could not be pulled (offline, a bad mirror, LFS pointers) is ours: exit 1, each
        # with its one line and fix; the other sources' items are kept
        failures=[
            Failure(reason=f"{name}: {pulled[name].error}", fix=pulled[name].hint or "") for name in failed
        ],
    )


def per_source(option: str, values: list[str], names: list[str], known: set[str]) -> dict[str, str]:
    """'mceval=/srv/McEval' -> {'mceval': '/srv/McEval'}; a bare value needs exactly one source."""
    chosen: dict[str, str] = {}
    for value in values:
        name, sep, target = value.partition("=")
        if sep and name in known:
            if name not in names:
                raise ConfigurationError(
                    f"{option} {value}: {name} is not being pulled", hint=f"add {name} to SOURCE"
                )
            chosen[name] = target
        elif len(names) == 1:
            chosen[names[0]] = value
        else:
            raise ConfigurationError(
                f"{option} {value} is ambiguous with {len(names)} sources",
                hint=f"write it as {option} SOURCE=VALUE",
            )
    return chosen


def failure_of(name: str, pulled: SourcePulled) -> Failure:
    return Failure(reason=f"{name}: {pulled.error}", fix=pulled.hint or "")
