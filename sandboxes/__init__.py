"""sandboxes: run programs of every SURGE language in isolation and record each phase.

`open_backend(name)` is the one entry point the pipeline uses; which backends exist is the registry's to
say (sandboxes/backends/registry.py), and each is imported when first opened, so that `import sandboxes`
stays cheap and Docker is only touched when asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sandboxes.backends.registry import DEFAULT_BACKEND, spec_for

if TYPE_CHECKING:
    from sandboxes.backends.sandbox import Sandbox


def open_backend(name: str = DEFAULT_BACKEND, *, unsafe: bool = False, workers: int = 1) -> Sandbox:
    """Open a backend for one batch; its language checkers (Lean's proofs) come with it.

    name: a registered backend (`sandboxes.backends.registry.names()`), or a name run ids record for one.
    unsafe: allow running without isolation where the backend has such a mode (trusted code only).
    workers: programs run concurrently inside this backend.
    """
    from sandboxes.backends.sandbox import Sandbox  # with the language registry: when a batch opens

    return Sandbox(spec_for(name).open(unsafe, workers))
