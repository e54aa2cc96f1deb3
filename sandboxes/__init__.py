"""sandboxes: run programs of every SURGE language in isolation and record each phase.

`open_backend(name)` is the one entry point the pipeline uses; which backends exist is the registry's to
say (sandboxes/backends/registry.py), and each is imported when first opened, so that `import sandboxes`
stays cheap and Docker is only touched when asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sandboxes.backends.registry import DEFAULT_BACKEND, spec_for

if TYPE_CHECKING:
    from sandboxes.backends.base import Backend


def open_backend(name: str = DEFAULT_BACKEND, *, unsafe: bool = False, workers: int = 1) -> Backend:
    """Open a backend for one batch.

    name: a registered backend (`sandboxes.backends.registry.names()`), or a name run ids record for one.
    unsafe: allow running without isolation where the backend has such a mode (trusted code only).
    workers: programs run concurrently inside this backend.
    """
    return _with_lean(spec_for(name).open(unsafe, workers))


def _with_lean(inner: Backend) -> Backend:
    """lean4 programs are proof checks: they go to the warm REPL pool (sandboxes/lean, docs/lean.md)."""
    from sandboxes.lean.router import LeanRouted

    return LeanRouted(inner)
