"""Plug-ins from the user's own package: entry points that add specs to surge's registries.

A distribution adds a subset, a language, a source or a backend by naming its spec in one of the
groups below (its ``pyproject.toml``), the way pytest takes ``pytest11`` plug-ins:

    [project.entry-points."surge.languages"]
    brainfuck = "my_surge_plugins.brainfuck:SPEC"

A registry is a ``Registry``: a dict of the repository's own specs that reads its group's entry points
once, at its first lookup (never at import: importing surge reads no installed distribution), and keeps
them beside the built-in specs, so every table derived from the registry sees them. A bad plug-in (its
import fails, it names no spec of the registry's kind, its name is already taken) is refused in one line
naming the entry point, its distribution and the fix (``PluginError``: exit 2), never a traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from pipeline.errors import ConfigurationError

GROUPS = ("surge.subsets", "surge.languages", "surge.sources", "surge.backends")
BUILT_IN = "built-in"

K = TypeVar("K")
V = TypeVar("V")


class PluginError(ConfigurationError):
    """An installed plug-in cannot be used; the message names its entry point and distribution."""


@dataclass(frozen=True)
class Installed:
    """One registered spec and where it comes from: ``built-in`` or its distribution and version."""

    group: str
    name: str
    origin: str
    entry_point: str = ""  # ``name = module:attribute``, for a plug-in


class Registry(dict[K, V]):
    """A registry's dict that adds its group's plug-ins at its first lookup (get, in, iteration, len).

    Writing (``REGISTRY[name] = spec``) never loads them, so a module can finish filling its own
    registry at import without reading installed distributions."""

    def __init__(
        self, group: str, kind: type | Callable[[Any], bool], name_of: Callable[[V], K], specs: dict[K, V]
    ) -> None:
        super().__init__(specs)
        self.group, self.kind, self.name_of = group, kind, name_of
        self.origins: dict[str, Installed] = {}
        self._loaded = False
        self._lock = threading.RLock()

    def load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            self._loaded = True  # a plug-in that looks the registry up while it imports sees the built-ins
            try:
                found = [self._spec_of(entry) for entry in by_name(entry_points(group=self.group))]
                self._add(found)
            except BaseException:
                self._loaded = False  # the next lookup refuses it again, in the same one line
                raise

    def _spec_of(self, entry: EntryPoint) -> tuple[EntryPoint, Any]:
        try:
            spec = entry.load()
        except Exception as error:  # noqa: BLE001 - any failure of the user's module is one line
            raise refused(self.group, entry, f"cannot be imported: {type(error).__name__}: {error}") from None
        fits = isinstance(spec, self.kind) if isinstance(self.kind, type) else self.kind(spec)
        if not fits:
            wanted = self.kind.__name__ if isinstance(self.kind, type) else (self.kind.__doc__ or "spec")
            raise refused(self.group, entry, f"is a {type(spec).__name__}, not a {wanted.rstrip('.')}")
        return entry, spec

    def _add(self, found: list[tuple[EntryPoint, Any]]) -> None:
        origins = {str(name): Installed(self.group, str(name), BUILT_IN) for name in dict.keys(self)}
        for entry, spec in found:
            name = str(self.name_of(spec))
            if name in origins:
                taken = origins[name].origin
                raise refused(self.group, entry, f"names {name!r}, which is already {taken}'s")
            origins[name] = Installed(self.group, name, origin_of(entry), f"{entry.name} = {entry.value}")
        for _entry, spec in found:
            dict.__setitem__(self, self.name_of(spec), spec)
        self.origins = origins

    def installed(self) -> list[Installed]:
        """Every spec of the registry with its origin (the plug-ins loaded first)."""
        self.load()
        return [
            self.origins.get(str(name)) or Installed(self.group, str(name), BUILT_IN)
            for name in dict.keys(self)
        ]

    def __getitem__(self, name: K) -> V:
        self.load()
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self.load()
        return super().__contains__(name)

    def __iter__(self) -> Iterator[K]:
        self.load()
        return super().__iter__()

    def __len__(self) -> int:
        self.load()
        return super().__len__()

    def get(self, name: K, default: Any = None) -> Any:  # type: ignore[override]
        self.load()
        return super().get(name, default)

    def keys(self):  # type: ignore[no-untyped-def]  # dict's own view types
        self.load()
        return super().keys()

    def values(self):  # type: ignore[no-untyped-def]
        self.load()
        return super().values()

    def items(self):  # type: ignore[no-untyped-def]
        self.load()
        return super().items()


def by_name(entries: Any) -> list[EntryPoint]:
    return sorted(entries, key=lambda entry: (entry.name, entry.value))


def origin_of(entry: EntryPoint) -> str:
    """``DIST VERSION`` of the distribution that declares the entry point."""
    dist = entry.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unnamed distribution"


def refused(group: str, entry: EntryPoint, why: str) -> PluginError:
    dist = entry.dist.name if entry.dist is not None else None
    where = f"distribution {origin_of(entry)}" if dist else "an unnamed distribution"
    fix = (
        f"fix the plug-in, or uninstall it (`pip uninstall {dist}`)" if dist else "fix or remove the plug-in"
    )
    return PluginError(f"plug-in {entry.name} = {entry.value} ({group}) from {where} {why}", hint=fix)
