"""The whole job against a plain loop: `surge run` (CLI, Prefect flow, bwrap, Parquet) on ~150 real
programs vs compiling and running the same programs bare, one after the other, with the same commands.

Figures:
  surge_run_programs          programs in the corpus (SURGE's ml/cl/dr samples, each copy made distinct)
  surge_run_bare_loop_s       compile + run each program on the host in a plain loop
  surge_run_s                 `surge run` end to end in a fresh process, Prefect's start-up included
  surge_run_vs_bare_ratio     the two (goal: at most 1.2 on 2 cores)
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

from bench_sandbox import bare_loop_seconds, distinct_copy, sample_programs  # noqa: E402

TARGET_PROGRAMS = 150


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


def run() -> dict[str, float]:
    samples = sample_programs()
    if not samples:
        return {}
    rounds = -(-TARGET_PROGRAMS // len(samples))
    corpus = [distinct_copy(p, s, n) for n in range(rounds) for p, s in samples]
    with tempfile.TemporaryDirectory() as scratch:
        bare_s = bare_loop_seconds(corpus, Path(scratch))
        programs = Path(scratch) / "programs.jsonl"
        programs.write_text(corpus_lines(corpus))
        env = {**os.environ, "PREFECT_HOME": str(Path(scratch) / "prefect")}
        command = [sys.executable, "-m", "pipeline.cli", "run", str(programs), "--json"]
        command += ["--store", str(Path(scratch) / "store"), "--workers", str(os.cpu_count() or 1)]
        started = time.perf_counter()
        finished = subprocess.run(command, capture_output=True, text=True, env=env, cwd=BENCH_DIR.parent)
        surge_s = time.perf_counter() - started
        summary = json.loads(finished.stdout)
        assert summary["written"] == len(corpus), finished.stderr[-2000:]
    return {
        "surge_run_programs": float(len(corpus)),
        "surge_run_bare_loop_s": round(bare_s, 3),
        "surge_run_s": round(surge_s, 3),
        "surge_run_vs_bare_ratio": round(surge_s / bare_s, 3),
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<28} {value:10.3f}")
