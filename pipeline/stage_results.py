"""What every stage returns: its data (what `surge CMD --json` prints), with the failures of ours and
the exit code of the one rule (pipeline/errors.py: 1 when something of ours failed, else the stage's own).
Nothing for display: the CLI renders a result (pipeline/commands/). Core, below the stages, so that a
stage's own package (pipeline/audit/summary.py) builds its result on the same base."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

FAILED_EXIT_CODE = 1


class Failure(BaseModel):
    """Something of ours that failed during the work, and how to fix it."""

    reason: str
    fix: str = ""


class StageResult(BaseModel):
    """The base of every stage's result: ``failures`` of ours, and the code `surge` exits with."""

    failures: list[Failure] = Field(default_factory=list)
    exit_code: int = Field(default=0, description="the code `surge` exits with (1 when failures)")

    @model_validator(mode="before")
    @classmethod
    def failures_decide_the_exit_code(cls, data: Any) -> Any:
        # A script reading --json and one reading $? never disagree: a job with failed batches once
        # said "exit_code": 0 and exited 1. Decided on the input, so a frozen result takes it too.
        if isinstance(data, dict) and data.get("failures"):
            return {**data, "exit_code": FAILED_EXIT_CODE}
        return data

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class LLMFigures(BaseModel):
    """What an LLM was asked and what it cost (pipeline/llm/client.py's ``Usage``)."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


def failures_of(pairs: list[tuple[str, str]]) -> list[Failure]:
    """(reason, fix) pairs as typed failures."""
    return [Failure(reason=reason, fix=fix) for reason, fix in pairs]
