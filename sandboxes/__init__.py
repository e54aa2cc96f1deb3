"""sandboxes: run programs of every SURGE language in isolation and record each phase.

`open_backend(name)` is the one entry point the pipeline uses; backends are imported lazily so that
`import sandboxes` stays cheap and Docker is only touched when asked for.
"""

from __future__ import annotations

from typing import Any

from pipeline.plugins import Registry
from sandboxes.backends.base import Backend

BACKENDS = ("bwrap", "docker")


def is_backend_class(value: object) -> bool:
    """Backend class with a str ``name``"""
    return isinstance(value, type) and isinstance(getattr(value, "name", None), str)


# Plug-in backends (entry points "surge.backends"): a Backend class with its ``name``, opened with
# ``(unsafe=..., workers=...)``; the built-in names are reserved (their classes load lazily, below).
PLUGINS: dict[str, Any] = Registry(
    "surge.backends", is_backend_class, lambda cls: cls.name, dict.fromkeys(BACKENDS)
)


def open_backend(name: str = "bwrap", *, unsafe: bool = False, workers: int = 1) -> Backend:
    """Open a backend for one batch.

    name: 'bwrap' (default, local bubblewrap sandbox) or 'docker' (warm containers).
    unsafe: with 'bwrap', allow running without bubblewrap (no isolation; for trusted code only).
    workers: programs run concurrently inside this backend.
    """
    if name == "bwrap":
        from sandboxes.backends.bwrap import BwrapBackend

        return _with_lean(BwrapBackend(unsafe=unsafe, workers=workers))
    if name == "docker":
        from sandboxes.backends.docker import DockerBackend

        return _with_lean(DockerBackend(workers=workers))
    if PLUGINS.get(name) is not None:
        return _with_lean(PLUGINS[name](unsafe=unsafe, workers=workers))
    from pipeline.errors import ConfigurationError

    raise ConfigurationError(f"unknown sandbox backend {name!r}", hint=f"use one of: {', '.join(PLUGINS)}")


def _with_lean(inner: Backend) -> Backend:
    """lean4 programs are proof checks: they go to the warm REPL pool (sandboxes/lean, docs/lean.md)."""
    from sandboxes.lean.router import LeanRouted

    return LeanRouted(inner)
