"""The chat-completions client: POST {base_url}/chat/completions, OpenAI wire format.

Why each piece is here:
- a semaphore bounds requests in flight (providers rate-limit per key; a flow's threads share one client);
- 429, 5xx, timeouts and dropped connections are retried with exponential backoff, honouring Retry-After;
  once a request has failed after all its retries, the client sends nothing more (the run's other requests
  fail at once with the same error: a server that is down would otherwise cost every item its retries);
- other 4xx are not retried: they are configuration mistakes, raised at once with a hint, except a prompt
  longer than the model's whole context (pipeline/llm/overflow.py), raised as PromptTooLong: the item's;
- the on-disk cache makes a rerun free, and usage is summed so every run reports tokens and cost.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from pipeline.errors import BudgetSpent, LLMError, PromptTooLong
from pipeline.llm.budget import Allowance
from pipeline.llm.cache import ResponseCache, request_key
from pipeline.llm.overflow import context_overflow
from pipeline.llm.settings import LLMSettings

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
ERROR_BODY_CHARS = 500

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class ChatReply:
    content: str
    finish_reason: str  # 'stop', 'length' (cut by max_tokens), ...
    prompt_tokens: int
    completion_tokens: int
    model: str
    cached: bool
    cache_key: str

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


@dataclass
class Usage:
    """Running totals for one client (all threads)."""

    requests: int = 0  # HTTP requests sent, retries included
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "cost_usd": round(self.cost_usd, 6)}


class LLMClient:
    def __init__(
        self,
        settings: LLMSettings,
        transport: httpx.BaseTransport | None = None,
        allowance: Allowance | None = None,
    ) -> None:
        settings.require_endpoint()
        self.settings = settings
        self.allowance = allowance  # None: no budget; else no request is sent once it is spent
        self.usage = Usage()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._cache = ResponseCache(settings.cache_dir) if settings.cache_dir else None
        self._failed: LLMError | None = None  # the endpoint's failure after all retries: ask no more
        key = settings.api_key.get_secret_value()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(
            timeout=httpx.Timeout(settings.timeout_s),
            headers=headers,
            transport=transport,
            limits=httpx.Limits(max_connections=settings.concurrency),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        return self.settings.base_url.rstrip("/") + "/chat/completions"

    def chat(self, messages: Messages, **params: Any) -> ChatReply:
        """One completion (temperature and max_tokens from the settings unless given)."""
        params = {"temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens, **params}
        key = request_key(self.settings.model, messages, params)
        if self._cache is not None and (hit := self._cache.get(key)) is not None:
            with self._lock:
                self.usage.cache_hits += 1
            return _reply(hit, key, cached=True)
        body = {"model": self.settings.model, "messages": messages, **params}
        self._check_allowance()  # a cached answer costs nothing: only a request to send is refused
        if (failed := self._failed) is not None:
            raise LLMError(str(failed), hint=failed.hint)
        with self._slots:
            data = self._post_with_retries(body)
        reply = _reply(data, key, cached=False)
        self._account(reply)
        if self._cache is not None:
            self._cache.put(key, data)
        return reply

    def _check_allowance(self) -> None:
        if self.allowance is None:
            return
        with self._lock:
            tokens = self.usage.prompt_tokens + self.usage.completion_tokens
            spent = self.allowance.spent(tokens, self.usage.cost_usd)
        if spent:
            raise BudgetSpent(
                f"the budget ({self.allowance.budget.describe()}) is spent: no further request is sent",
                hint="run again to resume (cached answers cost nothing), with a --budget for that run",
            )

    def _account(self, reply: ChatReply) -> None:
        with self._lock:
            self.usage.prompt_tokens += reply.prompt_tokens
            self.usage.completion_tokens += reply.completion_tokens
            self.usage.cost_usd += self.settings.cost_usd(reply.prompt_tokens, reply.completion_tokens)

    def _post_with_retries(self, body: dict[str, Any]) -> dict[str, Any]:
        last_problem, last_kind = "", ""
        for attempt in range(self.settings.max_retries + 1):
            with self._lock:
                self.usage.requests += 1
                if attempt:
                    self.usage.retries += 1
            try:
                response = self._http.post(self.url, json=body)
            except (httpx.TimeoutException, httpx.TransportError) as error:
                last_problem, last_kind = f"{type(error).__name__}: {error}", _kind(error)
                self._sleep_before_retry(attempt, None)
                continue
            if response.status_code == 200:
                return _json_body(response)
            last_problem, last_kind = f"HTTP {response.status_code}: {response.text[:ERROR_BODY_CHARS]}", ""
            if response.status_code not in RETRYABLE_STATUS:
                raise self._refusal(response, last_problem, body.get("max_tokens"))
            self._sleep_before_retry(attempt, response.headers.get("Retry-After"))
        failed = LLMError(
            f"{self.url} failed after {self.settings.max_retries + 1} attempts (last: {last_problem})",
            hint=self._exhausted_hint(last_kind) + "; finished items are kept and a rerun resumes",
        )
        self._failed = failed
        raise failed

    def _exhausted_hint(self, kind: str) -> str:
        if kind == "unreachable":
            where = self.settings.base_url
            return f"nothing answers at {where}: start the server, or correct SURGE_LLM_BASE_URL"
        if kind == "timeout":
            # A local server that answers one request at a time counts the queue in every request's time.
            return (
                f"no answer came within SURGE_LLM_TIMEOUT_S ({self.settings.timeout_s:g} s): a long answer "
                "from a slow model takes longer (raise SURGE_LLM_TIMEOUT_S or lower SURGE_LLM_MAX_TOKENS), "
                "and a server that answers one request at a time makes the others wait (lower "
                "--llm-concurrency)"
            )
        return (
            "the endpoint is overloaded or down: retry later, lower --llm-concurrency, or raise "
            "SURGE_LLM_MAX_RETRIES / SURGE_LLM_TIMEOUT_S"
        )

    def _refusal(self, response: httpx.Response, problem: str, max_tokens: object) -> LLMError:
        overflow = context_overflow(response.status_code, response.text)
        if overflow is None:
            return LLMError(f"{self.url} refused the request ({problem})", hint=_hint(response.status_code))
        prompt, context = overflow.prompt_tokens, overflow.context_tokens
        if overflow.prompt_alone:
            return PromptTooLong(
                f"the prompt is {prompt} tokens, as long as the model's whole context ({context}) or longer",
                prompt,
                context,
            )
        return LLMError(
            f"{self.url} refused the request: its {prompt} prompt tokens and max_tokens {max_tokens} "
            f"exceed the model's context of {context} tokens",
            hint=f"lower SURGE_LLM_MAX_TOKENS (this prompt leaves {context - prompt} tokens for the answer)",
        )

    def _sleep_before_retry(self, attempt: int, retry_after: str | None) -> None:
        if attempt >= self.settings.max_retries:
            return
        delay_s = self.settings.backoff_base_s * (2**attempt)
        if retry_after is not None:
            # An HTTP date is ignored: keep our own backoff rather than trust a clock we do not share.
            with contextlib.suppress(ValueError):
                delay_s = max(delay_s, float(retry_after))
        time.sleep(min(delay_s, self.settings.backoff_max_s))


def _kind(error: Exception) -> str:
    """unreachable (no connection could be made), timeout (no answer in time), or '' (dropped, ...)."""
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return "unreachable"
    return "timeout" if isinstance(error, httpx.TimeoutException) else ""


def _json_body(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
        data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise LLMError(
            f"the endpoint answered 200 but not in chat-completions format ({error!r}): "
            f"{response.text[:200]}",
            hint="check SURGE_LLM_BASE_URL: it should end with /v1 for OpenAI-compatible servers",
        ) from None
    return data


def _reply(data: dict[str, Any], key: str, cached: bool) -> ChatReply:
    choice = data["choices"][0]
    usage = data.get("usage") or {}
    return ChatReply(
        content=choice["message"].get("content") or "",
        finish_reason=choice.get("finish_reason") or "stop",
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        model=data.get("model") or "",
        cached=cached,
        cache_key=key,
    )


def _hint(status: int) -> str:
    if status in (401, 403):
        return "check SURGE_LLM_API_KEY (or --llm-api-key)"
    if status == 404:
        return "check SURGE_LLM_BASE_URL (it should end with /v1) and SURGE_LLM_MODEL"
    return "the request was rejected as malformed: check the model name and max_tokens for this endpoint"
