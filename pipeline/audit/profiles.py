"""Which profiles an audit runs, and on which backend each (`--profile all` in one command).

Where a profile runs is decided once, as in every command (`sandboxes.backends.registry.backend_for`):
on `--backend`, unless the profile's toolchains live in images that backend does not run, which go to
the image backend (Docker). With `all`, a profile whose backend is unavailable here is skipped with the
reason (reported), so one command still audits the rest; a profile named explicitly fails fast instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.errors import SandboxUnavailable
from pipeline.records import EnvironmentProfile
from sandboxes.backends.registry import DEFAULT_BACKEND, backend_for, spec_for

ALL = "all"


@dataclass
class ChosenProfiles:
    runnable: list[EnvironmentProfile] = field(default_factory=list)
    backends: dict[str, str] = field(default_factory=dict)  # profile name -> backend
    skipped: dict[str, str] = field(default_factory=dict)  # profile name -> why


def unavailable(backend: str) -> str | None:
    """Why a backend cannot run here, or None."""
    return spec_for(backend).missing(False)


def resolve_profiles(names: list[str], chosen: str = DEFAULT_BACKEND) -> ChosenProfiles:
    from sandboxes.profiles import PROFILES, get_profile

    every = ALL in names
    profiles = list(PROFILES.values()) if every else [get_profile(name) for name in dict.fromkeys(names)]
    result = ChosenProfiles()
    problems: dict[str, str | None] = {}
    for profile in profiles:
        backend = backend_for(profile, chosen)
        if backend not in problems:
            problems[backend] = unavailable(backend)
        if problems[backend] is None:
            result.runnable.append(profile)
            result.backends[profile.name] = backend
        elif every:
            result.skipped[profile.name] = f"{backend}: {problems[backend]} ({spec_for(backend).fix})"
        else:
            raise SandboxUnavailable(
                f"profile {profile.name} needs the {backend} backend: {problems[backend]}",
                hint=f"{spec_for(backend).fix}, or choose another --profile",
            )
    if not result.runnable:
        fixes = dict.fromkeys(spec_for(backend).fix for backend in problems)
        raise SandboxUnavailable(
            "no profile can run here: " + "; ".join(f"{n}: {r}" for n, r in result.skipped.items()),
            hint="; or ".join(fixes),
        )
    return result
