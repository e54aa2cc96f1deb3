"""surge build against the same executions bare, measured in the same run.

- dr: the build's matrix (DR_SNIPPETS snippets x 40 settings, the 4 probe settings first) through the
  build's steps (sandbox, compile cache, run memo, Parquet store), 2 programs at a time.
- sc + tc (SCRIPTS rows each) end to end as one `surge build sc tc` command runs them: one engine, its
  Prefect API started inside the clock, the flow, the bwrap sandbox, the store.

Each is set against its own executions done again bare (bench/bare.py): the compiles, runs and repeats
the sandbox was asked for and carried out, recorded at ``sandboxes.open_backend`` as the build runs,
replayed as many at a time and batch after batch. So tc's calibration ladders and its timing copies
(two per item, a third where they disagree) are in the baseline because the build ran them: the bare
loop this replaced planned tc without a calibration and ran neither, and its ratio read 8.4. What the
ratio measures is the build's machinery on top of its programs; what the build's choices save (the
probe drop, the compile cache, runs shared between identical binaries) is counted apart, since a bare
loop doing less work than the build is no baseline for it.

tc runs TC_MIX, not SURGE's mix: SURGE's puts 20 of 150 instances past 10 CPU-seconds, about 1,300 CPU-s
a copy, so the two sides alone took longer than `make bench` may; a long program costs the same bare and
boxed, and only dilutes the figure. The bins up to 10 s keep the full calibration ladders, the timing
copies and a spread of sizes. Sizes: SURGE_BENCH_DR_SNIPPETS, SURGE_BENCH_SCRIPTS.

Figures:
  build_dr_snippets                      snippets in the matrix
  build_dr_vs_bare_same_runs_ratio       the matrix's wall time / its executions bare
  build_dr_bare_s                        the latter
  build_dr_compiles_avoided              cache hits + settings never compiled after a probe drop
  build_dr_runs_shared_identical_binary  runs answered by an identical binary's run
  build_sc_tc_rows                       rows asked of each of sc and tc
  build_sc_tc_vs_bare_same_runs_ratio    both builds' wall time / their executions bare
  build_sc_tc_bare_s                     the latter
  build_sc_tc_program_runs               program runs in both (repeats and copies counted)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare import Recorded  # noqa: E402
from harness import require_tools, size  # noqa: E402

from pipeline.build import dr, steps  # noqa: E402
from pipeline.build.records import BuildConfig, outcome_table  # noqa: E402
from pipeline.store import Store  # noqa: E402

# Sizes for `make bench` under 30 minutes on 2 cores: 20 snippets and 150 rows took 11 minutes here.
DR_SNIPPETS = size(10, 1, "SURGE_BENCH_DR_SNIPPETS")
SCRIPTS = size(60, 2, "SURGE_BENCH_SCRIPTS")
TC_REPEATS = 3
TC_MIX = "<0.1s=130,0.1-1s=10,1-10s=10,10-30s=0,>=30s=0"
FIGURES = (
    "build_dr_snippets",
    "build_dr_vs_bare_same_runs_ratio",
    "build_dr_bare_s",
    "build_dr_compiles_avoided",
    "build_dr_runs_shared_identical_binary",
    "build_sc_tc_rows",
    "build_sc_tc_vs_bare_same_runs_ratio",
    "build_sc_tc_bare_s",
    "build_sc_tc_program_runs",
)


def timed_matrix(config: BuildConfig, store_root: Path) -> float:
    """Exactly DR_SNIPPETS snippets through the build's steps (the flow would stop at n rows)."""
    store = Store(store_root)
    started = time.perf_counter()
    steps.plan_round(store, config, 0, DR_SNIPPETS)
    for batch in range(-(-DR_SNIPPETS // config.batch_size)):
        steps.build_batch(store, config, batch)
    return time.perf_counter() - started


def timed_builds(configs: list[BuildConfig], store: Path) -> float:
    """The subsets built one after another in one engine, as one `surge build` command builds them."""
    from flows.engine import Engine

    started = time.perf_counter()
    with Engine():
        from flows.build_subset import run_build  # Prefect is imported once the engine configured it

        for config in configs:
            summary = run_build(config, store, SCRIPTS)
            assert not summary.get("ours"), summary
    return time.perf_counter() - started


def compiles_avoided(store: Store) -> tuple[int, int]:
    """(compiles avoided, runs shared): cache hits and settings never compiled after a probe drop."""
    hits = shared = 0
    for run in store.runs.records():
        hits += bool(run.compile and run.compile.detail.startswith("compile cache hit"))
        shared += bool(run.run and run.run.detail.startswith("shared run"))
    dropped = [o for o in outcome_table(store).records() if o.status == "dropped"]
    probe_drops = sum("probe" in o.reason or o.reason.endswith(tuple(dr.PROBE_KEYS)) for o in dropped)
    skipped = probe_drops * (len(dr.KEYS) - len(dr.PROBE_KEYS))
    return hits + skipped, shared


def run() -> dict[str, float]:
    require_tools("bwrap", "g++", "clang++-19")  # dr's matrix compiles with both
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        os.environ["SURGE_COMPILE_CACHE"] = str(root / "compile-cache")  # cold: no earlier run helps
        dr_config = BuildConfig(subset="dr", seed=0, batch_size=4)
        with Recorded() as matrix:
            built_s = timed_matrix(dr_config, root / "dr")
        dr_bare = matrix.replay_seconds()
        avoided, shared = compiles_avoided(Store(root / "dr"))
        print(f"   dr: {avoided} compiles avoided, {shared} runs shared", flush=True)

        batch = max(1, SCRIPTS // 10)
        sc = BuildConfig(subset="sc", seed=0, batch_size=batch)
        tc = BuildConfig(subset="tc", seed=0, repeats=TC_REPEATS, batch_size=batch, time_mix=TC_MIX)
        with Recorded() as scripts:
            scripts_s = timed_builds([sc, tc], root / "scripts")
        scripts_bare = scripts.replay_seconds()
    return {
        "build_dr_snippets": float(DR_SNIPPETS),
        "build_dr_vs_bare_same_runs_ratio": built_s / dr_bare.seconds,
        "build_dr_bare_s": dr_bare.seconds,
        "build_dr_compiles_avoided": float(avoided),
        "build_dr_runs_shared_identical_binary": float(shared),
        "build_sc_tc_rows": float(SCRIPTS),
        "build_sc_tc_vs_bare_same_runs_ratio": scripts_s / scripts_bare.seconds,
        "build_sc_tc_bare_s": scripts_bare.seconds,
        "build_sc_tc_program_runs": float(scripts_bare.runs),
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<40} {value:12.3f}")
