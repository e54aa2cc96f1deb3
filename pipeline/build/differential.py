"""A differential across environment profiles: dr's filter with profiles in place of compiler settings.

Every item runs twice under each profile (one sandbox batch for all). An item is dropped, with the
reason, if a run fails or hits a limit, if an output changes between repeats, or if every profile prints
the same label; a kept item gives one row per distinct label, keyed (``custom_features.key``) by the
first profile, in the given order, that printed it. Used by subsets that build themselves (pyver).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.failures import Built
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import row, run_ref
from pipeline.dataset_rows import DatasetRow
from pipeline.records import Limits, PhaseLimits, RunRequest, RunResult, Verdict
from sandboxes.backends.registry import backend_for
from sandboxes.profiles import get_profile

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec

LIMITS = Limits(run=PhaseLimits(cpu_s=5.0, wall_s=20.0))


def build_differential(
    spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem], profiles: tuple[str, ...]
) -> Built:
    chosen = [get_profile(name) for name in profiles]
    requests = [
        RunRequest(program=item.program(), profile=profile, limits=LIMITS, repeats=2)
        for item in items
        for profile in chosen
    ]
    # One backend for all: the image backend when a profile needs it (the rule of every command).
    backend = next((backend_for(p, config.backend) for p in chosen if p.image), config.backend)
    results = execute(store, requests, backend, config.unsafe, config.workers) if requests else []
    width = len(profiles)
    per_item = [
        dict(zip(profiles, results[position * width : (position + 1) * width], strict=True))
        for position in range(len(items))
    ]
    # e.g. an image not built: the item waits for it, nothing recorded
    return failures.judge_each(items, per_item, lambda item, runs: judge(spec, config, item, runs))


def environment(run: RunResult) -> str:
    """What the prompt says the program runs with, e.g. 'Python 3.11.2 (profile current)'."""
    versions = "; ".join(run.provenance.toolchain_versions.values())
    return f"{versions} (profile {run.provenance.profile})" if versions else run.provenance.profile


def judge(
    spec: SubsetSpec, config: BuildConfig, item: BuildItem, runs: dict[str, RunResult]
) -> tuple[BuildOutcome, list[DatasetRow]]:
    run_ids = tuple(run.run_id for run in runs.values())
    for name, run in runs.items():
        reason = ""
        if run.verdict is not Verdict.OK:
            reason = f"{run.verdict.value} under {name}"
        elif run.distinct_outputs > 1:
            reason = f"non-deterministic: the output changes between repeats under {name}"
        if reason:
            return _outcome(config, item, "dropped", reason, (), run_ids), []
    first_key: dict[str, str] = {}
    for name, run in runs.items():
        first_key.setdefault(run.label.rstrip("\n"), name)
    if len(first_key) == 1:
        return _outcome(config, item, "dropped", "same output under every profile", (), run_ids), []
    made = [
        row(
            spec,
            item,
            config.seed,
            item.program().files[0].content,
            label,
            {"key": name, "environment": environment(runs[name]), "template": item.template},
            run_ref(runs[name]),
        )
        for label, name in first_key.items()
    ]
    return _outcome(config, item, "kept", "", tuple(r.row_id for r in made), run_ids), made
