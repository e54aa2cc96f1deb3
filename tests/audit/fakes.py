"""Hand-made run results and a fake backend, so audit logic is tested without a sandbox."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Language,
    Limits,
    PhaseResult,
    Program,
    Provenance,
    RunRequest,
    RunResult,
    Verdict,
)

PROFILE = EnvironmentProfile(name="fake")


def result_for(
    request: RunRequest,
    label: str,
    verdict: Verdict = Verdict.OK,
    distinct_outputs: int = 1,
    detail: str = "",
) -> RunResult:
    run = PhaseResult(
        stdout=label, exit_code=0, cpu_user_s=0.02, cpu_sys_s=0.01, verdict=verdict, detail=detail
    )
    return RunResult.answering(
        request,
        run=run,
        verdict=verdict,
        repeats=request.repeats,
        distinct_outputs=distinct_outputs,
        origin=dict(request.program.origin),
        provenance=Provenance(
            backend="fake",
            profile=request.profile.name,
            limits=request.limits,
            host="test",
            started_at=datetime(2026, 11, 22, tzinfo=UTC),
            pipeline_version="0",
        ),
    )


def make_result(
    label: str,
    verdict: Verdict = Verdict.OK,
    distinct_outputs: int = 1,
    language: Language = Language.PYTHON,
    detail: str = "",
) -> RunResult:
    program = Program.single(language, "print(1)")
    request = RunRequest(
        program=program, setting=ExecutionSetting(), profile=PROFILE, limits=Limits(), repeats=2
    )
    return result_for(request, label, verdict, distinct_outputs, detail)


class FakeBackend:
    """Answers each request with `answer(request) -> (label, verdict)`; counts what it ran."""

    name = "fake"

    def __init__(self, answer: Callable[[RunRequest], tuple[str, Verdict]]) -> None:
        self.answer = answer
        self.ran: list[str] = []

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        for request in requests:
            self.ran.append(request.run_id)
            label, verdict = self.answer(request)
            yield result_for(request, label, verdict)

    def close(self) -> None:
        pass

    def __enter__(self) -> FakeBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
