"""`surge predict` against a local stand-in endpoint, then `surge score`: the score, resume, budget, failures.

The stand-in is the offline server `surge build` uses (pipeline/llm/replay_server.py), answering from the
record's question: it counts the requests it gets per item, so resuming is checked where it matters (no
repeated request), not by reading our own output back.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.llm.replay_server import RecordedServer
from sources.surge_release import load_release

ROOT = Path(__file__).resolve().parents[2]
RELEASED_ML = ROOT / "sources" / "samples" / "surge-released" / "ml.json"
TOKENS_PER_ANSWER = (10, 5)  # prompt, completion: what the stand-in reports for every answer


class StandIn(RecordedServer):
    """Answers each question from a table; blocks on one question until released, when told to."""

    def __init__(self, answers: dict[str, str], hold: str | None = None, context_tokens: int = 0) -> None:
        super().__init__([], context_tokens=context_tokens)
        self.answers = answers
        self.asked: dict[str, int] = {}
        self.bodies: list[dict[str, Any]] = []
        self.hold = hold
        self.held = threading.Event()
        self.release = threading.Event()

    def answer(self, body: dict[str, Any]) -> str | None:
        question = body["messages"][-1]["content"]
        self.asked[question] = self.asked.get(question, 0) + 1
        self.bodies.append(body)
        if question == self.hold:
            self.held.set()
            self.release.wait(timeout=60)
        return self.answers.get(question)

    def __enter__(self) -> StandIn:
        super().__enter__()
        return self

    def usage(self, body: dict[str, Any], content: str) -> dict[str, int]:
        prompt, completion = TOKENS_PER_ANSWER
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "dataset"
    folder.mkdir()
    shutil.copy(RELEASED_ML, folder / "ml.json")
    return folder


@pytest.fixture(autouse=True)
def no_llm_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("SURGE_LLM_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SURGE_LLM_MAX_RETRIES", "0")
    monkeypatch.chdir(tmp_path)


def records(dataset: Path) -> list[Any]:
    loaded, bad = load_release(dataset)
    assert not bad and len(loaded) == 3
    return loaded


def two_right_one_wrong(dataset: Path) -> dict[str, str]:
    """The ground truth, as a CoT reply would give it, for items 0 and 1; a wrong answer for item 2."""
    first, second, third = records(dataset)
    return {
        first.question: f"Thought: it prints its constant.\nOutput:\n{first.gt}",
        second.question: f"Output:\n```\n{second.gt}\n```",
        third.question: "Output:\nsomething else entirely",
    }


def predict(dataset: Path, server: StandIn, output: Path, *flags: str) -> int:
    argv = ["predict", str(dataset), "--model", "stand-in", "--output", str(output)]
    return main([*argv, "--llm-base-url", server.base_url, *flags])


def lines(output: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]


def ml_mean(capsys: pytest.CaptureFixture[str], output: Path, dataset: Path) -> float:
    capsys.readouterr()
    assert main(["score", str(output), "--dataset", str(dataset), "--missing-as-zero", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    return float(summary["datasets"][str(dataset)]["ml"]["mean"])


def test_predictions_score_under_surges_metric(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "predictions.jsonl"
    with StandIn(two_right_one_wrong(dataset)) as server:
        assert predict(dataset, server, output, "--prompt", "cot") == 0
    first = records(dataset)[0]
    # the record's own prompt as the system message, its question as the user message, nothing added
    sent = next(body for body in server.bodies if body["messages"][-1]["content"] == first.question)
    assert sent["messages"] == [
        {"role": "system", "content": first.prompts["sys_cot"]},
        {"role": "user", "content": first.question},
    ]
    written = {line["index"]: line for line in lines(output)}
    assert sorted(written) == [0, 1, 2]
    assert written[0]["item_id"] == first.item_id and written[0]["extracted"] == first.gt
    assert (written[0]["prompt_tokens"], written[0]["completion_tokens"]) == TOKENS_PER_ANSWER
    assert written[0]["model"] == "stand-in" and written[0]["prompt"] == "cot"
    assert ml_mean(capsys, output, dataset) == pytest.approx(2 / 3, abs=1e-6)


def test_item_ids_keep_scoring_right_when_the_dataset_is_reordered(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "predictions.jsonl"
    with StandIn(two_right_one_wrong(dataset)) as server:
        assert predict(dataset, server, output) == 0
    # Reversed, only the middle record keeps its position: matched by index the score would be 1 of 3; by
    # item id it stays 2 of 3.
    shuffled = tmp_path / "reordered"
    shuffled.mkdir()
    released = json.loads(RELEASED_ML.read_text(encoding="utf-8"))
    (shuffled / "ml.json").write_text(json.dumps(released[::-1]), encoding="utf-8")
    assert ml_mean(capsys, output, shuffled) == pytest.approx(2 / 3, abs=1e-6)


def test_item_ids_match_the_same_items_in_a_dataset_with_a_corrected_label(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "predictions.jsonl"
    with StandIn(two_right_one_wrong(dataset)) as server:
        assert predict(dataset, server, output) == 0
    # Item 0 was answered right; its label "corrected" makes that answer wrong: 2/3 -> 1/3, every item
    # matched (an item id that hashed the label matched nothing and scored 2 of 2).
    corrected = tmp_path / "corrected"
    corrected.mkdir()
    released = json.loads(RELEASED_ML.read_text(encoding="utf-8"))
    released[0]["gt"] = released[0]["gt"] + " (corrected)"
    (corrected / "ml.json").write_text(json.dumps(released), encoding="utf-8")
    capsys.readouterr()
    argv = ["score", str(output), "--dataset", str(dataset), "--dataset", str(corrected), "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["coverage"][str(corrected)]["missing"] == 0
    assert float(summary["datasets"][str(corrected)]["ml"]["mean"]) == pytest.approx(1 / 3, abs=1e-6)


def test_a_rerun_after_kill_9_asks_no_finished_item_again(dataset: Path, tmp_path: Path) -> None:
    output = tmp_path / "predictions.jsonl"
    questions = [record.question for record in records(dataset)]
    with StandIn(two_right_one_wrong(dataset), hold=questions[2]) as server:
        command = [sys.executable, "-m", "pipeline.cli", "predict", str(dataset), "--model", "stand-in"]
        command += ["--output", str(output), "--llm-base-url", server.base_url, "--concurrency", "1"]
        env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
        try:
            assert server.held.wait(timeout=120), process.stderr and process.stderr.read()
            process.send_signal(signal.SIGKILL)  # while item 2's request is in flight
            process.wait(timeout=30)
        finally:
            server.release.set()
            if process.poll() is None:
                process.kill()
        assert [line["index"] for line in lines(output)] == [0, 1]
        with output.open("a", encoding="utf-8") as torn:  # what a kill in the middle of a write leaves
            torn.write('{"item_id": "0123')
        before = dict(server.asked)
        server.hold = None
        assert predict(dataset, server, output) == 0
    repeated = {q: server.asked[q] - before.get(q, 0) for q in questions}
    assert repeated == {questions[0]: 0, questions[1]: 0, questions[2]: 1}
    assert sorted(line["index"] for line in lines(output)) == [0, 1, 2]


def test_the_budget_stops_asking_and_says_done_but(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "predictions.jsonl"
    with StandIn(two_right_one_wrong(dataset)) as server:
        # 15 tokens an answer: after the first 15 < 20, after the second 30 >= 20, so the third is never asked
        code = predict(dataset, server, output, "--budget", "20tokens", "--concurrency", "1", "--json")
        summary = json.loads(capsys.readouterr().out)
        assert code == 3
        assert (summary["asked"], summary["written"], summary["stopped_by_budget"]) == (2, 2, True)
        assert sum(server.asked.values()) == 2
        assert predict(dataset, server, output) == 0
        assert "done, but the budget stopped it" not in capsys.readouterr().out
    assert sum(server.asked.values()) == 3 and len(lines(output)) == 3


def test_a_failing_endpoint_is_a_failure_of_ours_and_keeps_the_finished(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "predictions.jsonl"
    answers = two_right_one_wrong(dataset)
    del answers[records(dataset)[2].question]  # the stand-in refuses item 2 (HTTP 404)
    with StandIn(answers) as server:
        code = predict(dataset, server, output, "--concurrency", "1")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and "the endpoint failed" in err[0] and "(fix: " in err[0]
    assert [line["index"] for line in lines(output)] == [0, 1]


def test_a_prompt_longer_than_the_models_context_is_its_failure_kept_as_its_answer(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "predictions.jsonl"
    questions = [record.question for record in records(dataset)]
    # About 115, 215 and 320 tokens at four characters a token: the context refuses item 2's prompt with
    # HTTP 400, as llama-cpp-python, vLLM and OpenAI do.
    with StandIn(two_right_one_wrong(dataset), context_tokens=300) as server:
        assert predict(dataset, server, output, "--json") == 0
        summary = json.loads(capsys.readouterr().out)
        assert predict(dataset, server, output) == 0  # a rerun asks it no more than the answered ones
    assert server.refused == 1 and server.asked == {questions[0]: 1, questions[1]: 1}
    written = {line["index"]: line for line in lines(output)}
    assert written[2]["finish_reason"] == "context_length_exceeded" and written[2]["prediction"] == ""
    assert (summary["written"], summary["prompt_too_long"], summary["truncated"]) == (3, 1, 0)
    # scored as a wrong answer, not left out: without --missing-as-zero a missing item would make it 2 of 2
    capsys.readouterr()
    assert main(["score", str(output), "--dataset", str(dataset), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["coverage"][str(dataset)]["missing"] == 0
    assert scored["datasets"][str(dataset)]["ml"]["mean"] == pytest.approx(2 / 3, abs=1e-6)


def test_no_endpoint_is_refused_with_the_fix(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["predict", str(dataset), "--model", "m", "--output", str(tmp_path / "p.jsonl")])
    assert code == 2
    assert "SURGE_LLM_BASE_URL" in capsys.readouterr().err
    assert not (tmp_path / "p.jsonl").exists()


def test_a_dollar_budget_without_prices_is_refused(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with StandIn({}) as server:
        assert predict(dataset, server, Path("p.jsonl"), "--budget", "$1") == 2
    assert "SURGE_LLM_PRICE_PROMPT_PER_1K" in capsys.readouterr().err
    assert server.asked == {}
