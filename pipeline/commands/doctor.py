"""surge doctor: what this machine can run — toolchains, sandboxes, Docker — with versions and fixes."""

from __future__ import annotations

import argparse
from importlib.metadata import version
from typing import Any

from pipeline.commands.common import add_profile_argument
from pipeline.stages.build import one_profile

HELP = "report which toolchains, sandboxes and Docker images are available here, with versions"
EXAMPLE = "surge doctor --json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_profile_argument(parser, "; whose toolchain choices to check: one at a time")


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from sandboxes.profiles import get_profile
    from sandboxes.toolchains import toolchain_report

    profile = one_profile(args.profile, "doctor")
    toolchains = [_as_dict(status) for status in toolchain_report(get_profile(profile))]
    summary: dict[str, Any] = {
        "pipeline": version("surge-pipeline"),
        "prefect": version("prefect"),
        "profile": profile,
        # under a key of their own: a plug-in backend may take any name, "lean" or "profile" included
        "backends": backend_statuses(),
        "languages": language_table(),
        "toolchains": toolchains,
        "lean": lean_status(),
        "installed": installed_specs(),
    }
    summary["_text"] = render(summary)
    return summary


def language_table() -> list[dict[str, Any]]:
    """Every registered language (sandboxes/languages/), with how upstream spells it and its image family."""
    from sandboxes.languages import REGISTRY

    return [
        {
            "language": spec.language.value,
            "name": spec.display_name,
            "aliases": list(spec.aliases),
            "image_family": spec.image_family,
        }
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


def render_installed(installed: dict[str, list[dict[str, str]]]) -> list[str]:
    """A line per group: the built-in names, then each plug-in with its distribution."""
    lines = []
    for group, specs in installed.items():
        built_in = [spec["name"] for spec in specs if spec["from"] == "built-in"]
        added = [f"{spec['name']} (from {spec['from']})" for spec in specs if spec["from"] != "built-in"]
        names = ", ".join(built_in) + " built-in" + "".join(f"; {plugin}" for plugin in added)
        lines.append(f"    {group}: {names}")
    return lines


def _as_dict(status: Any) -> dict[str, Any]:
    return status.model_dump() if hasattr(status, "model_dump") else dict(vars(status))


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


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"surge-pipeline {summary['pipeline']} (prefect {summary['prefect']}), profile {summary['profile']}"
    ]
    from sandboxes.backends.registry import names as backend_names

    for name in backend_names():
        status = summary["backends"][name]
        detail = str(status.get("summary", ""))
        lines.append(_line(f"sandbox {name}", status.get("available", False), detail, status.get("hint", "")))
        lines += [f"    image {image}" for image in status.get("images", [])]
    names = ", ".join(f"{lang['name']} ({lang['language']})" for lang in summary["languages"])
    lines.append(f"    languages: {names}")
    for tool in summary["toolchains"]:
        label = f"{tool.get('language')}: {tool.get('tool')}"
        lines.append(
            _line(label, tool.get("available"), tool.get("version") or "", tool.get("install_hint") or "")
        )
    lean = summary["lean"]
    pinned = "Goedel-Prover pins" if lean.get("matches_pins") else "pins differ"
    detail = f"{lean['repl_command']} in {lean['project_dir']}" + (
        f" ({pinned})" if lean["available"] else ""
    )
    lines.append(_line("fl checker: lean repl", lean["available"], detail, lean.get("hint", "")))
    lines.append("installed (plug-ins: entry points of these groups)")
    lines += render_installed(summary["installed"])
    return "\n".join(lines)


def _line(label: str, ok: Any, detail: str, hint: str) -> str:
    mark = "ok " if ok else "-- "
    text = f"{mark} {label:<24} {detail}".rstrip()
    return text if ok or not hint else f"{text}  (fix: {hint})"
