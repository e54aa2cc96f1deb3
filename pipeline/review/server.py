"""`surge review serve`: a local page (stdlib http.server) over the review queue.

GET  /                          the page (package data: static/review.html; plain HTML + inline JS, no CDN)
GET  /api/entries[?state=S]     list
GET  /api/entries/ID            one entry: upstream item, program, run output, leak warnings, rounds
POST /api/entries/ID/approve    {"reviewer"}
POST /api/entries/ID/reject     {"reviewer", "reason"}
POST /api/entries/ID/edit       {"reviewer", "text"}: re-executed; accepted as 'edited' only if it runs

POSTs must be JSON: a page on another site cannot send that without a CORS preflight, which this server never
grants, so a browser tab elsewhere cannot decide entries behind the reviewer's back.

Every request, GET included, passes the access check (``Access``) first. A loopback bind answers only a Host
header naming the loopback itself (127.0.0.1, localhost or [::1] with the port): a DNS-rebinding page
resolves its own name to 127.0.0.1, and its requests still carry that name as Host, so it can neither read
the queue nor change it. An Origin header, when sent, must name the same place. A bind beyond loopback
cannot know the names it is reached by, so it requires a token instead (from ``?token=``, a cookie the page
sets from it, or an ``X-Surge-Token`` header): a rebinding page does not know it, and the cookie belongs to
the address the reviewer opened, never to the attacker's name.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import socket
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlparse

from pipeline.errors import ConfigurationError, InputError, SurgeError
from pipeline.review.queue import Entry, ReviewQueue, Runner

MAX_BODY_BYTES = 4 << 20
_ACTION = re.compile(r"^/api/entries/(?P<id>[0-9a-f]+)(?:/(?P<action>approve|reject|edit))?$")
TOKEN_HEADER = "X-Surge-Token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
HTTP_DEFAULT_PORT = 80


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the page on this machine (a name other than localhost is not trusted
    to resolve to loopback: it counts as beyond)."""
    bare = host.strip("[]")
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """The bind address as a URL, and so a Host header, names it: an IPv6 address in brackets, once."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


@dataclass(frozen=True)
class Access:
    """Who may talk to the page: the Host values accepted (empty: any, a token guards instead) and the token
    every request must carry (None: none needed)."""

    hosts: frozenset[str]
    token: str | None
    port: int

    @classmethod
    def for_bind(cls, host: str, port: int, token: str | None) -> Access:
        if not is_loopback(host):
            if not token:
                raise ConfigurationError(
                    f"serving the review page on {host}, beyond this machine, needs a token",
                    hint="pass a token (surge review serve generates one), or bind 127.0.0.1",
                )
            return cls(hosts=frozenset(), token=token, port=port)
        # the address bound counts too: 127.0.0.2 is loopback, and the printed address names it
        loopback = {*LOOPBACK_NAMES, url_host(host).lower()}
        names = {f"{name}:{port}" for name in loopback}
        if port == HTTP_DEFAULT_PORT:  # a browser leaves the default port out of Host
            names |= loopback
        return cls(hosts=frozenset(names), token=token, port=port)

    def refusal(self, headers: Any, query: dict[str, list[str]]) -> tuple[int, str] | None:
        """(status, reason) when the request must be refused, else None."""
        host = (headers.get("Host") or "").strip().lower()
        if not host or (self.hosts and host not in self.hosts):
            return 403, f"this page answers only to {', '.join(sorted(self.hosts)) or 'its address'}"
        origin = headers.get("Origin")
        if origin is not None and origin.strip().lower() != f"http://{host}":
            return 403, "requests from another site's page are refused"
        if self.token and not self.token_matches(headers, query):
            return 401, "a token is needed: open the address `surge review serve` printed (?token=...)"
        return None

    def token_matches(self, headers: Any, query: dict[str, list[str]]) -> bool:
        offered = [
            headers.get(TOKEN_HEADER) or "",
            (query.get("token") or [""])[0],
            cookie_value(headers.get("Cookie") or "", self.cookie_name),
        ]
        expected = str(self.token).encode()
        return any(hmac.compare_digest(value.encode(), expected) for value in offered if value)

    @property
    def cookie_name(self) -> str:
        """Cookies are shared by every port of a host: one name per port keeps two pages' tokens apart."""
        return f"surge_review_token_{self.port}"


def cookie_value(header: str, name: str) -> str:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


def page_html() -> bytes:
    return resources.files("pipeline.review.static").joinpath("review.html").read_bytes()


def entry_view(queue: ReviewQueue, entry: Entry) -> dict[str, Any]:
    data = entry.model_dump(mode="json")
    data["editable_text"] = entry.editable_text
    data["run_is_acceptable"] = entry.run_is_acceptable
    data["rounds"] = len(queue.rounds(entry.entry_id))
    return data


def make_server(
    queue: ReviewQueue,
    runner: Runner,
    reviewer: str,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
) -> ThreadingHTTPServer:
    """The page's server, bound (port 0: any free port). Beyond loopback a ``token`` is required."""
    Access.for_bind(host, port, token)  # a bind beyond loopback without a token is refused before binding

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _allowed(self) -> bool:
            """Every request, GET too, passes the access check, or is answered with why not."""
            refused = access.refusal(self.headers, parse_qs(urlparse(self.path).query))
            if refused:
                self._json(refused[0], {"error": refused[1]})
            return refused is None

        def do_GET(self) -> None:  # noqa: N802
            if not self._allowed():
                return
            url = urlparse(self.path)
            if url.path in ("/", "/index.html") and access.token and "token" in parse_qs(url.query):
                self._enter_with_token(url.path)
            elif url.path in ("/", "/index.html"):
                self._send(200, page_html(), "text/html; charset=utf-8")
            elif url.path == "/api/entries":
                state = (parse_qs(url.query).get("state") or [""])[0] or None
                rows = [e.summary() for e in queue.entries(state)]
                self._json(200, {"entries": rows, "counts": queue.counts(), "reviewer": reviewer})
            elif match := _ACTION.match(url.path):
                self._guard(lambda: entry_view(queue, queue.get(match["id"])))
            else:
                self._json(404, {"error": f"no page {url.path}"})

        def _enter_with_token(self, path: str) -> None:
            """The printed address carries the token: keep it in a cookie the page's own requests send,
            and send the browser on to the address without it (out of its history and Referer)."""
            self.send_response(303)
            self.send_header(
                "Set-Cookie",
                f"{access.cookie_name}={access.token}; Path=/; HttpOnly; SameSite=Strict",
            )
            self.send_header("Location", path)
            self.send_header("Content-Length", "0")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802
            if not self._allowed():
                return
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

    server_class = IPv6Server if ":" in host else ThreadingHTTPServer
    server = server_class((host.strip("[]"), port), Handler)
    server.daemon_threads = True
    access = Access.for_bind(host, server.server_port, token)
    return server


class IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def _difficulty(body: dict[str, Any]) -> int | None:
    """The reviewer's difficulty from a JSON body (absent or empty: confirm the proposal)."""
    value: Any = body.get("difficulty")
    if value in (None, ""):
        return None
    try:
        return int(str(value))
    except (TypeError, ValueError):
        raise InputError(f"difficulty {value!r} is not a number", hint="send 1 to 5") from None
