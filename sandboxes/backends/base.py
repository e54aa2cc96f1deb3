"""The interface every sandbox backend implements (bwrap, unsafe-local, docker).

A backend is opened once per batch of programs (never once per program: start-up costs are paid per
batch), runs requests in order, and yields one RunResult per request. A backend never raises for a
program's behaviour: compile errors, crashes, limits, missing toolchains and even its own failures on
one program become verdicts (Verdict.SANDBOX_ERROR for the latter), so a batch always finishes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Protocol, runtime_checkable

from pipeline.records import RunRequest, RunResult


@runtime_checkable
class Backend(Protocol):
    name: str  # recorded in Provenance.backend

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        """Execute each request (compile once, run `repeats` times) and yield its result in order."""
        ...

    def close(self) -> None:
        """Release processes, containers and temporary directories. Idempotent."""
        ...

    def __enter__(self) -> Backend: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...
