"""The client's allowance: past the run's budget no request is sent, while cached answers are still read."""

from __future__ import annotations

import json

import pytest

from pipeline.errors import BudgetSpent, LLMError
from pipeline.llm import LLMClient, LLMSettings
from pipeline.llm.budget import Allowance, Budget, parse_budget
from tests.standin.server import StandInServer


@pytest.fixture
def server(tmp_path):
    lines = [{"match": "first", "content": "one"}, {"match": "second", "content": "two"}]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with StandInServer(responses) as running:
        yield running


def client(server, tmp_path, allowance: Allowance) -> LLMClient:
    settings = LLMSettings(base_url=server.base_url, model="m", cache_dir=tmp_path / "cache", max_retries=0)
    return LLMClient(settings, allowance=allowance)


def ask(llm: LLMClient, word: str) -> str:
    return llm.chat([{"role": "user", "content": word}]).content


def test_past_the_budget_nothing_is_sent_but_the_cache_still_answers(server, tmp_path):
    with client(server, tmp_path, Allowance(Budget(tokens=1))) as llm:
        assert ask(llm, "first") == "one"  # nothing spent yet: asked, and it spends past the line
        with pytest.raises(BudgetSpent):
            ask(llm, "second")
        assert ask(llm, "first") == "one"  # from the cache: costs nothing
        assert (llm.usage.requests, llm.usage.cache_hits) == (1, 1)
    assert server.answered == 1
    assert not issubclass(BudgetSpent, LLMError)  # the repair loop must not read it as the endpoint's failure


def test_what_the_run_spent_before_counts(server, tmp_path):
    allowance = Allowance(parse_budget("1ktokens"), tokens_before=1000)
    with client(server, tmp_path, allowance) as llm, pytest.raises(BudgetSpent):
        ask(llm, "first")
    assert server.answered == 0
