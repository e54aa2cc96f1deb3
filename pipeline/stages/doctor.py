"""The doctor stage: what this machine can run (toolchains, sandboxes, the Lean checker, the plug-ins
installed), with versions and fixes, as data (`surge doctor --json` prints it; the CLI renders the text).

A backend's and the Lean checker's status are each that part's own report, read as it gives it (a
plug-in backend may report any field), so they stay mappings; the rest is typed.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from pydantic import BaseModel, Field

from pipeline.observe import Observer, tell
from pipeline.stage_results import StageResult
from pipeline.stages.build import one_profile
from pipeline.stages.options import DoctorOptions
from sandboxes.profiles import get_profile
from sandboxes.toolchains import ToolchainStatus, toolchain_report


class LanguageRow(BaseModel):
    """A registered language (sandboxes/languages/): its name, upstream spellings and image family."""

    language: str
    name: str
    aliases: list[str]
    image_family: str


class DoctorReport(StageResult):
    """What this machine can run, under one profile."""

    pipeline: str = Field(description="surge-pipeline's version")
    prefect: str = Field(description="Prefect's version")
    profile: str
    backends: dict[str, dict[str, Any]] = Field(
        description="each registered backend's own status, under its name (a plug-in's may take any name)"
    )
    languages: list[LanguageRow]
    toolchains: list[ToolchainStatus]
    lean: dict[str, Any] = Field(description="the fl checker: is a REPL with Mathlib reachable, pinned?")
    installed: dict[str, list[dict[str, str]]] = Field(
        description="per plug-in group, each spec and where it comes from (built-in, or a distribution)"
    )


def doctor(options: DoctorOptions, *, observer: Observer | None = None) -> DoctorReport:
    """What this machine can run under the options' profile (`surge doctor`)."""
    profile = one_profile(options.profile, "doctor")
    tell(observer, "doctor", "started", profile)
    toolchains = toolchain_report(get_profile(profile))
    return DoctorReport(
        pipeline=version("surge-pipeline"),
        prefect=version("prefect"),
        profile=profile,
        backends=backend_statuses(),
        languages=language_table(),
        toolchains=toolchains,
        lean=lean_status(),
        installed=installed_specs(),
    )


def language_table() -> list[LanguageRow]:
    """Every registered language (sandboxes/languages/), with how upstream spells it and its image family."""
    from sandboxes.languages import REGISTRY

    return [
        LanguageRow(
            language=spec.language.value,
            name=spec.display_name,
            aliases=list(spec.aliases),
            image_family=spec.image_family,
        )
        for spec in REGISTRY.values()
    ]


def installed_specs() -> dict[str, list[dict[str, str]]]:
    """Per plug-in group, every registered spec and where it comes from: built-in, or the distribution
    (name and version) whose entry point added it (pipeline/plugins.py)."""
    from pipeline.plugins import Registry
    from pipeline.subsets import REGISTRY as subsets
    from sandboxes.backends.registry import REGISTRY as backends
    from sandboxes.languages import REGISTRY as languages
    from sources.registry import SOURCES as sources

    registries = [r for r in (subsets, languages, sources, backends) if isinstance(r, Registry)]
    return {
        registry.group: [
            {"name": spec.name, "from": spec.origin, "entry_point": spec.entry_point}
            for spec in registry.installed()
        ]
        for registry in registries
    }


def backend_statuses() -> dict[str, dict[str, Any]]:
    """Every registered backend's own report (its spec's ``status``), under its name; a backend that
    cannot even be imported says so."""
    from sandboxes.backends.registry import names, spec_for

    statuses: dict[str, dict[str, Any]] = {}
    for name in names():
        try:
            status = spec_for(name).status
        except ImportError as missing:
            statuses[name] = {"available": False, "hint": f"backend {name} not importable: {missing}"}
            continue
        statuses[name] = status() if status else {"available": True, "summary": "no status reported"}
    return statuses


# Goedel-Prover's environment, which made SURGE's fl labels (dockerfiles/lean4/Dockerfile, docs/lean.md).
LEAN_PINS = {
    "lean": "leanprover/lean4:v4.9.0-rc1",
    "mathlib": "2f65ba7f1a9144b20c8e7358513548e317d26de1",
    "REPL": "3334a97b",
}


def lean_status() -> dict[str, Any]:
    """The fl checker: is a REPL with Mathlib reachable, and is it Goedel-Prover's environment?"""
    from sandboxes.lean.backend import environment_versions, missing_toolchain
    from sandboxes.lean.settings import LeanSettings

    settings = LeanSettings()
    status: dict[str, Any] = {
        "repl_command": " ".join(settings.repl_command),
        "project_dir": str(settings.project_dir),
        "pinned": LEAN_PINS,
    }
    missing = missing_toolchain(settings)
    if missing is not None:
        return {**status, "available": False, "hint": missing}
    found = environment_versions(settings)
    differs = [k for k, pin in LEAN_PINS.items() if not str(found.get(k, "")).startswith(pin)]
    status.update(available=True, versions=found, matches_pins=not differs)
    if differs:
        status["hint"] = f"not Goedel-Prover's environment ({', '.join(differs)} differ): fl labels may drift"
    return status
