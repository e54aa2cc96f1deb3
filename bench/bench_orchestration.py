"""Orchestration at size: 500 short programs (SURGE_BENCH_ORCHESTRATION_PROGRAMS=1000 for the size
docs/scale-out.md reports) through `surge run`, locally and on a local Dask cluster of two workers,
against the ideal (the programs' bare compile + run time / cores), and the bytes Prefect's API receives
per program for small and for large programs.

Figures (the job runs REPEATS rounds of: bare sample, local run, Dask run, bare sample; a ratio is the
median round's, with the smallest and largest beside it: this machine's speed drifts by up to 10% within
minutes, the same loop took 98 to 123 ms per program within one hour; three rounds, not the five this
once ran, so that `make bench` stays under 30 minutes):
  orchestration_programs                 programs in the job (distinct C programs, ~0.1 s compile + run each)
  orchestration_rounds                   rounds measured
  orchestration_bare_sum_s               their bare compile + run time, summed (measured on every
                                         BARE_SAMPLE_EVERY-th program, scaled: the programs are alike;
                                         two samples, at the start and at the end of the round, averaged)
  orchestration_bare_drift_ratio         the round's second bare sample over its first: how far this
                                         machine's speed moved during the round (the ratios carry that noise)
  orchestration_ideal_s                  bare sum / cores
  orchestration_surge_run_s              `surge run` end to end, a fresh process, Prefect's start-up included
  orchestration_run_vs_ideal_ratio       the two (goal: at most 1.15); _min and _max over the rounds
  orchestration_fixed_s                  `surge run` of one program: interpreter, Prefect's ephemeral server
                                         start and stop, one flow run (what every command pays once)
  orchestration_run_minus_fixed_vs_ideal_ratio   the job without that fixed cost, vs the ideal
  orchestration_dask_run_s               the same job with --dask-address on a 2-worker local cluster
  orchestration_dask_vs_local_ratio      (goal: at most 1.1); _min and _max over the rounds
  dask_idle_cluster_cpu_share_defaults   CPU of the idle cluster (scheduler, 2 workers, their nannies), in
                                         cores, at Dask's defaults; over IDLE_SAMPLE_S seconds
  dask_idle_cluster_cpu_share_tuned      the same as deployed (dockerfiles/dask/surge.yaml, --no-nanny):
                                         the cluster's housekeeping competes with the batches for the cores
  prefect_api_bytes_per_program_small    HTTP bodies + events sent to Prefect per program, 40-byte programs
  prefect_api_bytes_per_program_large    the same with 1 MiB programs (goal: equal, at most 1,024)
  prefect_api_bytes_large_vs_small_ratio (goal: 1.0)

Every run starts with a cold compile cache of its own, and every program is distinct: each is compiled
and run once, the work of the bare loop (bench/bare.py, one program at a time); a round checks its
local run's store for a compile-cache hit or a shared run, which would make the ideal a different job.
Prefect's home is the environment's (`make bench` sets one), else kept in the repository
(.surge/bench-prefect), and warmed by one small untimed run: the timed runs pay the server's start, as
every command does, not the one-time creation of its database.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(REPO))

from bare import Execution, replay_seconds, stored_executions  # noqa: E402
from harness import TINY, commands_share_one_api, require_tools, size  # noqa: E402

from pipeline.records import ExecutionSetting, Limits, Program, RunRequest  # noqa: E402
from sandboxes.profiles import get_profile  # noqa: E402

# 1,000 programs in three rounds took 12 minutes here, too much of `make bench`'s 30: 500 by default
PROGRAMS = size(500, 4, "SURGE_BENCH_ORCHESTRATION_PROGRAMS")
REPEATS = size(3, 1, "SURGE_BENCH_ORCHESTRATION_ROUNDS")  # the median of three holds where one round drifts
BARE_SAMPLE_EVERY = size(10, 2)
BYTES_PROGRAMS = size(64, 2)
LARGE_PROGRAM_BYTES = 1 << 20
IDLE_SAMPLE_S = size(10, 1)
PREFECT_HOME = Path(os.environ.get("PREFECT_HOME") or REPO / ".surge" / "bench-prefect")
FIGURES = (
    "orchestration_programs",
    "orchestration_rounds",
    "orchestration_bare_sum_s",
    "orchestration_bare_drift_ratio",
    "orchestration_ideal_s",
    "orchestration_surge_run_s",
    "orchestration_run_vs_ideal_ratio",
    "orchestration_run_vs_ideal_ratio_min",
    "orchestration_run_vs_ideal_ratio_max",
    "orchestration_fixed_s",
    "orchestration_run_minus_fixed_vs_ideal_ratio",
    "orchestration_dask_run_s",
    "orchestration_dask_vs_local_ratio",
    "orchestration_dask_vs_local_ratio_min",
    "orchestration_dask_vs_local_ratio_max",
    "dask_idle_cluster_cpu_share_defaults",
    "dask_idle_cluster_cpu_share_tuned",
    "prefect_api_bytes_per_program_small",
    "prefect_api_bytes_per_program_large",
    "prefect_api_bytes_large_vs_small_ratio",
)
DASK_CONFIG = REPO / "dockerfiles" / "dask"  # the settings docs/scale-out.md deploys
C_PROGRAM = (
    "#include <stdio.h>\n"
    "int main(void) { volatile unsigned long s = 0;\n"
    "  for (unsigned long i = 0; i < 40000000UL; i++) s += i ^ %dUL;\n"
    '  printf("%%lu\\n", s); return 0; }\n'
)


def corpus() -> list[tuple[Program, ExecutionSetting]]:
    return [(Program.single("c", C_PROGRAM % n), ExecutionSetting()) for n in range(PROGRAMS)]


def bare_sum_seconds(sample: list[tuple[Program, ExecutionSetting]], total: int) -> float:
    """The bare loop over a sample of the job (each program compiled and run once, one at a time), scaled
    to the whole job."""
    profile, limits = get_profile("default"), Limits()  # `surge run`'s, without --profile or limits
    done = [
        Execution(RunRequest(program=p, setting=s, profile=profile, limits=limits), compiles=True, runs=True)
        for p, s in sample
    ]
    return replay_seconds([done], workers=1).seconds * total / len(sample)


def check_same_work(store: Path, job: list[tuple[Program, ExecutionSetting]]) -> None:
    """The job's store: every program compiled and ran once, as the bare loop does."""
    done = stored_executions(store, [p for p, _ in job], get_profile("default"))
    skipped = sum(not (e.compiles and e.runs) for e in done)
    assert len(done) == len(job) and not skipped, (
        f"{skipped} of {len(done)} programs not compiled and run in the job: the ideal is another job"
    )


def write_jsonl(path: Path, programs: list[Program]) -> Path:
    lines = (json.dumps({"language": p.language.value, "source": p.files[0].content}) for p in programs)
    path.write_text("\n".join(lines) + "\n")
    return path


def surge_env(compile_cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PREFECT_HOME": str(PREFECT_HOME),
        "SURGE_COMPILE_CACHE": str(compile_cache),
    }


def surge_run(programs: Path, store: Path, compile_cache: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "pipeline.cli", "run", str(programs), "--store", str(store), "--json"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, *extra], capture_output=True, text=True, env=surge_env(compile_cache), cwd=REPO
    )
    elapsed_s = time.perf_counter() - started
    summary = json.loads(done.stdout)
    assert done.returncode == 0 and summary["written"] > 0, done.stderr[-2000:]
    return elapsed_s


# -- a local Dask cluster: a scheduler and two single-thread workers, separate processes ---------------


def start_cluster(scratch: Path, tuned: bool = True) -> tuple[str, list[subprocess.Popen]]:
    """A scheduler and two single-thread workers, their compile cache cold in ``scratch``; ``tuned``: with
    the settings docs/scale-out.md deploys (dockerfiles/dask/surge.yaml, no nannies), else Dask's
    defaults."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    env = surge_env(scratch / f"cluster-{port}-compile-cache")
    scheduler = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
    scheduler += ["--preload", "flows.dask_preload"]  # it unpickles the graphs (docs/scale-out.md)
    worker = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1"]
    worker += ["--preload", "flows.dask_preload"]
    if tuned:
        env["DASK_CONFIG"] = str(DASK_CONFIG)
        worker.append("--no-nanny")
    scratch = scratch / f"cluster-{port}"
    scratch.mkdir()
    logs = [scratch / f"dask-{n}.log" for n in range(3)]
    processes = [
        subprocess.Popen(
            [*scheduler, "--port", str(port), "--no-dashboard"],
            env=env, stdout=logs[0].open("wb"), stderr=subprocess.STDOUT,
        )
    ]  # fmt: skip
    for n in (1, 2):
        processes.append(
            subprocess.Popen(
                [*worker, "--no-dashboard"], env=env, stdout=logs[n].open("wb"), stderr=subprocess.STDOUT
            )
        )
    deadline = time.monotonic() + 180
    while not all("Registered to:" in logs[n].read_text(errors="replace") for n in (1, 2)):
        assert time.monotonic() < deadline, "the Dask workers did not start"
        time.sleep(0.5)
    return address, processes


def stop_cluster(processes: list[subprocess.Popen]) -> None:
    """The workers first, gone before the scheduler is asked to go: a worker still closing when its
    scheduler vanished waited out a connection timeout (30 s, seen here once in a few rounds)."""
    for group in (processes[1:], processes[:1]):
        for process in group:
            process.terminate()
        for process in group:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def idle_cluster_cpu_share(scratch: Path, tuned: bool) -> float:
    """The CPU an idle cluster (scheduler, workers, their nannies) uses, as a share of one core."""
    import psutil

    _, cluster = start_cluster(scratch, tuned)
    try:
        time.sleep(2)  # past the start
        processes = [psutil.Process(p.pid) for p in cluster]
        processes += [child for p in processes for child in p.children(recursive=True)]
        before = sum(sum(p.cpu_times()[:2]) for p in processes)
        time.sleep(IDLE_SAMPLE_S)
        return (sum(sum(p.cpu_times()[:2]) for p in processes) - before) / IDLE_SAMPLE_S
    finally:
        stop_cluster(cluster)


# -- bytes sent to Prefect's API -----------------------------------------------------------------------

COUNTER = """
import json, sys, httpx
from flows.runtime import configure_prefect
configure_prefect()
from prefect.events import clients
sent = [0]
def counting(send):
    def wrapper(self, request, *a, **k):
        sent[0] += len(request.content or b"")
        return send(self, request, *a, **k)
    return wrapper
def counting_async(send):
    async def wrapper(self, request, *a, **k):
        sent[0] += len(request.content or b"")
        return await send(self, request, *a, **k)
    return wrapper
httpx.Client.send = counting(httpx.Client.send)
httpx.AsyncClient.send = counting_async(httpx.AsyncClient.send)
for name in dir(clients):
    cls = getattr(clients, name)
    if isinstance(cls, type) and "_emit" in cls.__dict__:
        def patch(cls=cls):
            emit = cls._emit
            async def _emit(self, event):
                sent[0] += len(event.model_dump_json())
                return await emit(self, event)
            cls._emit = _emit
        patch()
from pipeline.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "bytes": sent[0]}), file=sys.stderr)
"""


def api_bytes(programs: list[Program], scratch: Path, name: str) -> float:
    """Bytes sent to Prefect during one `surge run` of the programs, per program."""
    jsonl = write_jsonl(scratch / f"{name}.jsonl", programs)
    argv = ["run", str(jsonl), "--store", str(scratch / f"{name}-store"), "--json"]
    done = subprocess.run(
        [sys.executable, "-c", COUNTER, *argv],
        capture_output=True,
        text=True,
        env=surge_env(scratch / f"{name}-compile-cache"),
        cwd=REPO,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr[-2000:]
    return report["bytes"] / len(programs)


def measure_round(job: list[tuple[Program, ExecutionSetting]], programs: Path, scratch: Path) -> dict:
    """One round: bare sample, `surge run` here, the same on a fresh 2-worker Dask cluster, bare sample."""
    scratch.mkdir()
    before = bare_sum_seconds(job[::BARE_SAMPLE_EVERY], len(job))
    local_s = surge_run(programs, scratch / "local-store", scratch / "local-compile-cache")
    check_same_work(scratch / "local-store", job)
    address, cluster = start_cluster(scratch)
    try:
        dask_s = surge_run(
            programs, scratch / "dask-store", scratch / "dask-compile-cache", "--dask-address", address
        )
    finally:
        stop_cluster(cluster)
    after = bare_sum_seconds(job[BARE_SAMPLE_EVERY // 2 :: BARE_SAMPLE_EVERY], len(job))
    ideal_s = (before + after) / 2 / (os.cpu_count() or 1)
    return {
        "bare_sum_s": (before + after) / 2,
        "drift": after / before,
        "ideal_s": ideal_s,
        "local_s": local_s,
        "dask_s": dask_s,
        "run_ratio": local_s / ideal_s,
        "dask_ratio": dask_s / local_s,
    }


def median_round(rounds: list[dict], key: str) -> dict:
    return sorted(rounds, key=lambda measured: measured[key])[len(rounds) // 2]


def run() -> dict[str, float]:
    require_tools("bwrap", "gcc")
    PREFECT_HOME.mkdir(parents=True, exist_ok=True)
    job = corpus()
    with tempfile.TemporaryDirectory() as temporary, commands_share_one_api():
        scratch = Path(temporary)
        programs = write_jsonl(scratch / "programs.jsonl", [program for program, _ in job])
        warm = write_jsonl(scratch / "warm.jsonl", [Program.single("python", "print('warm')")])
        if not TINY:  # Prefect's database exists before timing (tiny: the same call as the next, once)
            surge_run(warm, scratch / "warm-store", scratch / "warm-compile-cache")
        fixed_s = surge_run(warm, scratch / "fixed-store", scratch / "fixed-compile-cache")
        idle_default = idle_cluster_cpu_share(scratch, tuned=False)
        idle_tuned = idle_cluster_cpu_share(scratch, tuned=True)
        rounds = [measure_round(job, programs, scratch / f"round-{n}") for n in range(REPEATS)]
        tiny = [Program.single("python", f"print({n})") for n in range(BYTES_PROGRAMS)]
        padding = "#" * LARGE_PROGRAM_BYTES
        large = [Program.single("python", f"print({n})\n{padding}") for n in range(BYTES_PROGRAMS)]
        small_bytes = api_bytes(tiny, scratch, "small")
        large_bytes = api_bytes(large, scratch, "large")
    local = median_round(rounds, "run_ratio")
    dask = median_round(rounds, "dask_ratio")
    return {
        "orchestration_programs": float(len(job)),
        "orchestration_rounds": float(len(rounds)),
        "orchestration_bare_sum_s": round(local["bare_sum_s"], 3),
        "orchestration_bare_drift_ratio": round(local["drift"], 3),
        "orchestration_ideal_s": round(local["ideal_s"], 3),
        "orchestration_surge_run_s": round(local["local_s"], 3),
        "orchestration_run_vs_ideal_ratio": round(local["run_ratio"], 3),
        "orchestration_run_vs_ideal_ratio_min": round(min(r["run_ratio"] for r in rounds), 3),
        "orchestration_run_vs_ideal_ratio_max": round(max(r["run_ratio"] for r in rounds), 3),
        "orchestration_fixed_s": round(fixed_s, 3),
        "orchestration_run_minus_fixed_vs_ideal_ratio": round(
            (local["local_s"] - fixed_s) / local["ideal_s"], 3
        ),
        "orchestration_dask_run_s": round(dask["dask_s"], 3),
        "orchestration_dask_vs_local_ratio": round(dask["dask_ratio"], 3),
        "orchestration_dask_vs_local_ratio_min": round(min(r["dask_ratio"] for r in rounds), 3),
        "orchestration_dask_vs_local_ratio_max": round(max(r["dask_ratio"] for r in rounds), 3),
        "dask_idle_cluster_cpu_share_defaults": round(idle_default, 4),
        "dask_idle_cluster_cpu_share_tuned": round(idle_tuned, 4),
        "prefect_api_bytes_per_program_small": round(small_bytes, 1),
        "prefect_api_bytes_per_program_large": round(large_bytes, 1),
        "prefect_api_bytes_large_vs_small_ratio": round(large_bytes / small_bytes, 3),
    }


if __name__ == "__main__":
    for figure, value in run().items():
        print(f"{figure:<42} {value:12.3f}")
