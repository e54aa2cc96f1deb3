"""surge build against a bare loop of the same work, measured in the same run (issue 12).

- dr: the build's matrix (20 snippets x 40 settings by default) vs a bare loop that compiles every
  setting with the host's g++/clang++-19 and runs each binary twice. Goal: at most 0.6x.
- sc + tc at full size (150 + 150) end to end (Prefect flow, bwrap sandbox, Parquet store) vs a bare
  loop that runs the same scripts with the same argv the same number of times. Goal: at most 1.2x.

Sizes can be lowered for a quick look (SURGE_BENCH_DR_SNIPPETS, SURGE_BENCH_SCRIPTS); the figures name
the sizes they were measured at.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flows.runtime import configure_prefect  # noqa: E402

configure_prefect()  # before Prefect is imported, as a command's engine does

from flows.build_subset import run_build  # noqa: E402
from pipeline.build import dr, steps  # noqa: E402
from pipeline.build.plan import plan_items  # noqa: E402
from pipeline.build.records import BuildConfig, outcome_table  # noqa: E402
from pipeline.store import Store  # noqa: E402

DR_SNIPPETS = int(os.environ.get("SURGE_BENCH_DR_SNIPPETS", "20"))
SCRIPTS = int(os.environ.get("SURGE_BENCH_SCRIPTS", "150"))
TC_REPEATS = 3
TOOLS = {"g++": "g++", "clang++": "clang++-19"}


def bare_dr(config: BuildConfig, folder: Path) -> float:
    started = time.perf_counter()
    for item in plan_items(config, 0, DR_SNIPPETS):
        (folder / "test.cpp").write_text(item.program().files[0].content)
        for setting in dr.settings():
            argv = [TOOLS[setting.compiler or "g++"], f"-std={setting.standard}", f"-{setting.optimization}"]
            compiled = subprocess.run(
                [*argv, "test.cpp", "-o", "test", "-lm"], cwd=folder, capture_output=True
            )
            if compiled.returncode == 0:
                for _ in range(2):
                    subprocess.run(["./test"], cwd=folder, capture_output=True, timeout=10)
    return time.perf_counter() - started


def bare_scripts(config: BuildConfig, folder: Path, runs: int) -> float:
    started = time.perf_counter()
    for item in plan_items(config, 0, SCRIPTS):  # the flow plans the items n rows need
        program = item.program()
        (folder / program.entry_file.path).write_text(program.entry_file.content)
        for _ in range(runs):
            subprocess.run(
                ["python3", program.entry_file.path, *program.argv], cwd=folder, capture_output=True
            )
    return time.perf_counter() - started


def timed_build(config: BuildConfig, store: Path, n: int) -> float:
    started = time.perf_counter()
    run_build(config, store, n)
    return time.perf_counter() - started


def timed_matrix(config: BuildConfig, store_root: Path) -> float:
    """Exactly DR_SNIPPETS snippets through the build's steps (the flow would stop at n rows)."""
    store = Store(store_root)
    started = time.perf_counter()
    steps.plan_round(store, config, 0, DR_SNIPPETS)
    for batch in range(-(-DR_SNIPPETS // config.batch_size)):
        steps.build_batch(store, config, batch)
    return time.perf_counter() - started


def compiles_avoided(store: Store, config: BuildConfig) -> tuple[int, int]:
    """(compiles avoided, runs shared): cache hits and settings never compiled after a probe drop."""
    hits = shared = 0
    for run in store.runs.records():
        hits += bool(run.compile and run.compile.detail.startswith("compile cache hit"))
        shared += bool(run.run and run.run.detail.startswith("shared run"))
    probe_drops = sum("probe" in o.reason or o.reason.endswith(tuple(dr.PROBE_KEYS)) for o in _dropped(store))
    skipped = probe_drops * (len(dr.KEYS) - len(dr.PROBE_KEYS))
    return hits + skipped, shared


def _dropped(store: Store) -> list:
    return [o for o in outcome_table(store).records() if o.status == "dropped"]


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        os.environ["SURGE_COMPILE_CACHE"] = str(root / "compile-cache")  # cold: no earlier run helps
        dr_config = BuildConfig(subset="dr", seed=0, batch_size=4)
        (root / "bare").mkdir()
        bare_s = bare_dr(dr_config, root / "bare")
        built_s = timed_matrix(dr_config, root / "dr")
        avoided, shared = compiles_avoided(Store(root / "dr"), dr_config)
        figures[f"build_dr_{DR_SNIPPETS}x40_vs_bare_loop_ratio"] = built_s / bare_s
        figures["build_dr_compiles_avoided"] = avoided
        figures["build_dr_runs_shared_identical_binary"] = shared
        figures["build_dr_bare_loop_s"] = bare_s
        print(f"   dr: {avoided} compiles avoided, {shared} runs shared", flush=True)

        batch = max(1, SCRIPTS // 10)
        sc = BuildConfig(subset="sc", seed=0, batch_size=batch)
        tc = BuildConfig(subset="tc", seed=0, repeats=TC_REPEATS, batch_size=batch)
        bare_s = bare_scripts(sc, root / "bare", 2) + bare_scripts(tc, root / "bare", TC_REPEATS)
        store = root / "scripts"
        built_s = timed_build(sc, store, SCRIPTS) + timed_build(tc, store, SCRIPTS)
        figures[f"build_sc{SCRIPTS}_tc{SCRIPTS}_vs_bare_loop_ratio"] = built_s / bare_s
        figures["build_sc_tc_bare_loop_s"] = bare_s
    return figures
