"""Faults of the whole command, with real processes: kill -9 of `surge run` and `surge audit` at seeded
random points, and two first commands at once on one store in one fresh folder.

Afterwards `surge store check` passes, every finished row is in the store exactly once, a rerun executes
exactly the runs that are missing, and the rows equal an uninterrupted command's row for row (run id and
label). `make test` runs each once (3 kill points each, 4 concurrent starts); `make soak` runs them
SURGE_SOAK_ROUNDS times (10) over other seeds.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipeline.batches import FLUSH_EVERY_S_VARIABLE
from tests.conftest import SAMPLES, require_tool
from tests.soak import SOAK_ROUNDS

KILL_POINTS = 3  # per round
CONCURRENT_TRIES = 4  # per round
# Bounds, not expectations: a command here takes 5-30 s on a loaded 2-core machine.
COMMAND_TIMEOUT_S = 600
# Kill points: half from the command's start (Prefect's API starting, the head start's first batches),
# half from the moment its first part is stored (batches running and storing), a seeded delay each.
KILL_AFTER_START_S = (0.5, 4.0)
KILL_AFTER_FIRST_PART_S = (0.0, 3.0)
POLL_S = 0.05
# A batch stores its finished rows this often here (30 s for users): kills land between its parts.
FLUSH_EVERY_S = 0.5

PROGRAMS = [{"language": "python", "source": f"import time; time.sleep(0.4); print({n})"} for n in range(16)]
# One batch of them (6.4 s of programs): a kill after its first part comes while most of it is still to run.
RUN = ["--batch-size", str(len(PROGRAMS))]
AUDIT = [str(SAMPLES / "surge-released"), "--subset", "cl", "--subset", "sc", "--subset", "tc"]
AUDIT += ["--repeats", "1"]

pytestmark = [pytest.mark.slow, pytest.mark.soak]


def surge(cwd: Path, *argv: str, prefect_home: Path | None = None) -> subprocess.Popen[str]:
    """`surge ARGV` as its own process (``python -m pipeline.cli`` is the executable's entry)."""
    env = dict(os.environ)
    env.pop("PREFECT_HOME", None)  # unset: the per-user default (in the command's folder here), as for a user
    env["XDG_STATE_HOME"] = str(cwd / ".state")
    env[FLUSH_EVERY_S_VARIABLE] = str(FLUSH_EVERY_S)
    if prefect_home is not None:
        env["PREFECT_HOME"] = str(prefect_home)
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", *argv],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def finished(command: subprocess.Popen[str]) -> dict[str, Any]:
    """The command's --json summary; it must have exited 0, and its summary say so if it says a code."""
    out, err = command.communicate(timeout=COMMAND_TIMEOUT_S)
    assert command.returncode == 0, err
    summary = json.loads(out)
    assert summary.get("exit_code", 0) == 0
    return summary


def store_rows(store: Path, table: str = "runs", columns: tuple[str, ...] = ("run_id", "label")) -> list:
    """Every row of every part, duplicates included, as tuples of ``columns``."""
    rows: list[tuple[Any, ...]] = []
    for part in sorted((store / table).glob("part-*.parquet")):
        read = pq.read_table(part, columns=list(columns)).to_pylist()
        rows += [tuple(row[c] for c in columns) for row in read]
    return rows


def check_passes(cwd: Path, store: Path, prefect_home: Path) -> None:
    """`surge store check` passes; a command killed before it wrote any part left no store, and the check
    says so (exit 2, "no store at") instead of reporting an empty one."""
    check = surge(cwd, "store", "check", "--store", str(store), "--json", prefect_home=prefect_home)
    if not any(store.rglob("part-*.parquet")):
        _, err = check.communicate(timeout=COMMAND_TIMEOUT_S)
        assert check.returncode == 2 and "no store at" in err, err
        return
    report = finished(check)
    assert all(not table["unreadable"] for table in report["tables"].values()), report


def killed_at_random(command: subprocess.Popen[str], store: Path, seed: int) -> None:
    """kill -9 the command at a seeded point (it may have ended by then: a point after its end)."""
    rng = random.Random(seed)
    if seed % 2:
        deadline = time.monotonic() + COMMAND_TIMEOUT_S
        while command.poll() is None and not any((store / "runs").glob("part-*.parquet")):
            assert time.monotonic() < deadline, "no part was stored"
            time.sleep(POLL_S)
    after_s = rng.uniform(*(KILL_AFTER_FIRST_PART_S if seed % 2 else KILL_AFTER_START_S))
    try:
        command.wait(timeout=after_s)
    except subprocess.TimeoutExpired:
        command.kill()
    command.communicate(timeout=COMMAND_TIMEOUT_S)


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("programs") / "programs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in PROGRAMS))
    return path


@pytest.fixture(scope="module")
def uninterrupted_run(programs: Path, tmp_path_factory: pytest.TempPathFactory) -> list:
    require_tool("bwrap")
    folder = tmp_path_factory.mktemp("uninterrupted-run")
    finished(surge(folder, "run", str(programs), "--store", "store", "--json"))
    return sorted(store_rows(folder / "store"))


@pytest.fixture(scope="module")
def uninterrupted_audit(tmp_path_factory: pytest.TempPathFactory) -> list:
    require_tool("bwrap")
    folder = tmp_path_factory.mktemp("uninterrupted-audit")
    finished(surge(folder, "audit", *AUDIT, "--store", "store", "--json"))
    return sorted(store_rows(folder / "store"))


@pytest.mark.parametrize("seed", range(KILL_POINTS * SOAK_ROUNDS))
def test_kill_9_of_a_run_then_the_rerun_finishes_exactly_the_rest(
    seed: int, programs: Path, uninterrupted_run: list, tmp_path: Path
) -> None:
    home, store = tmp_path / "prefect", tmp_path / "store"
    run = surge(tmp_path, "run", str(programs), *RUN, "--store", "store", prefect_home=home)
    killed_at_random(run, store, seed)
    check_passes(tmp_path, store, home)
    kept = store_rows(store)
    assert len(kept) == len(set(kept)) and set(kept) <= set(uninterrupted_run)  # each finished row once
    if seed % 2:  # killed after its first part, while most of its one batch was still to run
        assert 0 < len(kept) < len(PROGRAMS)

    rerun = finished(
        surge(tmp_path, "run", str(programs), *RUN, "--store", "store", "--json", prefect_home=home)
    )
    assert rerun["already_stored"] == len(kept)
    assert rerun["written"] == rerun["planned_runs"] - len(kept) and rerun["sandbox_errors"] == 0
    assert sorted(store_rows(store)) == uninterrupted_run


@pytest.mark.parametrize("seed", range(KILL_POINTS * SOAK_ROUNDS))
def test_kill_9_of_an_audit_then_the_rerun_finishes_exactly_the_rest(
    seed: int, uninterrupted_audit: list, tmp_path: Path
) -> None:
    home, store = tmp_path / "prefect", tmp_path / "store"
    audit = surge(tmp_path, "audit", *AUDIT, "--store", "store", prefect_home=home)
    killed_at_random(audit, store, 1000 + seed)
    check_passes(tmp_path, store, home)
    kept = store_rows(store)
    assert len(kept) == len(set(kept)) and set(kept) <= set(uninterrupted_audit)

    rerun = finished(surge(tmp_path, "audit", *AUDIT, "--store", "store", "--json", prefect_home=home))
    assert rerun["runs_reused"] == len(kept)
    assert rerun["runs_executed"] == rerun["runs_planned"] - len(kept) and rerun["sandbox_errors"] == 0
    assert sorted(store_rows(store)) == uninterrupted_audit
    audit_ids = store_rows(store, "audit", ("audit_id",))
    assert len(audit_ids) == len(set(audit_ids)) == rerun["rows"]


@pytest.mark.parametrize("attempt", range(CONCURRENT_TRIES * SOAK_ROUNDS))
def test_two_first_runs_in_one_fresh_folder_on_one_store_both_finish(
    attempt: int, programs: Path, uninterrupted_run: list, tmp_path: Path
) -> None:
    # Both use the same per-user Prefect home, created by whichever comes first, and the same store.
    both = [surge(tmp_path, "run", str(programs), "--store", "store", "--json") for _ in range(2)]
    summaries = [finished(command) for command in both]
    assert all(s["planned_runs"] == len(PROGRAMS) for s in summaries)
    assert sorted(store_rows(tmp_path / "store")) == uninterrupted_run  # each row once
    assert sum(s["written"] for s in summaries) == len(PROGRAMS)
