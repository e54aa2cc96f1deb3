"""The one method a sandbox backend implements: ``run_batch(requests) -> results``.

Like an httpx transport (``handle_request``), a backend does one thing: it runs a batch of requests and
answers each with one RunResult, in order. A backend is opened once per batch of programs (never once
per program: start-up costs are paid per batch) and never raises for a program's behaviour: compile
errors, crashes, limits, missing toolchains and even its own failures on one program become verdicts
(Verdict.SANDBOX_ERROR for the latter), so a batch always finishes. Its name, what it can run and how it
identifies its toolchains are its spec's (``BackendSpec``, sandboxes/backends/registry.py); the
provenance it adds (its name as run ids record it, tool versions, an image digest) rides on each result.

Everything else is optional. A backend that holds processes or containers may have ``close`` (the
pipeline calls it when the batch ends: `Sandbox`, sandboxes/backends/sandbox.py); one that runs the
in-sandbox runner may be built with the runner core (sandboxes/core.py: compile cache, run memo,
verdicts, queue-ahead), as bwrap and Docker are; proofs never reach a backend (their language's checker
takes them, sandboxes/languages/base.py ``LanguageSpec.checker``). A backend whose batch an idle core may
take unstarted programs from asks ``pipeline.stealing.starting(run_id)`` before it starts each one and
says so (``asks_before_starting = True``, as the runner core does); another backend's batch is run whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: the language specs, which records read, name this protocol
    from pipeline.records import RunRequest, RunResult


@runtime_checkable
class Backend(Protocol):
    def run_batch(self, requests: Sequence[RunRequest]) -> Iterable[RunResult]:
        """Run each request (compile once, run `repeats` times) and answer it, in request order."""
        ...


@runtime_checkable
class Closeable(Protocol):
    """A backend that holds something beyond its batch (runner processes, containers)."""

    def close(self) -> None:
        """Release processes, containers and temporary directories. Idempotent."""
        ...
