"""Which profiles an audit runs, and on which backend each (issue 15: `--profile all` in one command).

A profile carries its backend: one whose toolchains live in Docker images (`image` set) runs on Docker,
the others on bwrap with this machine's toolchains. `--backend docker` puts every profile on Docker
(today's images hold the host-profile toolchains too); `--backend bwrap` refuses image-bound profiles.
With `all`, a profile whose backend is unavailable here is skipped with the reason (reported), so one
command still audits the rest; a profile named explicitly fails fast instead.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

from pipeline.errors import ConfigurationError, SandboxUnavailable
from pipeline.records import EnvironmentProfile

ALL = "all"


@dataclass
class ChosenProfiles:
    runnable: list[EnvironmentProfile] = field(default_factory=list)
    backends: dict[str, str] = field(default_factory=dict)  # profile name -> backend
    skipped: dict[str, str] = field(default_factory=dict)  # profile name -> why


def backend_for(profile: EnvironmentProfile, forced: str) -> str:
    if forced == "docker":
        return "docker"
    if forced == "bwrap" and profile.image:
        raise ConfigurationError(
            f"profile {profile.name} runs in Docker images, not on this machine's toolchains",
            hint="drop `--backend bwrap` (auto puts it on Docker), or choose another --profile",
        )
    return "docker" if profile.image else "bwrap"


def unavailable(backend: str) -> str | None:
    """Why a backend cannot run here, or None."""
    if backend == "bwrap":
        return None if shutil.which("bwrap") else "bubblewrap (`bwrap`) is not installed"
    from sandboxes.backends.docker import connect

    try:
        connect(timeout_s=10)
    except SandboxUnavailable as error:
        return f"{error} ({error.hint})"
    return None


def resolve_profiles(names: list[str], forced: str = "auto") -> ChosenProfiles:
    from sandboxes.profiles import PROFILES, get_profile

    every = ALL in names
    profiles = list(PROFILES.values()) if every else [get_profile(name) for name in dict.fromkeys(names)]
    chosen = ChosenProfiles()
    problems: dict[str, str | None] = {}
    for profile in profiles:
        backend = backend_for(profile, forced)
        if backend not in problems:
            problems[backend] = unavailable(backend)
        if problems[backend] is None:
            chosen.runnable.append(profile)
            chosen.backends[profile.name] = backend
        elif every:
            chosen.skipped[profile.name] = f"{backend}: {problems[backend]}"
        else:
            raise SandboxUnavailable(
                f"profile {profile.name} needs the {backend} backend: {problems[backend]}",
                hint="start it (docker: `make images`), or choose another --profile",
            )
    if not chosen.runnable:
        raise SandboxUnavailable(
            "no profile can run here: " + "; ".join(f"{n}: {r}" for n, r in chosen.skipped.items()),
            hint="install bubblewrap or start Docker (`make images`)",
        )
    return chosen
