"""Lean 4's checker, the lean4 language spec's ``checker``: proofs go to the warm REPL pool on any backend.

Imported with the language registry, so it imports nothing of the pool until a batch has a proof to
check: the REPL settings' pydantic-settings alone cost every `surge` command ~150 ms to import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandboxes.lean.backend import LeanBackend


@dataclass(frozen=True)
class LeanChecker:
    """Opens the process's shared REPL pool for a batch; identifies its Lean, Mathlib and REPL."""

    def open(self) -> LeanBackend:
        from sandboxes.lean.backend import LeanBackend

        # Lean's concurrency is its own setting (SURGE_LEAN_MAX_REPLS): each REPL holds Mathlib (GBs), so
        # batches side by side share one pool rather than each starting its own.
        return LeanBackend(shared=True)

    def identity(self) -> str:
        from sandboxes.lean.backend import lean_identity

        return lean_identity()


LEAN_REPL = LeanChecker()
