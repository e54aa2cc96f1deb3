"""A real HTTP server speaking the OpenAI chat-completions protocol, replaying scripted answers.

Each scripted Reply is used once, in order, by the first request whose messages contain its `match`
text (None matches any request). It can answer with an error status, a Retry-After header, or after a
delay (to provoke client timeouts). Every request body is kept in `requests` for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    match: str | None = None
    prompt_tokens: int = 100
    completion_tokens: int = 50
    error: dict[str, Any] | None = None  # the error object of a non-200 answer (default: a plain message)


def code(language: str, source: str, prose: str = "Here is the program:") -> str:
    """An answer as models write them: prose, then a fenced block."""
    return f"{prose}\n\n```{language}\n{source}\n```\n"


class ReplayServer:
    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies: list[Reply] = list(replies or [])
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str | None] = []  # the Authorization header of each request
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        # A short poll interval: shutdown() waits up to one interval, and tests start many servers.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        text = json.dumps(body.get("messages", []), ensure_ascii=False)
        with self._lock:
            self.requests.append(body)
            for index, reply in enumerate(self.replies):
                if reply.match is None or reply.match in text:
                    return self.replies.pop(index)
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep pytest output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                replay.authorizations.append(self.headers.get("Authorization"))
                reply = replay._next_reply(body)
                if reply is None:
                    self._send(500, {"error": {"message": "replay script exhausted"}})
                    return
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    error = reply.error or {"message": "scripted error"}
                    self._send(reply.status, {"error": error}, reply.headers)
                    return
                self._send(200, _completion(body, reply), reply.headers)

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        return Handler


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {
        "id": "chatcmpl-replay",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "replay"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "logprobs": None,
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }
