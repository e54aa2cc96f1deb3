"""ml, cl and bg from pulled upstreams through an endpoint: the stand-in (tests/standin).

`surge pull` of the four generated stand-in repositories, then `surge build ml cl bg --n N
--auto-approve` against the stand-in endpoint (each answer delayed ``SURGE_BENCH_LLM_LATENCY_S``, default
0.1 s, like a fast model), ``--llm-concurrency 4``; then the same command again (every item decided:
nothing asked) and the same build into a new store with the same response cache (every answer a cache
hit). The model never fails here, so the figures are the machinery's. N: 48 rows per subset, or
SURGE_BENCH_STANDIN_N.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import TINY, commands_share_one_api, require_tools, size, timed_surge  # noqa: E402

from tests.standin.server import MODEL, StandInServer  # noqa: E402
from tests.standin.upstreams import PER_LANGUAGE as PER_LANGUAGE_FULL  # noqa: E402
from tests.standin.upstreams import generate  # noqa: E402

# Three whole batches per subset (16 rows took 50 s in all here): SURGE's 150 rows took 17 minutes for
# the four commands when docs/build.md's table was measured, too much of `make bench`'s 30 minutes;
# SURGE_BENCH_STANDIN_N=150 measures that size.
N = size(48, 1, "SURGE_BENCH_STANDIN_N")
PER_LANGUAGE = 1 if TINY else PER_LANGUAGE_FULL  # tiny: a stand-in of 6 + 6 + 3 + 3 items
BATCH_SIZE = 1 if TINY else None  # tiny: one item a batch (else the command's default, 16)
LATENCY_S = float(os.environ.get("SURGE_BENCH_LLM_LATENCY_S", "0.1"))
CONCURRENCY = 4
TIMEOUT_S = 3600
SUBSETS = ("ml", "cl", "bg")
# the languages the stand-in's items are in, and git for its repositories (tests/build/test_standin_build.py)
TOOLS = ("git", "bwrap", "gcc", "g++", "mcs", "mono", "javac", "java", "rustc", "python3")
FIGURES = (
    "standin_ml_rows",
    "standin_cl_rows",
    "standin_bg_rows",
    "standin_ml_items_planned",
    "standin_cl_items_planned",
    "standin_bg_items_planned",
    "standin_pull_wall_s",
    "standin_build_ml_cl_bg_wall_s",
    "standin_build_requests",
    "standin_build_tokens",
    "standin_rerun_same_store_wall_s",
    "standin_rerun_same_store_requests",
    "standin_new_store_same_cache_wall_s",
    "standin_new_store_same_cache_requests",
    "standin_new_store_cache_hit_ratio",
)


def build_argv(pulled: Path, store: Path, cache: Path, server: StandInServer) -> list[str]:
    return [
        "build", *SUBSETS, "--n", str(N), "--items", str(pulled), "--store", str(store), "--auto-approve",
        "--llm-base-url", server.base_url, "--model", MODEL, "--llm-cache", str(cache),
        "--llm-concurrency", str(CONCURRENCY), "--json",
    ] + (["--batch-size", str(BATCH_SIZE)] if BATCH_SIZE else [])  # fmt: skip


def run() -> dict[str, float]:
    require_tools(*TOOLS)
    with tempfile.TemporaryDirectory() as folder, commands_share_one_api():
        root = Path(folder)
        standin = generate(root / "upstreams", PER_LANGUAGE)
        pulled = root / "pulled"
        pull_s, _ = timed_surge(
            ["pull", *standin.pull_args(), "--cache", str(root / "src"), "--store", str(pulled), "--json"],
            root,
            TIMEOUT_S,
        )
        with StandInServer(standin.responses_path, latency_s=LATENCY_S) as server:
            cache = root / "cache"
            build_s, cold = timed_surge(build_argv(pulled, root / "a", cache, server), root, TIMEOUT_S)
            rerun_s, rerun = timed_surge(build_argv(pulled, root / "a", cache, server), root, TIMEOUT_S)
            fresh_s, fresh = timed_surge(build_argv(pulled, root / "b", cache, server), root, TIMEOUT_S)
    llm = cold["llm"]
    figures = {f"standin_{name}_rows": float(cold["built"][name]["rows"]) for name in SUBSETS}
    figures |= {
        f"standin_{name}_items_planned": float(cold["built"][name]["planned_items"]) for name in SUBSETS
    }
    return figures | {
        "standin_pull_wall_s": pull_s,
        "standin_build_ml_cl_bg_wall_s": build_s,
        "standin_build_requests": float(llm["requests"]),
        "standin_build_tokens": float(llm["prompt_tokens"] + llm["completion_tokens"]),
        "standin_rerun_same_store_wall_s": rerun_s,
        "standin_rerun_same_store_requests": float(rerun["llm"]["requests"]),
        "standin_new_store_same_cache_wall_s": fresh_s,
        "standin_new_store_same_cache_requests": float(fresh["llm"]["requests"]),
        "standin_new_store_cache_hit_ratio": fresh["llm"]["cache_hits"] / max(1, llm["requests"]),
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<45} {value:12.3f}")
