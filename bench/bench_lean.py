"""Lean checker costs against the stand-in REPL (tests/lean/fake_repl.py): what the pool adds per proof.

Baseline, same run: one stand-in process driven directly by the protocol client (no pool, no records),
answering every command after ANSWER_MS. Then the same proofs through LeanBackend with 2 workers; the
per-proof time a worker spends minus the baseline is the pool's overhead (goal: at most 5 ms). With an
instant stand-in, the pool's own CPU per proof says how many proofs per second one core of ours can
feed; real Lean needs about 0.07 proofs/s per core (Kimina Lean Server's published Lean-Workbook run),
so one core of pool feeds that many thousand Lean cores. That last figure is an estimate against a
published number, not a ratio to a baseline of this run (nothing here checks real Lean), and is named
so. A fresh process per proof (Goedel-Prover's verifier) is timed too, sending the same two commands
per proof as the baseline (the whole file, then the axiom audit): with the stand-in the difference is
only process start-up; with Lean it re-imports Mathlib.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import size  # noqa: E402

from sandboxes.lean.backend import LeanBackend  # noqa: E402
from sandboxes.lean.protocol import ReplProcess  # noqa: E402
from sandboxes.lean.result import audit_command  # noqa: E402
from sandboxes.lean.settings import LeanSettings  # noqa: E402
from sandboxes.lean.source import split_source  # noqa: E402
from tests.lean.conftest import FAKE_REPL, lean_file, request  # noqa: E402

ANSWER_MS = 20
PROOFS = size(100, 6)
WORKERS = 2
FRESH_PROOFS = size(10, 2)
KIMINA_PROOFS_PER_S_PER_CORE = 0.07  # published figure for real Lean (see docs/lean.md), not measured here
GOAL_OVERHEAD_MS = 5.0
FIGURES = (
    "lean_standin_answer_ms_per_proof",
    "lean_pool_ms_per_proof_2_workers",
    "lean_pool_overhead_ms_per_proof",
    "lean_pool_cpu_ms_per_proof",
    "lean_pool_feed_proofs_per_s_per_core",
    "lean_cores_fed_per_pool_core_est",
    "lean_fresh_process_ms_per_proof",
    "lean_fresh_process_startup_ms_per_proof",
)


def proofs(count: int = PROOFS, first: int = 0) -> list[str]:
    return [
        lean_file(f"theorem t{n} : {n} + 1 = {n + 1} := by\n  norm_num\n-- fake: error 3 2 linarith failed")
        for n in range(first, first + count)
    ]


def settings(project: Path) -> LeanSettings:
    return LeanSettings(
        repl_command=[sys.executable, str(FAKE_REPL)], project_dir=project, max_repls=WORKERS, memory_mib=1024
    )


def direct_ms_per_proof(project: Path, texts: list[str]) -> float:
    """The stand-in's own answer time for a proof's commands (body, then the axiom audit)."""
    process = ReplProcess([sys.executable, str(FAKE_REPL)], project, 1024, 1 << 24)
    try:
        env = process.request({"cmd": split_source(texts[0]).header}, 30, "header")["env"]
        started = time.perf_counter()
        for text in texts:
            source = split_source(text)
            body_env = process.request({"cmd": source.body, "env": env}, 30, "proof")["env"]
            process.request({"cmd": audit_command(source.declarations), "env": body_env}, 30, "audit")
        return (time.perf_counter() - started) * 1000 / len(texts)
    finally:
        process.kill()


def pool_ms_per_proof(project: Path, texts: list[str]) -> tuple[float, float]:
    """(wall ms per proof per worker, our CPU s per proof) through LeanBackend with warm REPLs."""
    with LeanBackend(settings(project), workers=WORKERS) as backend:
        # warm (headers elaborated) on proofs of their own, as the baseline elaborates its header untimed
        list(backend.run_batch([request(t) for t in proofs(WORKERS * 2, first=len(texts))]))
        requests = [request(t) for t in texts]
        cpu, started = time.process_time(), time.perf_counter()
        results = list(backend.run_batch(requests))
        wall_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    assert all(r.label for r in results), "every proof must come back with a label"
    return wall_s * 1000 * WORKERS / len(texts), cpu_s / len(texts)


def fresh_ms_per_proof(project: Path, texts: list[str]) -> float:
    """Goedel-Prover's way: a new REPL per proof, header and body in one command, then the same axiom
    audit the baseline sends."""
    started = time.perf_counter()
    for text in texts:
        process = ReplProcess([sys.executable, str(FAKE_REPL)], project, 1024, 1 << 24)
        try:
            env = process.request({"cmd": text}, 30, "file")["env"]
            process.request({"cmd": audit_command(split_source(text).declarations), "env": env}, 30, "audit")
        finally:
            process.kill()
    return (time.perf_counter() - started) * 1000 / len(texts)


def run() -> dict[str, float]:
    texts = proofs()
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        os.environ["FAKE_REPL_DELAY_MS"] = str(ANSWER_MS)
        try:
            direct_ms = direct_ms_per_proof(project, texts)
            pool_ms, _ = pool_ms_per_proof(project, texts)
            fresh_ms = fresh_ms_per_proof(project, texts[:FRESH_PROOFS])
        finally:
            del os.environ["FAKE_REPL_DELAY_MS"]
        _, cpu_s_per_proof = pool_ms_per_proof(project, texts)  # instant stand-in: our own cost only
    feed = 1 / cpu_s_per_proof if cpu_s_per_proof > 0 else float("inf")
    overhead_ms = pool_ms - direct_ms
    verdict = "meets" if overhead_ms <= GOAL_OVERHEAD_MS else "MISSES"
    kimina = KIMINA_PROOFS_PER_S_PER_CORE
    print(
        f"   pool overhead {overhead_ms:.2f} ms/proof at {WORKERS} workers: "
        f"{verdict} the {GOAL_OVERHEAD_MS} ms goal"
    )
    print(f"   pool feeds {feed:,.0f} proofs/s per core; real Lean checks ~{kimina} proofs/s per core")
    print(f"   (Kimina Lean Server, published): one pool core feeds {feed / kimina:,.0f} Lean cores")
    return {
        "lean_standin_answer_ms_per_proof": direct_ms,
        "lean_pool_ms_per_proof_2_workers": pool_ms,
        "lean_pool_overhead_ms_per_proof": overhead_ms,
        "lean_pool_cpu_ms_per_proof": cpu_s_per_proof * 1000,
        "lean_pool_feed_proofs_per_s_per_core": feed,
        # against Kimina's published rate for real Lean: an estimate, no baseline of this run
        "lean_cores_fed_per_pool_core_est": feed / KIMINA_PROOFS_PER_S_PER_CORE,
        "lean_fresh_process_ms_per_proof": fresh_ms,
        # two commands per proof on both sides: what is left is the start-up a warm REPL saves
        "lean_fresh_process_startup_ms_per_proof": fresh_ms - direct_ms,
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<48} {value:12.4f}")
