"""The build's steps as plain functions over the store (the flow in flows/build_subset.py calls them).

Each takes references (store root, config, batch number) and returns counts, so it can be a Prefect task
without data passing through the orchestrator, and is tested without the engine. This is the build's
driver: it looks the config's subset up in the registry and hands the spec to the construction method
the spec holds (``plan_items``, ``build_batch``), which never looks a spec up itself.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pipeline.build import failures, spend
from pipeline.build.failures import OurFailure
from pipeline.build.plan import read_batch
from pipeline.build.records import (
    BuildConfig,
    BuildItem,
    BuildOutcome,
    candidate_table,
    outcome_table,
    plan_table,
)
from pipeline.dataset_rows import DatasetRow, dataset_table
from pipeline.errors import ConfigurationError
from pipeline.review import queue_of
from pipeline.review.queue import ReviewQueue
from pipeline.store import Store
from pipeline.subsets import subset_spec


def outcomes(store: Store, build_key: str) -> dict[str, BuildOutcome]:
    """item_id -> outcome, for one build (the first recorded, if a batch was ever retried). A drop that
    an earlier version recorded for a failure of ours (a missing image...) is no outcome: retried."""
    found: dict[str, BuildOutcome] = {}
    for outcome in outcome_table(store).records(where={"build_key": build_key}):
        if outcome.status == "dropped" and failures.recorded_by_mistake(outcome.reason):
            continue
        found.setdefault(outcome.item_id, outcome)
    return found


def plan_round(store: Store, config: BuildConfig, start: int, count: int) -> int:
    """Plan instances [start, start+count); return how many exist (fewer: the items ran out)."""
    return write_plan(store, config, start, count)


def plan_items(config: BuildConfig, start: int, count: int) -> list[BuildItem]:
    """The subset's spec plans its instances (SubsetSpec.plan_items); a spec without a planner is refused."""
    spec = subset_spec(config.subset)
    if spec.plan_items is None:
        raise ConfigurationError(
            f"subset {config.subset!r} has no build planner",
            hint="give its spec plan_items and build_batch (docs/build.md, 'Adding a subset')",
        )
    return spec.plan_items(spec, config, start, count)


def write_plan(store: Store, config: BuildConfig, start: int, count: int) -> int:
    """Plan instances [start, start+count) unless already planned; return how many instances the range
    holds (fewer than ``count``: the items, the manifest or the samples have run out)."""
    table = plan_table(store)
    known = table.existing_ids()
    items = plan_items(config, start, count)
    table.append(item for item in items if item.item_id not in known)
    table.flush()
    return len(items)


def round_size(store: Store, config: BuildConfig, n: int, planned: int, most: int) -> int:
    """How many instances the round from ``planned`` plans: what is wanted, within ``most`` planned in
    all (the refactor subsets' whole batches may pass it).

    The first round plans n / the rows an item is expected to give (the spec's ``rows_per_item``: a dr
    snippet gives about 1.9, and one item per row built a third of dr's items for nothing); a later
    round, the rows still wanted divided by the rows per item measured so far (one per item while no
    row is kept). Not whole batches: the items past what n rows need were built for nothing (in tc, a
    last whole batch held long instances costing a minute of CPU). The refactor subsets (ml, cl, bg)
    still plan whole batches: a batch's items are refactored concurrently, and where the recorded
    responses answer, most items are dropped. The first round depends on n alone, so a rerun plans the
    same items and skips the built ones, and a larger n plans a longer prefix of the same sequence.
    Which rows a build keeps never depends on this: they are the first n in item order of a prefix of
    the seeded sequence.
    """
    if planned == 0:
        wanted = subset_spec(config.subset).items_for(n)
    else:
        found = outcomes(store, config.build_key).values()
        rows = sum(len(o.row_ids) for o in found if o.status == "kept")
        wanted = -(-(n - rows) * len(found) // rows) if rows else n - rows
    wanted = max(1, min(wanted, most - planned))
    if subset_spec(config.subset).plans_whole_batches:
        return -(-wanted // config.batch_size) * config.batch_size
    return wanted


def batches_of(config: BuildConfig, start: int, count: int) -> range:
    """The batch numbers that hold instances [start, start + count) (a batch is index // batch_size, so
    a round that began inside the last round's batch adds to it: that batch builds only its new items)."""
    if count <= 0:
        return range(0)
    return range(start // config.batch_size, (start + count - 1) // config.batch_size + 1)


def build_batch(store: Store, config: BuildConfig, batch: int) -> dict[str, Any]:
    """Execute one planned batch's unfinished items; write outcomes and candidate rows. Counts back,
    with each kind of failure of ours (``ours:<kind>``) and the first item's place it left undone."""
    done = outcomes(store, config.build_key)
    items = [item for item in read_batch(store, config.build_key, batch) if item.item_id not in done]
    if not items:
        return {"kept": 0, "dropped": 0, "kept_rows": 0, "skipped": 1}
    spec = subset_spec(config.subset)
    step = spec.build_batch  # the construction method's step, which the spec holds
    if step is None:
        raise ConfigurationError(
            f"subset {config.subset!r} has no build step",
            hint="give its spec a build_batch (docs/build.md, 'Adding a subset')",
        )
    new_outcomes, rows, ours = step(spec, store, config, items)
    candidates = candidate_table(store)
    candidates.append(rows)
    candidates.flush()
    table = outcome_table(store)  # outcomes last: an item counts as done only once its rows are stored
    table.append(new_outcomes)
    table.flush()
    status = Counter(o.status for o in new_outcomes)
    kept_rows = sum(len(o.row_ids) for o in new_outcomes if o.status == "kept")  # the progress bar's rows
    counts = {"kept": status["kept"], "dropped": status["dropped"], "kept_rows": kept_rows, "skipped": 0}
    return counts | ours_counts(ours)


def ours_counts(ours: list[OurFailure]) -> dict[str, Any]:
    """{'ours:<kind>': items, 'detail:<kind>': what the first said, 'first_undone': the earliest place a
    transient failure left undone}: counts and one short line each, never the items themselves."""
    counts: dict[str, Any] = {f"ours:{k}": c for k, c in Counter(f.kind.value for f in ours).items()}
    for failure in reversed(ours):
        counts[f"detail:{failure.kind.value}"] = failure.detail
    transient = [f.index for f in ours if f.kind.transient]
    return counts | ({"first_undone": min(transient)} if transient else {})


def kept_rows(store: Store, build_key: str) -> int:
    return progress_counts(store, build_key)[1]


def progress_counts(store: Store, build_key: str) -> tuple[int, int]:
    """(items with an outcome, rows kept) for one build, as stored: where a rerun's progress starts."""
    found = outcomes(store, build_key).values()
    return len(found), sum(len(o.row_ids) for o in found if o.status == "kept")


def chosen_rows(store: Store, config: BuildConfig, n: int, before: int | None = None) -> list[DatasetRow]:
    """The first n candidate rows in item order (rows of items from ``before`` on wait: see write_dataset)."""
    by_id = {row.row_id: row for row in candidate_table(store).records(where={"subset": config.subset})}
    chosen: list[DatasetRow] = []
    for outcome in sorted(outcomes(store, config.build_key).values(), key=lambda o: o.index):
        if before is not None and outcome.index >= before:
            break
        chosen += [by_id[row_id] for row_id in outcome.row_ids if row_id in by_id]
    select = subset_spec(config.subset).select_rows
    return select(chosen, n) if select else chosen[:n]


def write_dataset(store: Store, config: BuildConfig, n: int, before: int | None = None) -> int:
    """The first n candidate rows in item order become the subset's rows in the dataset table. ``before``:
    the first place a failure of ours left undone; rows of later items wait, since that item, once built
    by the next run, may take their place among the first n (the dataset table only ever grows)."""
    chosen = chosen_rows(store, config, n, before)
    table = dataset_table(store)
    known = table.existing_ids()
    table.append(row for row in chosen if row.row_id not in known)
    table.flush()
    return len(chosen)


def calibrate(store: Store, config: BuildConfig, n: int) -> BuildConfig:
    """tc: the config with its templates' calibrations (measured as far as the bins n rows aim at need;
    stored, reused) and its timing rule (``timed``: part of the build key); other subsets' configs
    unchanged."""
    spec = subset_spec(config.subset)
    if not spec.time_bins:
        return config
    config = config.model_copy(update={"timed": True})
    from pipeline.build import calibrate as calibration
    from pipeline.build.plan import script_templates
    from pipeline.build.spread import parse_mix, targets

    wanted = {name for name, count in targets(parse_mix(config.time_mix), n).items() if count}
    budget_s = calibration.budget_for(wanted)
    return calibration.calibrated(store, config, script_templates(spec, config), budget_s)


def spread(store: Store, config: BuildConfig, n: int, before: int | None = None) -> dict[str, dict[str, int]]:
    """tc: rows per time bin of the subset's n rows, against the mix's target for n ({} for others)."""
    if not subset_spec(config.subset).time_bins:
        return {}
    from pipeline.build.spread import BIN_NAMES, parse_mix, targets

    built = Counter(
        str(row.custom_features.get("time_bin", "")) for row in chosen_rows(store, config, n, before)
    )
    target = targets(parse_mix(config.time_mix), n)
    return {name: {"target": target[name], "built": built.get(name, 0)} for name in BIN_NAMES}


def summary(store: Store, config: BuildConfig) -> dict[str, Any]:
    """Kept and dropped items, with each drop reason counted (nothing disappears silently)."""
    found = outcomes(store, config.build_key).values()
    reasons = Counter(o.reason.split(":")[0] for o in found if o.status == "dropped")
    waiting = 0
    spec = subset_spec(config.subset)
    reviewed = spec.refactors and spec.upstream_sources
    if reviewed and queue_of(store.root).exists():
        waiting = ReviewQueue(queue_of(store.root)).counts().get("pending", 0)
    llm = spend.totals(store, config.llm_run, config.subset) if reviewed else {}
    return {
        "llm": llm,
        "awaiting_review": waiting,
        "items": len(found),
        "kept_items": sum(o.status == "kept" for o in found),
        "dropped_items": sum(o.status == "dropped" for o in found),
        "drop_reasons": dict(reasons),
    }
