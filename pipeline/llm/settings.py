"""Typed settings of the LLM client: from SURGE_LLM_* environment variables, overridable by flags."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from pipeline.errors import ConfigurationError

ENV_PREFIX = "SURGE_LLM_"
DEFAULT_CACHE_DIR = Path(".surge/llm-cache")


class LLMSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    base_url: str = Field(
        default="", description="e.g. https://api.openai.com/v1 (the /chat/completions is added)"
    )
    model: str = Field(default="", description="model name sent with every request; part of the cache key")
    # SecretStr: flow parameters are recorded by Prefect; the key must never land in its database or logs.
    api_key: SecretStr = Field(default=SecretStr(""), description="bearer token; empty for local servers")
    temperature: float = Field(default=0.0, description="0: the most repeatable answers")
    max_tokens: int = Field(default=4096, gt=0, description="completion budget per request")
    timeout_s: float = Field(default=120.0, gt=0, description="per-request timeout")
    max_retries: int = Field(default=5, ge=0, description="retries on 429, 5xx and timeouts")
    backoff_base_s: float = Field(default=1.0, ge=0, description="first retry delay; doubles each retry")
    backoff_max_s: float = Field(default=60.0, ge=0, description="cap on any delay, Retry-After included")
    concurrency: int = Field(default=4, gt=0, description="requests in flight at once, per process")
    price_prompt_per_1k: float = Field(default=0.0, ge=0, description="USD per 1k prompt tokens")
    price_completion_per_1k: float = Field(default=0.0, ge=0, description="USD per 1k completion tokens")
    cache_dir: Path | None = Field(default=DEFAULT_CACHE_DIR, description="on-disk response cache; None: off")

    @classmethod
    def from_env(cls, **overrides: object) -> LLMSettings:
        """SURGE_LLM_BASE_URL, SURGE_LLM_MODEL, SURGE_LLM_API_KEY, ... then non-None overrides (flags)."""
        values: dict[str, object] = {}
        for name in cls.model_fields:
            raw = os.environ.get(ENV_PREFIX + name.upper())
            if raw is not None and raw != "":
                values[name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    def require_endpoint(self) -> None:
        if not self.base_url or not self.model:
            raise ConfigurationError(
                "no LLM endpoint configured",
                hint="set SURGE_LLM_BASE_URL (e.g. https://api.openai.com/v1) and SURGE_LLM_MODEL, "
                "or pass --llm-base-url and --llm-model",
            )

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.price_prompt_per_1k + completion_tokens * self.price_completion_per_1k
        ) / 1000
