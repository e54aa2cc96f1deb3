"""dr, the differential matrix: each snippet under g++/clang++ x C++03/11/14/17 x -O0/-O1/-O2/-O3/-Os.

All 40 settings of a batch's snippets go to one sandbox, which compiles each (content-addressed compile
cache) and runs identical binaries once (run memo), each run twice to see whether the output is stable.
A snippet is dropped if any setting's output changes between repeats, or if every setting composes the
same label; a kept snippet gives one row per distinct label (at most two, one for about a tenth of them,
drawn with the instance's seed, as SURGE's 200 rows come from 105 programs), keyed by the first setting
(in matrix order) that produced it, with ``dependencies`` = which of compiler, standard, optimisation
changes the label.
"""

from __future__ import annotations

import random
from itertools import product
from typing import TYPE_CHECKING

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.failures import Built
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import row, run_ref
from pipeline.dataset_rows import DatasetRow
from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Limits,
    PhaseLimits,
    RunRequest,
    RunResult,
    content_id,
)
from sandboxes.profiles import get_profile

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec

# SURGE's release: 200 rows from 105 distinct programs, 1.9 a program: a kept snippet gives two rows, or
# one for about one program in ten (chosen_labels draws which); dr's spec expects as many rows an item.
ROWS_PER_PROGRAM = 2
ONE_ROW_SHARE = 0.1
COMPILERS = ("g++", "clang++")
STANDARDS = ("03", "11", "14", "17")
LEVELS = ("O0", "O1", "O2", "O3", "Os")
KEYS: tuple[str, ...] = tuple(f"{c}-C++{s}--{o}" for c, s, o in product(COMPILERS, STANDARDS, LEVELS))
# One CPU second: a snippet's run that ends takes a few milliseconds (the longest of 2,800 in a
# 200-row build, 4 ms), and one that loops until the limit (an endless recursion that -O2 turns into a
# loop) is killed there in every repeat of every setting it loops under: at 5 s those runs were a tenth
# of dr's CPU. Its label is the same, the output before the kill and the limit's verdict.
# Wall time at ten times the CPU limit, as the other build steps have it: at twice, a program that loops
# until the CPU limit hit the wall limit first on a busy machine in one repeat and not the other, and its
# snippet was dropped as non-deterministic because of the machine's load, not the program.
LIMITS = Limits(run=PhaseLimits(cpu_s=1.0, wall_s=10.0))
# Probed first: a snippet unstable here is dropped without compiling its other 36 settings (the drop is
# the same one the full matrix would make: any unstable setting drops the snippet).
PROBE_KEYS = ("g++-C++03--O0", "clang++-C++17--O2", "g++-C++17--O3", "clang++-C++03--Os")


def settings(keys: tuple[str, ...] = KEYS) -> list[ExecutionSetting]:
    return [ExecutionSetting.from_surge_key(key) for key in keys]


def dependencies(labels: dict[str, str]) -> list[bool]:
    """[compiler, standard, optimisation]: does changing only that part of the key change the label?"""
    found = [False, False, False]
    for key, label in labels.items():
        compiler, std, level = key.split("-C++")[0], key.split("C++")[1][:2], key.rsplit("--", 1)[1]
        neighbours = (
            [f"{c}-C++{std}--{level}" for c in COMPILERS],
            [f"{compiler}-C++{s}--{level}" for s in STANDARDS],
            [f"{compiler}-C++{std}--{o}" for o in LEVELS],
        )
        for axis, keys in enumerate(neighbours):
            found[axis] |= any(labels.get(other, label) != label for other in keys)
    return found


def chosen_labels(first_key: dict[str, str], seed: int, draw: str, round_: int = 0) -> list[tuple[str, str]]:
    """The (label, key) pairs a program's rows take: a seeded order of them, ROWS_PER_PROGRAM per round
    (one for a seeded ONE_ROW_SHARE of programs), kept in matrix order. SURGE's 200 rows come from 105
    programs, and a snippet with one label per standard would otherwise fill the subset with few programs.
    A program without holes comes back unchanged in later rounds of the round robin (SURGE's own, with
    --templates): each round takes the next labels of the same order, so no two rows repeat one another."""
    pairs = list(first_key.items())
    order = list(range(len(pairs)))
    draws = random.Random(content_id("dr-labels", seed, draw))
    draws.shuffle(order)
    width = 1 if draws.random() < ONE_ROW_SHARE else ROWS_PER_PROGRAM
    chosen = order[round_ * ROWS_PER_PROGRAM : round_ * ROWS_PER_PROGRAM + width]
    return [pairs[position] for position in sorted(chosen)]


def build_snippets(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """(outcomes, candidate rows, failures of ours) for one batch of dr snippets, in two waves."""
    profile = get_profile(spec.build_profile_for(config.profile))  # surge-dr
    probes = _run(store, config, profile, items, PROBE_KEYS)
    # a probe that failed on our side is not stable either: the snippet waits for the next run
    stable = [
        i
        for i, item in enumerate(items)
        if not any(r.distinct_outputs > 1 or failures.of_run(r) for r in probes[i].values())
    ]
    rest = tuple(key for key in KEYS if key not in PROBE_KEYS)
    remaining = _run(store, config, profile, [items[i] for i in stable], rest)
    per_item = [
        probes[position] | (remaining[stable.index(position)] if position in stable else {})
        for position in range(len(items))
    ]
    return failures.judge_each(
        items,
        per_item,
        lambda item, runs: judge(spec, config, item, {key: runs[key] for key in KEYS if key in runs}),
    )


def _run(
    store: Store,
    config: BuildConfig,
    profile: EnvironmentProfile,
    items: list[BuildItem],
    keys: tuple[str, ...],
) -> list[dict[str, RunResult]]:
    matrix = settings(keys)
    requests = [
        RunRequest(program=item.program(), setting=setting, profile=profile, limits=LIMITS, repeats=2)
        for item in items
        for setting in matrix
    ]
    results = execute(store, requests, config.backend, config.unsafe, config.workers) if requests else []
    return [
        dict(zip(keys, results[i * len(keys) : (i + 1) * len(keys)], strict=True)) for i in range(len(items))
    ]


def judge(
    spec: SubsetSpec, config: BuildConfig, item: BuildItem, runs: dict[str, RunResult]
) -> tuple[BuildOutcome, list[DatasetRow]]:
    run_ids = tuple(run.run_id for run in runs.values())
    unstable = [key for key, run in runs.items() if run.distinct_outputs > 1]
    if unstable:
        reason = f"non-deterministic: the output changes between repeats under {unstable[0]}"
        return _outcome(config, item, "dropped", reason, (), run_ids), []
    labels = {key: run.label for key, run in runs.items()}
    if len(runs) < len(KEYS):
        return _outcome(
            config, item, "dropped", "non-deterministic (seen in the probe settings)", (), run_ids
        ), []
    if len(set(labels.values())) == 1:
        return _outcome(config, item, "dropped", "same output under all 40 settings", (), run_ids), []
    depends = dependencies(labels)
    first_key: dict[str, str] = {}
    for key, label in labels.items():
        first_key.setdefault(label, key)
    origin = item.program().origin
    draw = item.template if "round" in origin else str(item.index)
    picked = chosen_labels(first_key, config.seed, draw, int(origin.get("round", "0")))
    if not picked:
        reason = "every label already taken by an earlier instance of the same program"
        return _outcome(config, item, "dropped", reason, (), run_ids), []
    made = [
        row(
            spec,
            item,
            config.seed,
            item.program().files[0].content,
            label,
            {"dependencies": depends, "key": key},
            run_ref(runs[key]),
        )
        for label, key in picked
    ]
    return _outcome(config, item, "kept", "", tuple(r.row_id for r in made), run_ids), made
