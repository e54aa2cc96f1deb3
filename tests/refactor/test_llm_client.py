"""The LLM client against a real local chat-completions server (no patched client)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pipeline.errors import ConfigurationError, LLMError
from pipeline.llm import LLMClient, LLMSettings
from tests.refactor.helpers import replay_settings
from tests.refactor.openai_replay import ReplayServer, Reply

HELLO = [{"role": "user", "content": "say hi"}]


def settings(server: ReplayServer, tmp_path: Path, **kw: object) -> LLMSettings:
    values: dict = {"api_key": "k", "cache_dir": tmp_path / "cache", "backoff_max_s": 0.05, **kw}
    return replay_settings(server, tmp_path, **values)


def test_answer_usage_and_cost_are_accounted(tmp_path: Path) -> None:
    with ReplayServer([Reply("hi", prompt_tokens=1000, completion_tokens=500)]) as server:
        client = LLMClient(settings(server, tmp_path, price_prompt_per_1k=0.5, price_completion_per_1k=2.0))
        reply = client.chat(HELLO)
    assert reply.content == "hi" and not reply.cached
    assert server.requests[0]["temperature"] == 0.0 and server.requests[0]["model"] == "replay-1"
    assert client.usage.prompt_tokens == 1000 and client.usage.completion_tokens == 500
    assert client.usage.cost_usd == pytest.approx(0.5 + 1.0)


def test_second_run_is_served_from_the_disk_cache_with_zero_requests(tmp_path: Path) -> None:
    with ReplayServer([Reply("first")]) as server:
        LLMClient(settings(server, tmp_path)).chat(HELLO)
        again = LLMClient(settings(server, tmp_path))  # a new process would build a new client too
        reply = again.chat(HELLO)
        assert len(server.requests) == 1
    assert reply.content == "first" and reply.cached
    assert again.usage.requests == 0 and again.usage.cache_hits == 1 and again.usage.cost_usd == 0


def test_cache_key_includes_model_and_messages(tmp_path: Path) -> None:
    with ReplayServer([Reply("a"), Reply("b"), Reply("c")]) as server:
        LLMClient(settings(server, tmp_path)).chat(HELLO)
        LLMClient(settings(server, tmp_path, model="other")).chat(HELLO)
        LLMClient(settings(server, tmp_path)).chat([{"role": "user", "content": "say bye"}])
        assert len(server.requests) == 3


def test_429_with_retry_after_then_ok_is_retried(tmp_path: Path) -> None:
    replies = [Reply(status=429, headers={"Retry-After": "0"}), Reply(status=503), Reply("ok")]
    with ReplayServer(replies) as server:
        client = LLMClient(settings(server, tmp_path))
        assert client.chat(HELLO).content == "ok"
    assert client.usage.requests == 3 and client.usage.retries == 2


def test_timeout_is_retried(tmp_path: Path) -> None:
    # The late answer comes long after the timeout, which is ample for a loaded machine's normal answer.
    with ReplayServer([Reply("late", delay_s=3.0), Reply("ok")]) as server:
        client = LLMClient(settings(server, tmp_path, timeout_s=1.0))
        assert client.chat(HELLO).content == "ok"
    assert client.usage.retries == 1


def test_persistent_500_raises_llm_error_with_hint(tmp_path: Path) -> None:
    with ReplayServer([Reply(status=500)] * 3) as server:
        client = LLMClient(settings(server, tmp_path, max_retries=2))
        with pytest.raises(LLMError, match="after 3 attempts") as caught:
            client.chat(HELLO)
    assert "retry later" in caught.value.hint


def test_once_a_request_failed_after_its_retries_the_client_sends_nothing_more(tmp_path: Path) -> None:
    # A server that is down would otherwise cost every remaining item of a run its own retries.
    with ReplayServer([Reply(status=503)] * 6) as server:
        client = LLMClient(settings(server, tmp_path, max_retries=1))
        with pytest.raises(LLMError, match="after 2 attempts"):
            client.chat(HELLO)
        with pytest.raises(LLMError, match="after 2 attempts") as again:
            client.chat([{"role": "user", "content": "another question"}])
        assert len(server.requests) == 2
    assert "retry later" in again.value.hint


def test_a_timeout_names_the_settings_that_fit_a_slow_model(tmp_path: Path) -> None:
    with ReplayServer([Reply("late", delay_s=1.0)] * 2) as server:
        client = LLMClient(settings(server, tmp_path, timeout_s=0.2, max_retries=1))
        with pytest.raises(LLMError, match="ReadTimeout") as caught:
            client.chat(HELLO)
    hint = caught.value.hint
    assert "SURGE_LLM_TIMEOUT_S (0.2 s)" in hint and "SURGE_LLM_MAX_TOKENS" in hint and "concurrency" in hint


def test_a_server_that_is_not_there_is_named_with_its_address(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    client = LLMClient(
        LLMSettings(base_url=url, model="m", max_retries=1, backoff_base_s=0.01, cache_dir=None)
    )
    with pytest.raises(LLMError, match="ConnectError") as caught:
        client.chat(HELLO)
    assert f"nothing answers at {url}: start the server" in caught.value.hint


def test_401_is_not_retried_and_names_the_key(tmp_path: Path) -> None:
    with ReplayServer([Reply(status=401), Reply("never")]) as server:
        client = LLMClient(settings(server, tmp_path))
        with pytest.raises(LLMError) as caught:
            client.chat(HELLO)
        assert len(server.requests) == 1
    assert "SURGE_LLM_API_KEY" in caught.value.hint


def test_missing_endpoint_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SURGE_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("SURGE_LLM_MODEL", raising=False)
    with pytest.raises(ConfigurationError) as caught:
        LLMClient(LLMSettings.from_env())
    assert "SURGE_LLM_BASE_URL" in caught.value.hint


def test_settings_from_env_then_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURGE_LLM_BASE_URL", "http://x/v1")
    monkeypatch.setenv("SURGE_LLM_MODEL", "m1")
    monkeypatch.setenv("SURGE_LLM_CONCURRENCY", "7")
    loaded = LLMSettings.from_env(model="m2", api_key=None)
    assert (loaded.base_url, loaded.model, loaded.concurrency) == ("http://x/v1", "m2", 7)
