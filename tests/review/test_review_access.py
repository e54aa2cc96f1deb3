"""Who may talk to the review page: a real server on loopback, plain http.client requests.

A DNS-rebinding page sends its own name as Host; a page of another site sends its Origin; a bind beyond
loopback is reached by anyone on the network. None of them may read the queue or decide an entry."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from pipeline.errors import ConfigurationError
from pipeline.records import EnvironmentProfile
from pipeline.refactor.execute import Executor
from pipeline.review.server import Access, make_server, url_host
from tests.refactor.fake_backend import FakePythonBackend
from tests.refactor.helpers import FAST_LIMITS
from tests.review.helpers import filled_queue

TOKEN = "a-token-nobody-guesses-0123456789"
STARTUP_TIMEOUT_S = 60


def serve(tmp_path: Path, host: str, token: str | None = None) -> tuple[ThreadingHTTPServer, list]:
    queue, items = filled_queue(tmp_path / "review.db")
    runner = Executor(FakePythonBackend(), EnvironmentProfile(name="test"), FAST_LIMITS).run
    access = {"token": token} if token else {}  # the loopback page needs no token
    server = make_server(queue, runner, reviewer="tester", host=host, port=0, **access)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server, items


@pytest.fixture
def loopback(tmp_path: Path) -> Iterator[tuple[int, list, Path]]:
    server, items = serve(tmp_path, "127.0.0.1")
    try:
        yield server.server_port, items, tmp_path / "review.db"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def network(tmp_path: Path) -> Iterator[tuple[int, list]]:
    server, items = serve(tmp_path, "0.0.0.0", TOKEN)
    try:
        yield server.server_port, items
    finally:
        server.shutdown()
        server.server_close()


def request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: dict | None = None
) -> http.client.HTTPResponse:
    """One request to 127.0.0.1:port with exactly these headers (Host included when given)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = dict(headers or {})
    payload = json.dumps(body).encode() if body is not None else None
    if payload is not None:
        headers.setdefault("Content-Type", "application/json")
    skip_host = "Host" in headers
    connection.putrequest(method, path, skip_host=skip_host, skip_accept_encoding=True)
    for name, value in headers.items():
        connection.putheader(name, value)
    if payload is not None:
        connection.putheader("Content-Length", str(len(payload)))
    connection.endheaders(payload)
    response = connection.getresponse()
    response.read_body = response.read()  # type: ignore[attr-defined]
    connection.close()
    return response


def state(port: int, entry_id: str) -> str:
    answer = request(port, "GET", f"/api/entries/{entry_id}", {"Host": f"127.0.0.1:{port}"})
    return json.loads(answer.read_body)["state"]  # type: ignore[attr-defined]


def test_a_forged_host_can_neither_read_nor_decide_while_loopback_names_can(loopback: tuple) -> None:
    port, items, _ = loopback
    evil = {"Host": "evil.example"}
    assert request(port, "GET", "/api/entries", evil).status == 403
    assert request(port, "GET", "/", {"Host": f"evil.example:{port}"}).status == 403
    approve = f"/api/entries/{items[0].item_id}/approve"
    assert request(port, "POST", approve, evil, {"reviewer": "rebinder"}).status == 403
    assert state(port, items[0].item_id) == "pending"
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        assert request(port, "GET", "/api/entries", {"Host": host}).status == 200, host
    approve = f"/api/entries/{items[0].item_id}/approve"
    same_site = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
    assert request(port, "POST", approve, same_site, {}).status == 200
    assert state(port, items[0].item_id) == "approved"


@pytest.mark.parametrize("bound", ["127.0.0.2", "0:0:0:0:0:0:0:1", "[::1]"])
def test_a_loopback_bind_answers_to_the_address_it_prints(bound: str) -> None:
    """Any loopback address may be bound (127.0.0.2 is one); the printed address names it, in brackets
    once for IPv6, and that Host is not refused (it was: only 127.0.0.1, localhost and [::1] were)."""
    printed = url_host(bound)
    assert printed.count("[") == (1 if ":" in bound else 0)
    assert Access.for_bind(bound, 8765, None).refusal({"Host": f"{printed}:8765"}, {}) is None
    assert Access.for_bind(bound, 8765, None).refusal({"Host": "evil.example:8765"}, {}) is not None


def test_another_sites_origin_is_refused_even_with_a_loopback_host(loopback: tuple) -> None:
    port, items, _ = loopback
    approve = f"/api/entries/{items[0].item_id}/approve"
    for origin in ("http://evil.example", f"http://evil.example:{port}", "null"):
        headers = {"Host": f"127.0.0.1:{port}", "Origin": origin}
        assert request(port, "POST", approve, headers, {}).status == 403, origin
    assert request(port, "GET", "/api/entries", {"Host": "127.0.0.1:1", "Origin": "x"}).status == 403
    assert state(port, items[0].item_id) == "pending"


def test_a_request_without_host_is_refused(loopback: tuple) -> None:
    port, _, _ = loopback
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.putrequest("GET", "/api/entries", skip_host=True)
    connection.endheaders()
    assert connection.getresponse().status == 403
    connection.close()


def test_a_bind_beyond_loopback_needs_a_token(network: tuple) -> None:
    port, items = network
    host = {"Host": f"192.0.2.7:{port}"}  # whatever name the network reaches it by
    assert request(port, "GET", "/api/entries", host).status == 401
    assert request(port, "GET", "/", host).status == 401
    approve = f"/api/entries/{items[0].item_id}/approve"
    assert request(port, "POST", approve, host, {}).status == 401
    assert request(port, "GET", "/api/entries", {**host, "X-Surge-Token": "wrong-" + TOKEN}).status == 401
    assert request(port, "GET", "/api/entries", {**host, "X-Surge-Token": TOKEN}).status == 200
    assert request(port, "GET", f"/api/entries?token={TOKEN}", host).status == 200
    assert request(port, "POST", approve, {**host, "X-Surge-Token": TOKEN}, {}).status == 200


def test_the_printed_address_sets_a_cookie_the_page_then_uses(network: tuple) -> None:
    port, _ = network
    host = {"Host": f"192.0.2.7:{port}"}
    entered = request(port, "GET", f"/?token={TOKEN}", host)
    assert entered.status == 303 and entered.getheader("Location") == "/"
    cookie = (entered.getheader("Set-Cookie") or "").split(";")[0]
    assert TOKEN in cookie and "HttpOnly" in (entered.getheader("Set-Cookie") or "")
    assert request(port, "GET", "/api/entries", {**host, "Cookie": cookie}).status == 200
    assert request(port, "GET", "/", {**host, "Cookie": cookie}).status == 200


def test_a_bind_beyond_loopback_without_a_token_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="needs a token"):
        serve(tmp_path, "0.0.0.0")


def test_serve_beyond_loopback_prints_a_token_and_a_warning(tmp_path: Path) -> None:
    filled_queue(tmp_path / "review.db")
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect")}
    argv = [sys.executable, "-m", "pipeline.cli", "review", "serve", "--db", str(tmp_path / "review.db")]
    argv += ["--host", "0.0.0.0", "--port", "0", "--unsafe"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        found = re.search(r"http://0\.0\.0\.0:(\d+)/\?token=([A-Za-z0-9_-]{32})", line)
        assert found, line
        port, token = int(found[1]), found[2]
        assert request(port, "GET", "/api/entries", {"Host": f"127.0.0.1:{port}"}).status == 401
        with_token = {"Host": f"127.0.0.1:{port}", "X-Surge-Token": token}
        assert request(port, "GET", "/api/entries", with_token).status == 200
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=STARTUP_TIMEOUT_S)
    assert "warning" in stderr and "beyond this machine" in stderr
