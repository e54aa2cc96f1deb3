"""What `sandboxes.open_backend` returns: one batch's backend, with the proof checkers beside it.

httpx's Client over a transport: the backend does one thing (``run_batch``), and what every backend
would otherwise repeat is here. Each request goes where its language spec says: to the language's
checker (``LanguageSpec.checker``: Lean's proofs), opened on first use, or to the backend. The results
come back in request order, and closing the sandbox closes whatever was opened.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import TracebackType

from pipeline.records import RunRequest, RunResult
from sandboxes.backends.base import Backend, Closeable
from sandboxes.languages import refuse_unrunnable, spec_for
from sandboxes.languages.base import Checker


class Sandbox:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.checked: dict[Checker, Backend] = {}  # the checkers' backends, opened on first use
        self.closed = False

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        """Each request's result, in request order. Each destination runs its requests as one batch,
        read as the results are consumed (a backend may run the next while one is read). A request no
        toolchain may run (``refuse_unrunnable``) stops the batch before anything starts."""
        refuse_unrunnable(requests)
        checkers = [spec_for(request.program.language).checker for request in requests]
        if not any(checkers):
            yield from self.backend.run_batch(requests)
            return
        answers = {
            checker: iter(self.destination(checker).run_batch(routed(requests, checkers, checker)))
            for checker in dict.fromkeys(checkers)
        }
        for checker in checkers:
            yield next(answers[checker])

    @property
    def asks_before_starting(self) -> bool:
        """Whether the backend asks ``pipeline.stealing.starting`` before it starts each program (the
        runner core's do), so that an idle core may take the programs it has not started."""
        return bool(getattr(self.backend, "asks_before_starting", False))

    def destination(self, checker: Checker | None) -> Backend:
        """The checker's backend (opened once per batch), or the batch's own for None."""
        if checker is None:
            return self.backend
        if checker not in self.checked:
            self.checked[checker] = checker.open()
        return self.checked[checker]

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            close(self.backend)
        finally:
            for backend in self.checked.values():
                close(backend)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def routed(
    requests: Sequence[RunRequest], checkers: list[Checker | None], checker: Checker | None
) -> list[RunRequest]:
    """The requests that go to ``checker`` (None: to the batch's backend)."""
    return [request for request, its in zip(requests, checkers, strict=True) if its == checker]


def close(backend: Backend) -> None:
    if isinstance(backend, Closeable):
        backend.close()
