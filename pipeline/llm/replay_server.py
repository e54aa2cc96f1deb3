"""The offline LLM default: recorded responses served over the chat-completions protocol, locally.

With no ``SURGE_LLM_BASE_URL``, ``surge build`` starts this server on 127.0.0.1 (a free port, for the
life of the build) and points the ordinary LLM client at it, so the offline path is the same HTTP path
as a real endpoint. Recorded responses are JSONL lines ``{"match": text, "content": answer}``: a
request gets the first recorded answer whose ``match`` occurs in its messages (a list of texts: all of
them must occur, e.g. the prompt's own words and the program's) (reusable, unlike the
scripted test server in tests/refactor/openai_replay.py); a request nothing matches gets a 404-style
error, which the refactor loop records as that item's failure. Rows made this way say so
(``DatasetRow.recorded_llm``).

It answers in the shapes a real server does (tests/llm/test_standin_shape.py sends the same requests to
llama-cpp-python's server and to this one and compares them): the same fields and types, an answer cut at
``max_tokens`` (counted at ``CHARS_PER_TOKEN``) with finish_reason ``length``, and, given a
``context_tokens``, a prompt that fills it refused with HTTP 400 in the words of llama-cpp-python and
OpenAI; a body that is not JSON, one that fails validation, an unknown route and /v1/models as
llama-cpp-python's server answers them (HTTP 500 for the first two: it never says 400 for those).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDED_MODEL = "recorded-responses"
CHARS_PER_TOKEN = 4  # what an estimated token count assumes, where a stand-in counts tokens
NOT_FOUND = {"detail": "Not Found"}  # an unknown route, as FastAPI-based servers (llama-cpp-python, vLLM) say


@dataclass(frozen=True)
class Recorded:
    match: str | list[str]
    content: str

    def matches(self, text: str) -> bool:
        wanted = [self.match] if isinstance(self.match, str) else self.match
        return all(part in text for part in wanted)


def load_recorded(path: Path) -> list[Recorded]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Recorded(**json.loads(line)) for line in lines if line.strip()]


class RecordedServer:
    """A real HTTP server on 127.0.0.1; use as a context manager. ``context_tokens`` (0: none) is the context
    a prompt must fit, estimated at ``CHARS_PER_TOKEN``."""

    def __init__(self, recorded: list[Recorded], port: int = 0, context_tokens: int = 0) -> None:
        self.recorded = recorded
        self.context_tokens = context_tokens
        self.requests = 0
        self.refused = 0  # prompts refused as longer than the context
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))  # 0: a free port
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> str | None:
        text = json.dumps(body.get("messages", []), ensure_ascii=False)
        self.requests += 1
        return next((r.content for r in self.recorded if r.matches(text)), None)

    def usage(self, body: dict[str, Any], content: str) -> dict[str, int]:
        """Token counts reported with an answer: none by default (recorded answers cost nothing); a test
        server overrides it to exercise budgets."""
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}

    def too_long(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The error a real server sends for a prompt that fills the context, or None if it fits."""
        prompt = prompt_tokens(body)
        if not self.context_tokens or prompt < self.context_tokens:
            return None
        self.refused += 1
        completion = body.get("max_tokens")
        return {
            "message": f"This model's maximum context length is {self.context_tokens} tokens. However, you "
            f"requested {prompt + (completion or 0)} tokens ({prompt} in the messages, {completion} in the "
            "completion). Please reduce the length of the messages or completion.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }

    def __enter__(self) -> RecordedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def prompt_tokens(body: dict[str, Any]) -> int:
    return len(json.dumps(body.get("messages", []), ensure_ascii=False)) // CHARS_PER_TOKEN


def _handler(server: RecordedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, _models())
            else:
                self._send(404, NOT_FOUND)

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.endswith("/chat/completions"):
                self._send(404, NOT_FOUND)
                return
            try:
                body = json.loads(raw)
            except ValueError:  # as FastAPI-based servers fail on it: their error page, not JSON
                self._send_text(500, "Internal Server Error")
                return
            if (invalid := _invalid(body)) is not None:
                self._send(500, {"error": invalid})
                return
            if (refusal := server.too_long(body)) is not None:
                self._send(400, {"error": refusal})
                return
            content = server.answer(body)
            if content is None:
                self._send(404, {"error": NO_RECORDING})
                return
            content, finish_reason = _cut(content, body.get("max_tokens"))
            self._send(200, _completion(body, content, finish_reason, server.usage(body, content)))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            self._send_bytes(status, json.dumps(payload).encode(), "application/json")

        def _send_text(self, status: int, text: str) -> None:
            self._send_bytes(status, text.encode(), "text/plain; charset=utf-8")

        def _send_bytes(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


NO_RECORDING = {
    "message": "no recorded response matches this request",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "no_recorded_response",
}


def _invalid(body: Any) -> dict[str, Any] | None:
    """Why a request is not one this server can read, in llama-cpp-python's words for a body that fails its
    validation (HTTP 500, an internal_server_error); None if it can be read. Absent messages are none."""
    if not isinstance(body, dict):
        problem = "the body should be a valid dictionary or object to extract fields from"
    elif not isinstance(body.get("messages", []), list):
        problem = "messages should be a valid list"
    elif not isinstance(body.get("max_tokens", 0), int | None):
        problem = "max_tokens should be a valid integer"
    else:
        return None
    return {
        "message": f"1 validation error: {problem}",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }


def _cut(content: str, max_tokens: object) -> tuple[str, str]:
    """The answer as far as ``max_tokens`` lets it go, and why it ended."""
    if isinstance(max_tokens, int) and len(content) > max_tokens * CHARS_PER_TOKEN:
        return content[: max_tokens * CHARS_PER_TOKEN], "length"
    return content, "stop"


def _models() -> dict[str, Any]:
    model = {"id": RECORDED_MODEL, "object": "model", "owned_by": "me", "permissions": []}
    return {"object": "list", "data": [model]}


def _completion(
    body: dict[str, Any], content: str, finish_reason: str, usage: dict[str, int]
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-recorded",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", RECORDED_MODEL),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": usage,
    }
