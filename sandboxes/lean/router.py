"""Send lean4 requests to the Lean checker and everything else to the batch's own backend, in order."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import TracebackType

from pipeline.records import Language, RunRequest, RunResult
from sandboxes.backends.base import Backend


class LeanRouted:
    """A Backend wrapping another: lean4 programs go to a LeanBackend opened on first use."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self._lean: Backend | None = None

    def lean(self) -> Backend:
        if self._lean is None:
            from sandboxes.lean.backend import LeanBackend

            # Lean's concurrency is its own setting (SURGE_LEAN_MAX_REPLS): each REPL holds Mathlib (GBs).
            self._lean = LeanBackend(shared=True)
        return self._lean

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        is_lean = [r.program.language is Language.LEAN4 for r in requests]
        if not any(is_lean):
            yield from self.inner.run_batch(requests)
            return
        lean = iter(self.lean().run_batch([r for r, flag in zip(requests, is_lean, strict=True) if flag]))
        others = [r for r, flag in zip(requests, is_lean, strict=True) if not flag]
        rest = iter(self.inner.run_batch(others)) if others else iter(())
        for flag in is_lean:
            yield next(lean) if flag else next(rest)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            if self._lean is not None:
                self._lean.close()

    def __enter__(self) -> LeanRouted:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
