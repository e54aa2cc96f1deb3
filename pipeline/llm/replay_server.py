"""The offline LLM default: recorded responses served over the chat-completions protocol, locally.

With no ``SURGE_LLM_BASE_URL``, ``surge build`` starts this server on 127.0.0.1 (a free port, for the
life of the build) and points the ordinary LLM client at it, so the offline path is the same HTTP path
as a real endpoint. Recorded responses are JSONL lines ``{"match": text, "content": answer}``: a
request gets the first recorded answer whose ``match`` occurs in its messages (a list of texts: all of
them must occur, e.g. the prompt's own words and the program's) (reusable, unlike the
scripted test server in tests/refactor/openai_replay.py); a request nothing matches gets a 404-style
error, which the refactor loop records as that item's failure. Rows made this way say so
(``DatasetRow.recorded_llm``).
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
    """A real HTTP server on 127.0.0.1; use as a context manager."""

    def __init__(self, recorded: list[Recorded], port: int = 0) -> None:
        self.recorded = recorded
        self.requests = 0
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

    def __enter__(self) -> RecordedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(server: RecordedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            content = server.answer(body) if self.path.endswith("/chat/completions") else None
            if content is None:
                self._send(404, {"error": {"message": "no recorded response matches this request"}})
                return
            self._send(200, _completion(body, content, server.usage(body, content)))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _completion(body: dict[str, Any], content: str, usage: dict[str, int]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-recorded",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", RECORDED_MODEL),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": usage,
    }
