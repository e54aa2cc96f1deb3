"""ml, cl and bg regrown from pulled upstreams through an endpoint, end to end: `surge pull` of the local
stand-in upstreams (tests/standin: git repositories pinned by commit), then `surge build ml cl bg` against
the stand-in endpoint, which answers every refactor prompt with the program composed from the item, so
what is measured is the machinery: concurrency, the response cache, the budget and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pipeline.dataset import read_rows
from pipeline.store import Store
from tests.conftest import require_tool
from tests.standin.server import MODEL, StandInServer
from tests.standin.upstreams import generate
from tests.surge_process import SURGE, run_surge, surge_env

N = 12
TOOLS = ("git", "bwrap", "gcc", "g++", "mcs", "mono", "javac", "java", "rustc", "python3")


@pytest.fixture(scope="module")
def pulled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose items table holds the four stand-in upstreams, as `surge pull` wrote it."""
    require_tool(*TOOLS)
    root = tmp_path_factory.mktemp("standin")
    standin = generate(root / "upstreams")
    store = root / "pulled"
    done = run_surge(
        ["pull", *standin.pull_args(), "--cache", str(root / "sources"), "--store", str(store)], root
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return store


@pytest.fixture(scope="module")
def endpoint(pulled: Path):
    with StandInServer(pulled.parent / "upstreams" / "responses.jsonl") as server:
        yield server


def build_args(pulled: Path, store: Path, cache: Path, endpoint: StandInServer, *extra: str) -> list[str]:
    return [
        "build", *extra, "--items", str(pulled), "--store", str(store), "--auto-approve",
        "--llm-base-url", endpoint.base_url, "--model", MODEL, "--llm-cache", str(cache), "--json",
    ]  # fmt: skip


def build(args: list[str], cwd: Path) -> tuple[int, dict]:
    done = run_surge(args, cwd)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
def test_pull_then_build_gives_n_rows_each_and_a_rebuild_is_answered_from_the_cache(
    pulled, endpoint, tmp_path
):
    cache = tmp_path / "cache"
    args = build_args(pulled, tmp_path / "a", cache, endpoint, "ml", "cl", "bg", "--n", str(N))
    code, first = build(args, tmp_path)
    assert code == 0, first
    assert {name: result["rows"] for name, result in first["built"].items()} == {"ml": N, "cl": N, "bg": N}
    rows = read_rows(Store(tmp_path / "a"), {"ml", "cl", "bg"})
    assert all(row.auto_approved and not row.recorded_llm for row in rows)
    assert {row.upstream.source for row in rows} == {"mceval", "leetcode", "ojcode", "debugbench"}
    assert len({row.custom_features["language"] for row in rows if row.subset == "ml"}) == 6
    # an OJCode program reads stdin: its question shows the input its label depends on
    assert all("\n```\ninput:```\n" in row.question for row in rows if row.upstream.source == "ojcode")
    reproduces_its_export(tmp_path / "a", tmp_path)
    asked = first["llm"]["requests"]
    assert asked >= 3 * N and first["llm"]["cache_hits"] == 0 and first["llm"]["prompt_tokens"] > 0
    # the same store again: every item is decided, nothing is asked
    code, rerun = build(args, tmp_path)
    assert code == 0 and rerun["llm"]["requests"] == 0
    # a new store with the same response cache: the same rows, every answer from the cache
    code, fresh = build(
        build_args(pulled, tmp_path / "b", cache, endpoint, "ml", "cl", "bg", "--n", str(N)), tmp_path
    )
    assert code == 0
    assert fresh["llm"]["requests"] == 0 and fresh["llm"]["cache_hits"] == asked
    again = read_rows(Store(tmp_path / "b"), {"ml", "cl", "bg"})
    assert sorted((r.subset, r.question, r.gt) for r in again) == sorted(
        (r.subset, r.question, r.gt) for r in rows
    )


def reproduces_its_export(store: Path, cwd: Path) -> None:
    """The rows exported in SURGE's format and audited from those files alone: every label reproduced.
    OJCode's rows once lost their input on the way (labels that could not reproduce), and their language,
    spelled "C++14", was refused as unknown."""
    release = cwd / "release"
    exported = run_surge(["export", str(store), str(release)], cwd)
    assert exported.returncode == 0, exported.stderr
    audited = run_surge(["audit", str(release / "dataset"), "--store", str(cwd / "audit"), "--json"], cwd)
    summary = json.loads(audited.stdout)
    assert summary["refused"] == 0, summary["refusals"]
    assert summary["reproduced"] == summary["labels"] == 3 * N, summary["by_subset"]


@pytest.mark.slow
def test_a_budget_stops_asking_exits_3_and_a_rerun_finishes(pulled, endpoint, tmp_path):
    args = build_args(
        pulled, tmp_path / "store", tmp_path / "cache", endpoint, "ml", "--n", "6", "--batch-size", "6"
    )
    code, stopped = build([*args, "--budget", "1ktokens", "--llm-concurrency", "1"], tmp_path)
    assert code == 3, stopped
    assert stopped["llm"]["budget_stopped_items"] > 0
    spent = stopped["llm"]["prompt_tokens"] + stopped["llm"]["completion_tokens"]
    assert 1000 <= spent < 2000  # one request in flight may finish past the line, no more
    assert stopped["built"]["ml"]["rows"] < 6
    code, rest = build(args, tmp_path)
    assert code == 0 and rest["built"]["ml"]["rows"] == 6
    assert rest["llm"]["requests"] + stopped["llm"]["requests"] == 6  # one answer per item, none twice


@pytest.mark.slow
def test_kill_9_mid_build_then_a_rerun_repeats_no_request_whose_answer_was_stored(pulled, endpoint, tmp_path):
    cache = tmp_path / "cache"
    args = build_args(pulled, tmp_path / "store", cache, endpoint, "ml", "--n", "12", "--batch-size", "12")
    before = endpoint.answered
    process = subprocess.Popen(
        [*SURGE, *args, "--llm-concurrency", "2"],
        cwd=tmp_path,
        env=surge_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while endpoint.answered - before < 4:
        assert process.poll() is None and time.monotonic() < deadline, "the build ended before the kill"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    stored = len(list(cache.rglob("*.json")))
    assert 0 < stored < 12
    code, rerun = build(args, tmp_path)
    assert code == 0 and rerun["built"]["ml"]["rows"] == 12
    assert rerun["llm"]["requests"] == 12 - stored  # every stored answer was read back, not asked again
