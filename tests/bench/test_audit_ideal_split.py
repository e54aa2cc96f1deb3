"""`bench/bench_audit_ideal.py --store STORE --wall-s S`: any audit's store split as the bench splits its
own audit (the whole release's where it exists), with each backend's programs' wall beyond their CPU."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from pipeline.records import RunResult
from pipeline.store import Store
from tests.bench.scripts import BENCH, load_bench_script
from tests.factories import make_result

SCRIPT = BENCH / "bench_audit_ideal.py"


def row(source: str, backend: str, after_s: float, wall_s: float, cpu_s: float) -> RunResult:
    made = make_result(source=source)
    assert made.run is not None
    return made.model_copy(
        update={
            "run": made.run.model_copy(update={"wall_s": wall_s, "cpu_user_s": cpu_s, "cpu_sys_s": 0.0}),
            "provenance": made.provenance.model_copy(
                update={
                    "backend": backend,
                    "started_at": made.provenance.started_at + timedelta(seconds=after_s),
                }
            ),
        }
    )


@pytest.fixture
def store(tmp_path: Path) -> Path:
    rows = [
        row("print('a')", "bwrap", 0.0, wall_s=0.5, cpu_s=0.25),
        row("print('b')", "bwrap", 1.0, wall_s=1.0, cpu_s=0.75),
        row("print('c')", "docker", 2.0, wall_s=2.0, cpu_s=1.0),
    ]
    runs = Store(tmp_path / "store").runs
    runs.append(rows)
    runs.flush()
    return tmp_path / "store"


def test_a_store_is_split_like_the_bench_audit_and_by_backend(store: Path) -> None:
    figures = load_bench_script("bench_audit_ideal").of_store(store, wall_s=10.0, cores=2)
    assert figures["audit_programs_cpu_s"] == pytest.approx(2.0)
    assert figures["audit_ideal_s"] == pytest.approx(1.0)
    assert figures["audit_wall_vs_ideal"] == pytest.approx(10.0)
    assert figures["audit_startup_s"] == pytest.approx(
        6.0
    )  # the last program ended 4 s after the first began
    assert figures["audit_finish_s"] == pytest.approx(0.0)
    assert figures["audit_sandbox_s_bwrap"] == pytest.approx((1.5 - 1.0) / 2)
    assert figures["audit_sandbox_s_docker"] == pytest.approx((2.0 - 1.0) / 2)
    parts = ("audit_startup_s", "audit_idle_cores_s", "audit_sandbox_s", "audit_finish_s")
    assert sum(figures[name] for name in parts) == pytest.approx(10.0 - 1.0)


def test_the_command_line_prints_the_split_and_refuses_a_store_without_its_wall(store: Path) -> None:
    python = [sys.executable, str(SCRIPT), "--store", str(store)]
    printed = subprocess.run([*python, "--wall-s", "10"], capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    assert "audit_sandbox_s_docker" in printed.stdout and "audit_wall_vs_ideal" in printed.stdout
    refused = subprocess.run(python, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--wall-s" in refused.stderr
