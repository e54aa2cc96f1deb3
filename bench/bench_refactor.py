"""Refactor loop costs: what the cache saves on a rerun, and what bounded LLM concurrency buys.

Against the replay chat-completions server (tests/refactor/openai_replay.py) with a 50 ms answer latency,
and the real bwrap sandbox (unsafe-local where bwrap is missing). Baselines are measured in the same run,
on the same items through the same loop and sandbox: serial against 4 at a time, each with a cold
response cache; the rerun against the cold run it repeats (the same sandbox runs, no LLM requests).
"""

from __future__ import annotations

import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import size  # noqa: E402

from pipeline.refactor.execute import Executor  # noqa: E402
from pipeline.refactor.loop import RepairLoop  # noqa: E402
from sandboxes import open_backend  # noqa: E402
from tests.refactor.helpers import client_for, mceval_item  # noqa: E402
from tests.refactor.openai_replay import ReplayServer, Reply, code  # noqa: E402

ITEMS = size(16, 4)
LATENCY_S = 0.05
FIGURES = (
    "refactor_items_per_s_serial",
    "refactor_items_per_s_concurrency4",
    "refactor_concurrency4_speedup_vs_serial",
    "refactor_cached_rerun_speedup_vs_cold",
    "refactor_cached_rerun_requests",
    "refactor_cold_requests",
)


def replies() -> list[Reply]:
    return [
        Reply(
            code("python", f"def add{n}(a, b):\n    return a + b\n\nprint(add{n}({n}, 1))"),
            match=f"def add{n}(",
            delay_s=LATENCY_S,
        )
        for n in range(1, ITEMS + 1)
    ]


def timed_run(cache: Path, server: ReplayServer, concurrency: int) -> tuple[float, int]:
    items = [mceval_item(n) for n in range(1, ITEMS + 1)]
    client = client_for(server, cache, concurrency=concurrency)
    started = time.perf_counter()
    with open_backend("bwrap", unsafe=True, workers=1) as sandbox:
        loop = RepairLoop(client, Executor(sandbox))
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            outcomes = list(pool.map(loop.refactor, items))
    assert all(o.status == "candidate" for o in outcomes), [o.reason for o in outcomes]
    return time.perf_counter() - started, client.usage.requests


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        with ReplayServer(replies()) as server:
            serial_s, _ = timed_run(root / "serial", server, concurrency=1)
        with ReplayServer(replies()) as server:
            parallel_s, requests = timed_run(root / "parallel", server, concurrency=4)
            warm_s, warm_requests = timed_run(root / "parallel", server, concurrency=4)
    return {
        "refactor_items_per_s_serial": ITEMS / serial_s,
        "refactor_items_per_s_concurrency4": ITEMS / parallel_s,
        "refactor_concurrency4_speedup_vs_serial": serial_s / parallel_s,
        "refactor_cached_rerun_speedup_vs_cold": parallel_s / warm_s,
        "refactor_cached_rerun_requests": float(warm_requests),
        "refactor_cold_requests": float(requests),
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<45} {value:10.3f}")
