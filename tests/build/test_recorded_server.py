"""The offline LLM default: recorded answers over the real chat-completions protocol, matched by text."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from pipeline.llm.replay_server import Recorded, RecordedServer


def ask(server: RecordedServer, text: str) -> str:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode()
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["choices"][0]["message"]["content"]


def test_a_list_match_needs_every_part_and_the_first_match_wins() -> None:
    recorded = [
        Recorded(match=["Rate how hard", "def twoSum("], content="1"),
        Recorded(match="def twoSum(", content="```python\nprint(1)\n```"),
    ]
    with RecordedServer(recorded) as server:
        assert ask(server, "Rate how hard ... def twoSum(self)") == "1"
        assert ask(server, "Turn this write-up ... def twoSum(self)").startswith("```python")
        with pytest.raises(urllib.error.HTTPError) as refused:
            ask(server, "Rate how hard ... def maxProfit(self)")
        assert refused.value.code == 404
