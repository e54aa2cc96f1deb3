"""The stand-ins cannot drift from a real server: the same requests go to llama-cpp-python's server and to
each stand-in (pipeline/llm/replay_server.py's recorded server, the stand-in endpoint of tests/standin/,
and the scripted server of tests/refactor/openai_replay.py), and every answer must have the real one's
status, content type and shape (the fields and their types, ``usage``, the finish_reason, error bodies).

What the content says is not compared (the stand-ins answer from recordings, the model from its weights);
that the stand-in answers at all is what the recordings arrange.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from pipeline.llm.overflow import context_overflow
from pipeline.llm.replay_server import Recorded, RecordedServer
from tests.llm.local_server import CONTEXT_TOKENS, MODEL, LocalModelServer
from tests.refactor.openai_replay import ReplayServer, Reply
from tests.standin.server import StandInServer

pytestmark = pytest.mark.llm

QUESTION = "Say hello."
ANSWER = "Hello there, my friend. How are you today?"
LONG_PROMPT = "word " * 3000  # ~3000 tokens for SmolLM2's tokenizer, 3750 at four characters a token


def chat(model: str = MODEL, content: str = QUESTION, **params: Any) -> bytes:
    body = {"model": model, "messages": [{"role": "user", "content": content}], "temperature": 0, **params}
    return json.dumps(body).encode()


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    raw: bytes | None = None


CASES = [
    Case("an answer", "POST", "/chat/completions", chat(max_tokens=48)),
    Case("an answer cut at max_tokens", "POST", "/chat/completions", chat(max_tokens=2)),
    Case("an unknown model", "POST", "/chat/completions", chat(model="no-such-model", max_tokens=48)),
    Case("a prompt longer than the context", "POST", "/chat/completions", chat(content=LONG_PROMPT)),
    Case("malformed JSON", "POST", "/chat/completions", b'{"model": "m", "messages": ['),
    Case("messages that are no list", "POST", "/chat/completions", json.dumps({"messages": "hi"}).encode()),
    Case("a body that is no object", "POST", "/chat/completions", b"[1, 2]"),
    Case("an unknown route", "POST", "/chat/completion", chat()),
    Case("the models", "GET", "/models"),
]


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: Any  # the parsed JSON, or the text

    def shape(self) -> Any:
        return (self.status, self.content_type, shape_of(self.body))


def send(base_url: str, case: Case) -> Answer:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=300)
    headers = {"Content-Type": "application/json"} if case.raw is not None else {}
    try:
        connection.request(case.method, parts.path + case.path, body=case.raw, headers=headers)
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    content_type = (response.getheader("Content-Type") or "").split(";")[0].strip()
    body = json.loads(data) if content_type == "application/json" else data.decode("utf-8", "replace")
    return Answer(response.status, content_type, body)


def shape_of(value: Any) -> Any:
    """The fields and types of a JSON value; a text body's shape is the text itself (an error page)."""
    if isinstance(value, dict):
        return {key: shape_of(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [shape_of(item) for item in value[:1]]
    return type(value).__name__


@pytest.fixture(scope="module")
def real_answers(real_server: LocalModelServer) -> dict[str, Answer]:
    return {case.name: send(real_server.base_url, case) for case in CASES}


def recorded_server(tmp_path: Path) -> RecordedServer:
    return RecordedServer([Recorded(match=QUESTION, content=ANSWER)], context_tokens=CONTEXT_TOKENS)


def standin_server(tmp_path: Path) -> RecordedServer:
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"match": QUESTION, "content": ANSWER}) + "\n", encoding="utf-8")
    return StandInServer(responses, context_tokens=CONTEXT_TOKENS)


STANDINS: dict[str, Callable[[Path], RecordedServer]] = {
    "recorded server": recorded_server,
    "stand-in endpoint": standin_server,
}


@pytest.fixture(params=sorted(STANDINS))
def standin_answers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Answer]]:
    with STANDINS[request.param](tmp_path) as server:
        yield {case.name: send(server.base_url, case) for case in CASES}


@pytest.mark.parametrize("case", [case.name for case in CASES])
def test_each_answer_has_the_real_servers_status_type_and_shape(
    case: str, real_answers: dict[str, Answer], standin_answers: dict[str, Answer]
) -> None:
    real, standin = real_answers[case], standin_answers[case]
    assert standin.shape() == real.shape(), f"{case}: real {real.body!r}, stand-in {standin.body!r}"


def test_the_answers_values_that_the_client_reads_agree(
    real_answers: dict[str, Answer], standin_answers: dict[str, Answer]
) -> None:
    for answers in (real_answers, standin_answers):
        answered, cut = answers["an answer"].body, answers["an answer cut at max_tokens"].body
        assert answered["object"] == "chat.completion" and answered["choices"][0]["index"] == 0
        assert answered["choices"][0]["message"]["role"] == "assistant"
        assert answered["choices"][0]["finish_reason"] in {"stop", "length"}
        assert cut["choices"][0]["finish_reason"] == "length"
        usage = cut["usage"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        # the model asked for is the model named in the answer, known or not
        assert answers["an unknown model"].body["model"] == "no-such-model"
        refusal = answers["a prompt longer than the context"]
        assert refusal.body["error"]["code"] == "context_length_exceeded"
        overflow = context_overflow(refusal.status, json.dumps(refusal.body))
        assert overflow is not None and overflow.prompt_alone and overflow.context_tokens == CONTEXT_TOKENS
    assert real_answers["an answer cut at max_tokens"].body["usage"]["completion_tokens"] == 2


def test_the_scripted_servers_answer_has_the_real_shape(real_answers: dict[str, Answer]) -> None:
    with ReplayServer([Reply(ANSWER)]) as server:
        scripted = send(server.base_url, CASES[0])
    assert scripted.shape() == real_answers["an answer"].shape()
