"""What the repair loop produces: every round, and the item's outcome (a review candidate or a failure)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from pipeline.records import Program, RunResult

EVIDENCE_CHARS = 2000  # enough of a compiler error or traceback for the model to act on


class ExecutionFacts(BaseModel):
    """The facts of one execution a reviewer (and the LLM) needs."""

    run_id: str = ""
    verdict: str
    stdout: str = ""
    stderr: str = ""
    compile_output: str = ""
    exit_code: int | None = None
    signal: str | None = None
    label: str = ""
    wall_s: float = 0.0

    @classmethod
    def of(cls, result: RunResult) -> ExecutionFacts:
        run, build = result.run, result.compile
        compile_output = ((build.stdout + build.stderr) if build else "")[-EVIDENCE_CHARS * 4 :]
        return cls(
            run_id=result.run_id,
            verdict=result.verdict.value,
            stdout=run.stdout if run else "",
            stderr=run.stderr if run else "",
            compile_output=compile_output,
            exit_code=run.exit_code if run else (build.exit_code if build else None),
            signal=run.signal if run else None,
            label=result.label,
            wall_s=run.wall_s if run else 0.0,
        )


class Round(BaseModel):
    """One request/answer exchange and what became of it."""

    index: int
    prompt: str  # e.g. 'mceval.v1' or 'repair.v1'
    answer: str
    finish_reason: str
    cached: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    problem_kind: str = (
        "ok"  # ok | huge | truncated | no_code | wrong_language | empty | leak | run | llm_error |
        # prompt_too_long
    )
    problem: str = ""
    program: Program | None = None
    run: ExecutionFacts | None = None
    leaks: list[str] = Field(default_factory=list)


class Outcome(BaseModel):
    item_id: str
    source: str
    key: str
    method: str
    prompt: str
    status: str  # candidate | failed
    reason: str = ""
    program: Program | None = None
    run: ExecutionFacts | None = None
    leaks: list[str] = Field(default_factory=list, description="warnings left for the reviewer")
    rounds: list[Round] = Field(default_factory=list)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="oracle program/output (bg), difficulty, ..."
    )
