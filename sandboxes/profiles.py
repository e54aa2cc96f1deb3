"""Named execution environments: locale, time zone and toolchain choices that a label depends on.

A profile's ``toolchains`` maps a language to its default tool (``"cpp": "g++"``), a tool name to the
executable used for it (``"clang++": "clang++-19"``) and ``"<language>-std"`` to a default standard.
"""

from __future__ import annotations

from pipeline.errors import ConfigurationError
from pipeline.records import EnvironmentProfile

# /opt/surge-bin (bwrap only) holds `python` -> python3: SURGE rl run instructions say `python x.py`.
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/surge-bin"
SANDBOX_HOME = "/tmp/home"

PROFILES: dict[str, EnvironmentProfile] = {
    profile.name: profile
    for profile in (
        EnvironmentProfile(
            name="default",
            description="C.UTF-8, UTC, this machine's current toolchains (g++ -std=c++17 for C++)",
        ),
        EnvironmentProfile(
            name="surge-bg",
            description="SURGE bg labels: LANG=C so gcc quotes 'int main()' in ASCII; g++ -std=c++11",
            locale="C",
            toolchains={"cpp": "g++", "cpp-std": "c++11"},
        ),
        EnvironmentProfile(
            name="surge-dr",
            description="SURGE dr labels: clang++ is clang 19 (it prints the line gutters the labels show)",
            toolchains={"clang++": "clang++-19"},
        ),
        # Docker-only profiles: their toolchains live in images (dockerfiles/, docs/docker.md).
        EnvironmentProfile(
            name="current",
            description="Debian bookworm images: gcc 12, clang 14/19, Python 3.11, OpenJDK 17 (Docker)",
            image="surge/{family}:{suite}",  # suite: sandboxes/backends/docker.py PROFILE_SUITES
        ),
        EnvironmentProfile(
            name="surge-repro",
            description="aimed at SURGE's released labels: Debian bullseye images (Python 3.9 tracebacks, "
            "glibc 2.31, g++ 10, clang 16, Julia 1.5.3) under LANG=C (Docker)",
            locale="C",
            image="surge/{family}:{suite}",
        ),
        EnvironmentProfile(
            name="surge-focal",
            description="aimed at SURGE's dr labels (an Ubuntu 20.04 host with a newer clang): glibc 2.31, "
            "g++ 9, clang 19 (its line gutters) on bullseye; other languages as surge-repro; LANG=C (Docker)",
            locale="C",
            image="surge/{family}:{suite}",
        ),
    )
}


def get_profile(name: str) -> EnvironmentProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown environment profile {name!r}", hint=f"use one of: {', '.join(PROFILES)}"
        ) from None


def check_backend(profiles: list[EnvironmentProfile], backend: str) -> None:
    """A profile whose toolchains live in Docker images cannot run on the host's toolchains."""
    from sandboxes.backends.registry import image_backend, spec_for

    if spec_for(backend).runs_images:
        return
    image_bound = [profile.name for profile in profiles if profile.image]
    if image_bound:
        raise ConfigurationError(
            f"profile {', '.join(image_bound)} runs in Docker images, not on this machine's toolchains",
            hint=f"add `--backend {image_backend().name}` (images: `make images`), or another --profile",
        )


def sandbox_env(profile: EnvironmentProfile, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment a program sees: nothing leaks in from the host."""
    env = {
        "PATH": SANDBOX_PATH,
        "HOME": SANDBOX_HOME,
        "LANG": profile.locale,
        "LC_ALL": profile.locale,
        "TZ": profile.timezone,
        "TMPDIR": "/tmp",
    }
    env.update(extra or {})
    env.update(profile.env)
    return env
