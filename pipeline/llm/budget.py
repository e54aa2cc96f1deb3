"""A spending limit for one command's run: dollars or tokens, as `--budget` writes it everywhere.

`surge predict` and `surge build` read the same syntax with the same meaning: asking stops once this
run has spent the budget; requests already in flight (at most the concurrency) finish and are kept, so
a run may end a little past it. A rerun is a new run with its own budget, and resumes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from pipeline.errors import ConfigurationError


class Budget(BaseModel):
    """A stop line for one run: spend no more than this (in-flight requests may finish past it)."""

    model_config = ConfigDict(frozen=True)

    usd: float | None = Field(default=None, ge=0, description="cost of this run, from the price settings")
    tokens: int | None = Field(default=None, ge=0, description="prompt + completion tokens of this run")

    def spent(self, cost_usd: float, tokens: int) -> bool:
        return (self.usd is not None and cost_usd >= self.usd) or (
            self.tokens is not None and tokens >= self.tokens
        )

    @property
    def limited(self) -> bool:
        return self.usd is not None or self.tokens is not None

    def describe(self) -> str:
        """'$2.50', '50000 tokens' or 'none'."""
        if self.usd is not None:
            return f"${self.usd:g}"
        return f"{self.tokens} tokens" if self.tokens is not None else "none"


@dataclass(frozen=True)
class Allowance:
    """What a client may still spend: the run's budget less what the run spent before this client."""

    budget: Budget
    tokens_before: int = 0
    usd_before: float = 0.0

    def spent(self, tokens: int, usd: float) -> bool:
        """Is the budget spent once this client's own ``tokens`` and ``usd`` are added?"""
        return self.budget.spent(self.usd_before + usd, self.tokens_before + tokens)


def parse_budget(text: str) -> Budget:
    """'$1.50' or '1.5usd' -> dollars; '20000tokens' or '20k tokens' -> tokens; a bare number is ambiguous."""
    value = text.strip().lower().replace(" ", "").replace("_", "")
    try:
        if value.startswith("$") or value.endswith("usd"):
            return Budget(usd=float(value.removeprefix("$").removesuffix("usd")))
        if value.endswith("tokens"):
            number = value.removesuffix("tokens")
            scale = 1000 if number.endswith("k") else 1
            return Budget(tokens=int(float(number.removesuffix("k")) * scale))
    except ValueError:
        pass
    raise ConfigurationError(
        f"--budget {text!r} is neither dollars nor tokens",
        hint="write e.g. --budget '$2.50' or --budget 50ktokens",
    )


def require_prices(budget: Budget, priced: bool) -> None:
    """A budget in dollars means nothing without prices: refused before any work."""
    if budget.usd is not None and not priced:
        raise ConfigurationError(
            "--budget in dollars, but no price is set",
            hint="set SURGE_LLM_PRICE_PROMPT_PER_1K and SURGE_LLM_PRICE_COMPLETION_PER_1K, "
            "or budget in tokens",
        )
