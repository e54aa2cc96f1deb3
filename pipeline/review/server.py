"""`surge review serve`: a local page (stdlib http.server) over the review queue.

GET  /                          the page (package data: static/review.html; plain HTML + inline JS, no CDN)
GET  /api/entries[?state=S]     list
GET  /api/entries/ID            one entry: upstream item, program, run output, leak warnings, rounds
POST /api/entries/ID/approve    {"reviewer"}
POST /api/entries/ID/reject     {"reviewer", "reason"}
POST /api/entries/ID/edit       {"reviewer", "text"}: re-executed; accepted as 'edited' only if it runs

POSTs must be JSON: a page on another site cannot send that without a CORS preflight, which this server never
grants, so a browser tab elsewhere cannot decide entries behind the reviewer's back.
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlparse

from pipeline.errors import InputError, SurgeError
from pipeline.review.queue import Entry, ReviewQueue, Runner

MAX_BODY_BYTES = 4 << 20
_ACTION = re.compile(r"^/api/entries/(?P<id>[0-9a-f]+)(?:/(?P<action>approve|reject|edit))?$")


def page_html() -> bytes:
    return resources.files("pipeline.review.static").joinpath("review.html").read_bytes()


def entry_view(queue: ReviewQueue, entry: Entry) -> dict[str, Any]:
    data = entry.model_dump(mode="json")
    data["editable_text"] = entry.editable_text
    data["run_is_acceptable"] = entry.run_is_acceptable
    data["rounds"] = len(queue.rounds(entry.entry_id))
    return data


def make_server(
    queue: ReviewQueue, runner: Runner, reviewer: str, host: str = "127.0.0.1", port: int = 0
) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            url = urlparse(self.path)
            if url.path in ("/", "/index.html"):
                self._send(200, page_html(), "text/html; charset=utf-8")
            elif url.path == "/api/entries":
                state = (parse_qs(url.query).get("state") or [""])[0] or None
                rows = [e.summary() for e in queue.entries(state)]
                self._json(200, {"entries": rows, "counts": queue.counts(), "reviewer": reviewer})
            elif match := _ACTION.match(url.path):
                self._guard(lambda: entry_view(queue, queue.get(match["id"])))
            else:
                self._json(404, {"error": f"no page {url.path}"})

        def do_POST(self) -> None:  # noqa: N802
            match = _ACTION.match(urlparse(self.path).path)
            if not match or not match["action"]:
                self._json(404, {"error": "no such action"})
                return
            if not (self.headers.get("Content-Type") or "").startswith("application/json"):
                self._json(415, {"error": "send JSON (Content-Type: application/json)"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self._json(413, {"error": "request too large"})
                return
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json(400, {"error": "the body is not JSON"})
                return
            who = str(body.get("reviewer") or reviewer)
            actions = {
                "approve": lambda: queue.approve(match["id"], who, _difficulty(body)),
                "reject": lambda: queue.reject(match["id"], who, str(body.get("reason") or "")),
                "edit": lambda: queue.edit(
                    match["id"], who, str(body.get("text") or ""), runner, _difficulty(body)
                ),
            }
            self._guard(lambda: entry_view(queue, actions[match["action"]]()))

        def _guard(self, produce: Any) -> None:
            try:
                self._json(200, produce())
            except SurgeError as error:
                self._json(409, {"error": str(error), "hint": error.hint})

        def _json(self, status: int, payload: Any) -> None:
            self._send(status, json.dumps(payload, default=str).encode(), "application/json")

        def _send(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def _difficulty(body: dict[str, Any]) -> int | None:
    """The reviewer's difficulty from a JSON body (absent or empty: confirm the proposal)."""
    value: Any = body.get("difficulty")
    if value in (None, ""):
        return None
    try:
        return int(str(value))
    except (TypeError, ValueError):
        raise InputError(f"difficulty {value!r} is not a number", hint="send 1 to 5") from None
