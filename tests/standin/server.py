"""The stand-in endpoint: the recorded-response server of pipeline/llm/replay_server.py over the answers
tests/standin/upstreams.py composed, reporting token counts (about four characters a token, as an
endpoint would report real ones) so budgets and costs are exercised, with an optional answer latency.

    python -m tests.standin.server OUT/responses.jsonl [--port 8000] [--latency-s 0.05] [--context-tokens N]
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from typing import Any

from pipeline.llm.replay_server import CHARS_PER_TOKEN, RecordedServer, load_recorded, prompt_tokens

MODEL = "standin-composer"


class StandInServer(RecordedServer):
    def __init__(
        self, responses: Path, latency_s: float = 0.0, port: int = 0, context_tokens: int = 0
    ) -> None:
        super().__init__(load_recorded(responses), port, context_tokens)
        self.latency_s = latency_s
        self.answered = 0
        self._count = threading.Lock()

    def answer(self, body: dict[str, Any]) -> str | None:
        if self.latency_s:
            time.sleep(self.latency_s)
        found = super().answer(body)
        with self._count:
            self.answered += found is not None
        return found

    def usage(self, body: dict[str, Any], content: str) -> dict[str, int]:
        prompt = prompt_tokens(body)
        completion = len(content) // CHARS_PER_TOKEN
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the stand-in endpoint on 127.0.0.1")
    parser.add_argument("responses", type=Path)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--latency-s", type=float, default=0.0)
    parser.add_argument("--context-tokens", type=int, default=0, help="refuse longer prompts (0: none)")
    args = parser.parse_args()
    with StandInServer(args.responses, args.latency_s, args.port, args.context_tokens) as server:
        print(f"SURGE_LLM_BASE_URL={server.base_url} SURGE_LLM_MODEL={MODEL}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
