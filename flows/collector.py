"""Python's cyclic collector around import-heavy start-ups (Prefect's client and server), in a module of
its own: the settings and the runtime both start Prefect, and neither should import the other for it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# Whether an import-heavy start-up freezes what it built (``collector_paused``): yes in a process of
# surge's own (the executable, the API server, a Dask worker); a library call, in its caller's process,
# leaves the caller's collector alone (``imports_left_unfrozen``). A context variable, so a call in one
# thread decides for itself only.
_freeze_after_imports: ContextVar[bool] = ContextVar("surge_freeze_after_imports", default=True)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Import-heavy start-ups (Prefect's client and server) without Python's cyclic collector, then
    freeze what they built: it lives as long as the process, and no later collection re-scans it.

    Prefect's imports allocate millions of objects, each few hundred of which started a collection that
    walked them again: 1.7 of the server's 7 CPU-s and 0.4 of the client's 2.5 (``gc.callbacks``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _freeze_after_imports.get():
            gc.freeze()
        if was_enabled:
            gc.enable()


@contextmanager
def imports_left_unfrozen() -> Iterator[None]:
    """Inside, in this context only: Prefect's start-up freezes none of the process's objects (a
    library call's caller keeps its collector as it was)."""
    token = _freeze_after_imports.set(False)
    try:
        yield
    finally:
        _freeze_after_imports.reset(token)
