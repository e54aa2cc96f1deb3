"""The whole job against a plain loop: `surge run` (CLI, Prefect flow, bwrap, Parquet) on ~150 real
programs vs compiling and running the same programs bare, with the same commands.

Figures:
  surge_run_programs          programs in the corpus (SURGE's ml/cl/dr samples, each copy made distinct)
  surge_run_bare_loop_s       the same compiles and runs on the host (bench/bare.py: the executions the
                              run's store records, a compile-cache hit or a shared run not done again),
                              as many at a time as `surge run --workers` ran
  surge_run_s                 `surge run` end to end in a fresh process, Prefect's API start included
  surge_run_vs_bare_ratio     the two (goal: at most 1.2 on 2 cores)

The run starts with a cold compile cache of its own, and Prefect's home is the environment's (`make
bench` sets one), its database made by one small untimed run first: the timed run pays the API's start,
as every command does, not the one-time creation of a database, which the bare loop has no part of.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent))

from bare import replay_seconds, stored_executions  # noqa: E402
from bench_sandbox import distinct_copy, sample_programs  # noqa: E402
from harness import commands_share_one_api, require_tools, size  # noqa: E402

from pipeline.records import Program  # noqa: E402
from sandboxes.profiles import get_profile  # noqa: E402

TARGET_PROGRAMS = size(150, 3)
WORKERS = os.cpu_count() or 1
FIGURES = ("surge_run_programs", "surge_run_bare_loop_s", "surge_run_s", "surge_run_vs_bare_ratio")


def corpus_lines(corpus: list) -> str:
    lines = []
    for program, setting in corpus:
        line = {
            "language": program.language.value,
            "files": [file.model_dump() for file in program.files],
            "settings": [setting.model_dump(exclude={"setting_id"})],
        }
        lines.append(json.dumps(line))
    return "\n".join(lines) + "\n"


def surge_run(programs: Path, scratch: Path, name: str) -> tuple[float, Path]:
    """`surge run` of a JSONL file into a new store, its compile cache cold: (wall s, store)."""
    store = scratch / f"{name}-store"
    env = {**os.environ, "SURGE_COMPILE_CACHE": str(scratch / f"{name}-compile-cache")}
    command = [sys.executable, "-m", "pipeline.cli", "run", str(programs), "--json"]
    command += ["--store", str(store), "--workers", str(WORKERS)]
    started = time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True, env=env, cwd=BENCH_DIR.parent)
    elapsed_s = time.perf_counter() - started
    assert finished.returncode == 0, finished.stderr[-2000:]
    summary = json.loads(finished.stdout)
    assert summary["written"] == programs.read_text().count("\n"), finished.stderr[-2000:]
    return elapsed_s, store


def run() -> dict[str, float]:
    require_tools("bwrap")
    samples = sample_programs()
    rounds = -(-TARGET_PROGRAMS // len(samples))
    corpus = [distinct_copy(p, s, n) for n in range(rounds) for p, s in samples]
    with tempfile.TemporaryDirectory() as folder, commands_share_one_api():
        scratch = Path(folder)
        warm = scratch / "warm.jsonl"
        warm.write_text(corpus_lines([(Program.single("python", "print('warm')"), samples[0][1])]))
        surge_run(warm, scratch, "warm")  # Prefect's database exists before the clock
        programs = scratch / "programs.jsonl"
        programs.write_text(corpus_lines(corpus))
        surge_s, store = surge_run(programs, scratch, "timed")
        done = stored_executions(store, [p for p, _ in corpus], get_profile("default"))
        assert len(done) == len(corpus), (len(done), len(corpus))
        bare_s = replay_seconds([done], WORKERS).seconds
    return {
        "surge_run_programs": float(len(corpus)),
        "surge_run_bare_loop_s": round(bare_s, 3),
        "surge_run_s": round(surge_s, 3),
        "surge_run_vs_bare_ratio": round(surge_s / bare_s, 3),
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<28} {value:10.3f}")
