"""`surge predict` and `surge score` against a real model server (SmolLM2-135M on llama-cpp-python's server).

What a real server does that the stand-ins were written to imitate, here for real: one request at a time
(three in flight queue), answers cut at max_tokens, a prompt longer than the context refused with HTTP 400,
a generation slower than the timeout, and the server gone in the middle of a run. The model's failures are
its answers (kept, scored, not asked again); ours (no answer in time, no server) stop the command with
exit 1 and one line naming the fix, record nothing for the item, and the next run resumes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from tests.llm.local_server import MODEL, LocalModelServer
from tests.surge_process import surge_env

pytestmark = pytest.mark.llm

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "sources" / "samples" / "surge-released"
PRICE_PROMPT_PER_1K, PRICE_COMPLETION_PER_1K = 0.5, 1.5
ANSWER_TOKENS = "192"  # SmolLM2 often runs on to its context's end; this bounds a request to a few seconds


@pytest.fixture
def dataset(real_endpoint: Path) -> Path:
    """ml, cl and bg of the bundled release sample (3 records each), as `surge export` lays a dataset out."""
    folder = real_endpoint / "dataset"
    folder.mkdir()
    for subset in ("ml", "cl", "bg"):
        shutil.copy(RELEASE / f"{subset}.json", folder / f"{subset}.json")
    return folder


def predict(dataset: Path, output: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, Any]:
    """The exit code, and the summary (exit 0 or 3) or the lines on stderr (otherwise)."""
    capsys.readouterr()
    code = main(["predict", str(dataset), "--output", str(output), "--json", *flags])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code in (0, 3) else captured.err.strip().splitlines())


def lines(output: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]


def test_three_in_flight_on_one_slot_all_answered_accounted_and_scored(
    dataset: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SURGE_LLM_MAX_TOKENS", ANSWER_TOKENS)
    monkeypatch.setenv("SURGE_LLM_PRICE_PROMPT_PER_1K", str(PRICE_PROMPT_PER_1K))
    monkeypatch.setenv("SURGE_LLM_PRICE_COMPLETION_PER_1K", str(PRICE_COMPLETION_PER_1K))
    output = dataset.parent / "predictions.jsonl"
    flags = ("--subset", "ml", "--subset", "cl", "--concurrency", "3")
    code, summary = predict(dataset, output, capsys, *flags)  # the server takes them one at a time
    assert code == 0, summary
    written = lines(output)
    assert len(written) == summary["written"] == 6
    for line in written:
        assert line["model"] == MODEL and line["finish_reason"] in {"stop", "length"}
        assert line["prompt_tokens"] > 0 and line["completion_tokens"] > 0
        cost = (
            line["prompt_tokens"] * PRICE_PROMPT_PER_1K + line["completion_tokens"] * PRICE_COMPLETION_PER_1K
        )
        assert line["cost_usd"] == pytest.approx(cost / 1000, abs=1e-8)
    assert summary["prompt_tokens"] == sum(line["prompt_tokens"] for line in written)
    assert summary["truncated"] == sum(line["finish_reason"] == "length" for line in written)
    capsys.readouterr()
    assert main(["score", str(output), "--dataset", str(dataset), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["coverage"][str(dataset)]["missing"] == 3  # bg was not asked
    assert all(0.0 <= figures["mean"] <= 1.0 for figures in scored["datasets"][str(dataset)].values())
    code, again = predict(dataset, output, capsys, *flags)  # a rerun resumes: nothing left to ask
    assert (code, again["already_done"], again["to_ask"], len(lines(output))) == (0, 6, 0, 6)


def test_an_answer_cut_at_max_tokens_is_the_models_and_kept(
    dataset: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SURGE_LLM_MAX_TOKENS", "3")
    output = dataset.parent / "predictions.jsonl"
    code, summary = predict(dataset, output, capsys, "--subset", "ml", "--limit", "2")
    assert code == 0 and summary["truncated"] == 2
    assert [(line["finish_reason"], line["completion_tokens"]) for line in lines(output)] == [
        ("length", 3)
    ] * 2


def test_a_prompt_longer_than_the_context_is_the_models_failure_kept_as_its_answer(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = dataset.parent / "predictions.jsonl"
    # bg's few-shot prompt is about 10,000 characters: more than SmolLM2's 2048 tokens here
    flags = ("--subset", "bg", "--prompt", "few-shot", "--limit", "1")
    code, summary = predict(dataset, output, capsys, *flags)
    assert code == 0 and summary["prompt_too_long"] == 1
    [line] = lines(output)
    assert (line["finish_reason"], line["prediction"]) == ("context_length_exceeded", "")
    code, again = predict(dataset, output, capsys, "--subset", "bg", "--prompt", "few-shot")
    assert code == 0 and again["already_done"] == 1  # never asked again


def test_a_generation_slower_than_the_timeout_is_ours_and_records_nothing(
    dataset: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SURGE_LLM_MAX_TOKENS", ANSWER_TOKENS)
    monkeypatch.setenv("SURGE_LLM_TIMEOUT_S", "0.05")  # reading the prompt alone takes longer
    monkeypatch.setenv("SURGE_LLM_MAX_RETRIES", "1")
    monkeypatch.setenv("SURGE_LLM_BACKOFF_BASE_S", "0.1")
    output = dataset.parent / "predictions.jsonl"
    code, err = predict(dataset, output, capsys, "--subset", "ml", "--limit", "1")
    assert code == 1 and len(err) == 1, err
    assert "ReadTimeout" in err[0] and "(fix: " in err[0] and "SURGE_LLM_TIMEOUT_S (0.05 s)" in err[0]
    assert output.read_text() == ""
    monkeypatch.setenv("SURGE_LLM_TIMEOUT_S", "300")
    code, summary = predict(dataset, output, capsys, "--subset", "ml", "--limit", "1")
    assert code == 0 and summary["written"] == 1 and len(lines(output)) == 1


def test_the_server_gone_mid_run_is_ours_and_the_rerun_resumes(real_endpoint: Path, dataset: Path) -> None:
    """A server of its own, stopped once the first answer is written, then started again on its port."""
    output = real_endpoint / "predictions.jsonl"
    log = real_endpoint / "server.log"
    with LocalModelServer(log) as server:
        env = surge_env(
            SURGE_LLM_BASE_URL=server.base_url,
            SURGE_LLM_MAX_TOKENS=ANSWER_TOKENS,
            SURGE_LLM_MAX_RETRIES="1",
            SURGE_LLM_BACKOFF_BASE_S="0.1",
            PREFECT_HOME=str(real_endpoint / "prefect"),
        )
        command = [sys.executable, "-m", "pipeline.cli", "predict", str(dataset), "--output", str(output)]
        command += ["--subset", "ml", "--subset", "cl", "--concurrency", "1"]
        process = subprocess.Popen(command, cwd=real_endpoint, env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while not (output.exists() and output.read_text()) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.2)
        server.stop()
        _, err = process.communicate(timeout=120)
        port = server.port
    assert process.returncode == 1, err
    [reason] = err.strip().splitlines()
    assert f"nothing answers at {server.base_url}: start the server" in reason and "(fix: " in reason
    kept = lines(output)
    assert 1 <= len(kept) < 6
    with LocalModelServer(log, port=port):
        rerun = subprocess.run(
            command, cwd=real_endpoint, env=env, capture_output=True, text=True, timeout=600
        )
    assert rerun.returncode == 0, rerun.stderr
    ids = [line["item_id"] for line in lines(output)]
    assert len(ids) == 6 == len(set(ids)) and lines(output)[: len(kept)] == kept
