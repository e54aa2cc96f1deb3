"""What a build's refactors asked of the LLM, per batch and per command's run: the budget's ledger.

Each batch writes one ``LLMSpend`` row when its refactors end (pipeline/build/records.py). A run's budget
is counted over the rows of that run, for every subset it builds, so ``surge build ml cl bg --budget
50ktokens`` spends at most about 50k tokens in all; the summary's request, cache-hit and token figures
are sums of the same rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.build.records import BuildConfig, LLMSpend, spend_table
from pipeline.llm.budget import Allowance

if TYPE_CHECKING:
    from pipeline.llm import Usage
    from pipeline.store import Store

FIGURES = ("requests", "cache_hits", "retries", "prompt_tokens", "completion_tokens", "cost_usd")


def allowance_of(store: Store, config: BuildConfig) -> Allowance | None:
    """What the run may still spend (None: no budget)."""
    if not config.budget.limited:
        return None
    spent = totals(store, config.llm_run)
    tokens = int(spent["prompt_tokens"] + spent["completion_tokens"])
    return Allowance(config.budget, tokens_before=tokens, usd_before=float(spent["cost_usd"]))


def record(store: Store, config: BuildConfig, batch: int, usage: Usage, stopped: int) -> None:
    row = LLMSpend(
        run=config.llm_run,
        build_key=config.build_key,
        subset=config.subset,
        batch=batch,
        budget_stopped=stopped,
        **{name: getattr(usage, name) for name in FIGURES},
    )
    table = spend_table(store)
    table.append([row])
    table.flush()


def totals(store: Store, run: str, subset: str | None = None) -> dict[str, Any]:
    """The run's figures (of one subset, if given): requests, cache hits, retries, tokens, cost."""
    found: dict[str, Any] = dict.fromkeys(FIGURES, 0)
    found["cost_usd"] = 0.0
    if not run or not spend_table(store).part_files():
        return found
    where = {"run": run} | ({"subset": subset} if subset else {})
    for row in spend_table(store).records(where=where):
        for name in FIGURES:
            found[name] += getattr(row, name)
    found["cost_usd"] = round(found["cost_usd"], 6)
    return found
