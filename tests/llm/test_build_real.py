"""`surge build ml` through the refactor and repair loop against a real model (SmolLM2-135M), and against no
server at all.

A 135M model writes few programs that run: its no-code answers, wrong languages, answers cut at
max_tokens, programs that do not compile or print nothing, and conversations grown past its context are
the items' outcomes (dropped with the reason, never asked again), so the build ends "done, but" (exit 3)
or with its rows (exit 0), never 1. The server gone is ours: exit 1 with the fix, nothing recorded.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from pipeline.review.queue import ReviewQueue
from tests.surge_process import run_surge

pytestmark = pytest.mark.llm

BUILD_TIMEOUT_S = 1800
# The model's own failure kinds the repair loop names (pipeline/refactor/outcome.py, Round.problem_kind)
MODELS_KINDS = {"huge", "truncated", "no_code", "wrong_language", "empty", "leak", "run", "prompt_too_long"}


def build(store: Path, cwd: Path) -> tuple[int, dict[str, Any], str]:
    argv = ["build", "ml", "--n", "1", "--batch-size", "2", "--language", "python", "--auto-approve"]
    done = run_surge([*argv, "--store", str(store), "--json"], cwd, timeout_s=BUILD_TIMEOUT_S)
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}, done.stderr


def test_build_ml_records_the_models_failures_as_outcomes_and_a_rerun_asks_nothing_again(
    real_endpoint: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SURGE_LLM_MAX_TOKENS", "384")  # SmolLM2 runs on otherwise: minutes a request
    monkeypatch.setenv("SURGE_LLM_TIMEOUT_S", "600")
    monkeypatch.setenv("SURGE_LLM_CONCURRENCY", "2")  # two in flight on the server's one slot
    monkeypatch.setenv("SURGE_LLM_CACHE_DIR", str(real_endpoint / "llm-cache"))
    store = real_endpoint / "store"
    code, summary, err = build(store, real_endpoint)
    assert code in (0, 3), err  # 1 would be a failure of ours
    ml = summary["built"]["ml"]
    assert ml["items"] == ml["kept_items"] + ml["dropped_items"] >= 1
    assert set(ml["drop_reasons"]) <= {"refactor failed", "approved program"}, ml["drop_reasons"]
    assert summary["llm"]["requests"] >= 1 and summary["llm"]["prompt_tokens"] > 0
    queue = ReviewQueue(store / "review.db")
    for entry in queue.entries(state="failed"):
        kinds = [round_["problem_kind"] for round_ in queue.rounds(entry.entry_id)]
        assert kinds and set(kinds) <= MODELS_KINDS, (entry.failure, kinds)
        assert not entry.failure.startswith(("llm_error", "sandbox")), entry.failure
    for entry in queue.entries():
        answered = [r for r in queue.rounds(entry.entry_id) if r["problem_kind"] != "prompt_too_long"]
        assert all(r["finish_reason"] in {"stop", "length"} and r["prompt_tokens"] > 0 for r in answered)
    again, resumed, err = build(store, real_endpoint)
    assert again == code, err
    assert resumed["built"]["ml"]["items"] == ml["items"] and resumed["llm"]["requests"] == 0


def test_build_ml_with_no_server_is_ours_records_nothing_and_names_the_fix(
    clean_llm_environment: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    monkeypatch.setenv("SURGE_LLM_BASE_URL", url)
    monkeypatch.setenv("SURGE_LLM_MODEL", "any")
    monkeypatch.setenv("SURGE_LLM_MAX_RETRIES", "1")
    monkeypatch.setenv("SURGE_LLM_BACKOFF_BASE_S", "0.1")
    store = clean_llm_environment / "store"
    code, summary, err = build(store, clean_llm_environment)
    assert code == 1, err
    errors = [line for line in err.splitlines() if line.startswith("surge build: error:")]
    assert errors and all("(fix: " in line for line in errors), err
    assert summary["built"]["ml"]["items"] == 0  # no outcome recorded: the next run builds them
