"""Manual implementation, sc and tc: run each template instance, label it with its stdout.

sc runs each instance twice (a label must be stable); tc runs it twice as separate requests and, only
where those two CPU times differ by more than ``TIMING_AGREEMENT``, up to ``repeats`` times in all, and
records the CPU time (user + system) as the median, the spread (min, max) kept, and a time bin. tc's
longest bins are most of a build's CPU: a third copy of a 40-second run whose two copies agree to a few
percent moves its median by less than that, so it is spent only where the copies disagree.

Dropped, with the reason: a run that fails, hits a limit, or prints differently between repeats. Every row
records its family (the template), parameters and time bin; tc rows drawn for a bin
(pipeline/build/spread.py) also the bin they were drawn for. A failure of ours (sandbox, missing
toolchain) is not an outcome: the item is tried again by the next run (pipeline/build/failures.py).
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.failures import Built
from pipeline.build.records import TIMING_AGREEMENT, BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import row, run_ref
from pipeline.build.spread import AIM_S, time_bin
from pipeline.dataset_rows import DatasetRow
from pipeline.questions import script_question
from pipeline.records import Limits, PhaseLimits, RunRequest, RunResult, Verdict
from sandboxes.profiles import get_profile

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec

LIMITS = Limits(run=PhaseLimits(cpu_s=30.0, wall_s=300.0))
# Instances drawn for the two longest bins may run past 30 s (SURGE's longest tc records ran ~146 s):
# their cap is 90 s. Wall time is generous since the cores are shared and only CPU time is a fact here.
LONG_LIMITS = Limits(run=PhaseLimits(cpu_s=90.0, wall_s=900.0))
LONG_BINS = ("10-30s", ">=30s")


def limits_for(item: BuildItem) -> Limits:
    return LONG_LIMITS if item.program().origin.get("target_bin") in LONG_BINS else LIMITS


def cpu_s(run: RunResult) -> float:
    phase = run.run
    return 0.0 if phase is None else phase.cpu_user_s + phase.cpu_sys_s


def build_scripts(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """(outcomes, candidate rows, failures of ours) for one batch of sc items: two repeats each."""
    return _build(spec, store, config, items, timed=False)


def build_timed_scripts(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """The same for tc: ``config.repeats`` copies each, one after the other, for the CPU-time median."""
    return _build(spec, store, config, items, timed=True)


def _build(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem], timed: bool) -> Built:
    per_item = (
        _timed_copies(store, config, items)
        if timed
        else [[run] for run in _stable_runs(store, config, items)]
    )
    return failures.judge_each(items, per_item, lambda item, runs: judge(spec, config, item, runs, timed))


def _requests(config: BuildConfig, items: list[BuildItem], copies: int, repeats: int) -> list[RunRequest]:
    profile = get_profile(config.profile)
    return [
        RunRequest(program=item.program(), profile=profile, limits=limits_for(item), repeats=repeats)
        for item in items
        for _ in range(copies)
    ]


def _stable_runs(store: Store, config: BuildConfig, items: list[BuildItem]) -> list[RunResult]:
    """sc: one request per item, repeated twice inside the sandbox (a label must be stable)."""
    return execute(store, _requests(config, items, 1, 2), config.backend, config.unsafe, config.workers)


def _copies(store: Store, config: BuildConfig, items: list[BuildItem], copies: int) -> list[RunResult]:
    """tc: ``copies`` separate requests per item, results in item order. They share a run id and each
    one's CPU time is a new fact, so none is served from the store. They run longest first (by the bin
    each instance was drawn for): a 40-second instance left for the end of a batch ran with the other
    core idle."""
    order = sorted(range(len(items)), key=lambda position: -_aimed_s(items[position]))
    requests = _requests(config, [items[position] for position in order], copies, 1)
    ran = execute(store, requests, config.backend, config.unsafe, config.workers, reuse=False)
    by_position = {position: ran[rank * copies : (rank + 1) * copies] for rank, position in enumerate(order)}
    return [run for position in range(len(items)) for run in by_position[position]]


def _aimed_s(item: BuildItem) -> float:
    """The most CPU seconds the item's instance was drawn for (0 when it was not drawn for a bin)."""
    target = item.program().origin.get("target_bin")
    return AIM_S[target][1] if target in AIM_S else 0.0


def _timed_copies(store: Store, config: BuildConfig, items: list[BuildItem]) -> list[list[RunResult]]:
    """tc: two copies of every item (one if ``repeats`` is 1), then the rest of ``repeats`` only for the
    items whose two copies finished with CPU times further apart than ``TIMING_AGREEMENT``."""
    first = min(config.repeats, 2)
    results = _copies(store, config, items, first)
    per_item = [results[position * first : (position + 1) * first] for position in range(len(items))]
    unsettled = [p for p, runs in enumerate(per_item) if _needs_more(runs) and config.repeats > first]
    more = config.repeats - first
    extra = _copies(store, config, [items[p] for p in unsettled], more) if unsettled else []
    for order, position in enumerate(unsettled):
        per_item[position] += extra[order * more : (order + 1) * more]
    return per_item


def _needs_more(runs: list[RunResult]) -> bool:
    """Two finished copies that agree on their verdict but not, within the agreement, on CPU time."""
    if len(runs) < 2 or any(failures.of_run(r) is not None or r.verdict is not Verdict.OK for r in runs):
        return False  # a failure of ours or the item's: judged as it is, no more copies
    times = [cpu_s(r) for r in runs]
    return max(times) - min(times) > TIMING_AGREEMENT * max(max(times), 1e-9)


def judge(
    spec: SubsetSpec, config: BuildConfig, item: BuildItem, runs: list[RunResult], timed: bool
) -> tuple[BuildOutcome, list[DatasetRow]]:
    first = runs[0]
    run_ids = (first.run_id,)
    # tc's copies are repeats run as separate requests (each one's CPU time is a fact): they must agree
    # on everything the row claims, their verdicts included, not only on the label's text
    distinct = len({r.outcome for r in runs}) if len(runs) > 1 else first.distinct_outputs
    reason = ""
    if first.verdict is not Verdict.OK:
        tail = (first.run.stderr if first.run else "").strip().splitlines()[-1:] or [""]
        reason = f"{first.verdict.value}: {tail[0][:200]}".rstrip(": ")
    elif distinct > 1:
        reason = "non-deterministic: the output changes between repeats"
    if reason:
        return _outcome(config, item, "dropped", reason, (), run_ids), []
    program = item.program()
    times = sorted(cpu_s(r) for r in runs)
    median_s = statistics.median(times)
    features: dict[str, object] = {"qid": f"{item.subset}_s{config.seed}_{item.index}", "fid": item.template}
    if timed:  # tc's time is text, as released; sc's a float of seconds
        features["time"] = f"{median_s:.4f} seconds"
        # all three rounded alike: rounding is monotone, so the median stays inside its spread
        spread_s = [round(times[0], 4), round(times[-1], 4)]
        features |= {"cpu_s_median": round(median_s, 4), "cpu_s_spread": spread_s}
    else:
        features["time"] = round(median_s, 4)
    features |= family_features(item, program.argv, median_s)
    made = row(
        spec,
        item,
        config.seed,
        script_question(program),
        first.label.rstrip("\n"),
        features,
        run_ref(first, repeats=max(len(runs), first.repeats), distinct=distinct),
        domain=item.domain,  # the sc/tc prompt opens with it
    )
    return _outcome(config, item, "kept", "", (made.row_id,), run_ids), [made]


def family_features(item: BuildItem, argv: tuple[str, ...], cpu_s: float) -> dict[str, object]:
    """Where a row comes from: its family (the template), command-line parameters, the bin its measured
    CPU time falls in and (tc, planned for a bin) the bin it was drawn for."""
    features: dict[str, object] = {
        "family": item.template.removesuffix(".py"),
        "params": parameters(argv),
        "time_bin": time_bin(cpu_s),
    }
    if target := item.program().origin.get("target_bin"):
        features["target_bin"] = target
    return features


def parameters(argv: tuple[str, ...]) -> dict[str, str]:
    """``--name value`` and ``--name=value`` pairs as {name: value}; a bare word is kept by position."""
    found: dict[str, str] = {}
    words = list(argv)
    while words:
        word = words.pop(0)
        if word.startswith("--") and "=" in word:
            name, _, value = word[2:].partition("=")
            found[name] = value
        elif word.startswith("--"):
            found[word[2:]] = words.pop(0) if words and not words[0].startswith("--") else ""
        else:
            found[str(len(found))] = word
    return found


def _outcome(
    config: BuildConfig,
    item: BuildItem,
    status: str,
    reason: str,
    row_ids: tuple[str, ...],
    run_ids: tuple[str, ...],
) -> BuildOutcome:
    return BuildOutcome(
        build_key=config.build_key,
        subset=item.subset,
        item_id=item.item_id,
        index=item.index,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        row_ids=row_ids,
        run_ids=run_ids,
    )
