"""Every sandbox backend by name: one module with a ``SPEC`` each, one line in ``REGISTRY``.

A backend's name is said here and in its own module, nowhere else: the `--backend` choices, the default,
`open_backend`, the toolchain identity in run ids, the availability checks (`surge run`, `build`, the
audit's profiles) and `surge doctor` all ask the registry (tests/architecture/test_no_backend_names.py).

Entries are ``"module:attribute"`` references (the form of an entry point), loaded on first use: naming
the choices while arguments are parsed imports no backend, and Docker's client only when Docker is asked
for. A user's package adds a ``BackendSpec`` through the ``surge.backends`` entry points
(pipeline/plugins.py); ``register`` adds one from code (a test's throwaway backend).

This module is core-layer vocabulary like the language registry (``pipeline.records`` reads the default
name from it): it reaches the backends' modules through importlib only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pipeline.plugins import Registry
from pipeline.vocabulary import DEFAULT_BACKEND  # the local sandbox: bubblewrap

if TYPE_CHECKING:
    from pipeline.records import EnvironmentProfile, RunRequest
    from sandboxes.backends.base import Backend

Identity = Callable[["RunRequest"], str]  # a request -> the identity of the toolchain it will use


def always_available(unsafe: bool) -> str | None:
    return None


@dataclass(frozen=True)
class BackendSpec:
    """Everything the pipeline knows about a backend; the backend's module owns each callable. Three
    fields are needed (name, open, identity); the rest have defaults."""

    name: str  # what `--backend` takes and what run ids record
    open: Callable[[bool, int], Backend]  # (unsafe, workers) -> a backend for one batch
    identity: Callable[[], Identity]  # once per plan (it may connect to something): a probe per request
    missing: Callable[[bool], str | None] = always_available  # (unsafe) -> why it cannot start here
    fix: str = ""  # how to make it available, shown with `missing`'s reason
    # Runs the profiles whose toolchains live in images (EnvironmentProfile.image); a backend that does
    # not hands those profiles to one that does.
    runs_images: bool = False
    # The name run ids record when it is not ``name`` (bwrap under --unsafe without bubblewrap records
    # "unsafe-local": other results, another id), and the names it reads back as its own.
    recorded_as: Callable[[bool], str] | None = None
    also_recorded_as: tuple[str, ...] = ()
    status: Callable[[], dict[str, Any]] | None = None  # `surge doctor`: "available", "summary", "hint"

    def recorded_name(self, unsafe: bool) -> str:
        return self.recorded_as(unsafe) if self.recorded_as is not None else self.name

    def records(self, name: str) -> bool:
        return name == self.name or name in self.also_recorded_as


REGISTRY: Registry[str, BackendSpec | str] = Registry(
    "surge.backends",
    BackendSpec,
    lambda spec: spec.name if isinstance(spec, BackendSpec) else str(spec),
    {
        "bwrap": "sandboxes.backends.bwrap:SPEC",
        "docker": "sandboxes.backends.docker:SPEC",
    },
)
OLD_NAMES = {"auto": DEFAULT_BACKEND}  # audit's old spelling of the default


def register(spec: BackendSpec | str, name: str | None = None) -> None:
    """Add a backend: a spec, or a ``"module:attribute"`` reference to one (then ``name`` is needed).
    A name already taken is refused: a backend never silently replaces another."""
    key = spec.name if isinstance(spec, BackendSpec) else name
    if not key:
        raise ValueError("a backend reference needs its name: register('module:SPEC', name='mine')")
    if key in REGISTRY and REGISTRY[key] is not spec:
        raise ValueError(f"a backend named {key!r} is already registered")
    REGISTRY[key] = spec


def unregister(name: str) -> None:
    """Remove a backend added with ``register`` (a test's throwaway one)."""
    REGISTRY.pop(name, None)


def names() -> tuple[str, ...]:
    """The backends `--backend` takes, in registry order."""
    return tuple(REGISTRY)


def spec_for(name: str) -> BackendSpec:
    """The backend of a name `--backend` takes or a run id records; ConfigurationError naming the choices."""
    name = OLD_NAMES.get(name, name)
    if name in REGISTRY:
        return _loaded(name)
    for known in REGISTRY:
        if _loaded(known).records(name):
            return _loaded(known)
    from pipeline.errors import ConfigurationError

    raise ConfigurationError(f"unknown sandbox backend {name!r}", hint=f"use one of: {', '.join(REGISTRY)}")


def specs() -> list[BackendSpec]:
    return [_loaded(name) for name in REGISTRY]


def _loaded(name: str) -> BackendSpec:
    entry = REGISTRY[name]
    if isinstance(entry, BackendSpec):
        return entry
    module, _, attribute = entry.partition(":")
    spec = getattr(importlib.import_module(module), attribute)
    if not isinstance(spec, BackendSpec) or spec.name != name:
        raise TypeError(f"{entry} is not the BackendSpec of a backend named {name!r}")
    REGISTRY[name] = spec
    return spec


def image_backend() -> BackendSpec:
    """The backend that runs profiles whose toolchains live in images (the first that can)."""
    found = next((spec for spec in specs() if spec.runs_images), None)
    if found is None:
        from pipeline.errors import ConfigurationError

        raise ConfigurationError("no registered backend runs image profiles", hint="register one")
    return found


def backend_for(profile: EnvironmentProfile, chosen: str, unsafe: bool = False) -> str:
    """The one decision of where a profile runs, recorded as run ids record it: on ``chosen`` unless the
    profile's toolchains live in images ``chosen`` does not run, which go to the image backend."""
    spec = spec_for(chosen)
    if profile.image and not spec.runs_images:
        spec = image_backend()
    return spec.recorded_name(unsafe)


def check_available(backends: Iterable[str], unsafe: bool = False) -> None:
    """Fail before planning when a backend cannot start here (not per batch, with a traceback)."""
    from pipeline.errors import SandboxUnavailable

    for spec in {spec_for(name).name: spec_for(name) for name in sorted(backends)}.values():
        reason = spec.missing(unsafe)
        if reason is not None:
            raise SandboxUnavailable(f"{reason}: no sandbox for --backend {spec.name}", hint=spec.fix)
