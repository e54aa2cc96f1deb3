"""surge doctor: the doctor stage (pipeline/stages/doctor.py) from its flags, and what this machine can
run as text: toolchains, sandboxes, Docker, the Lean checker and the plug-ins installed, with fixes."""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.commands.common import add_profile_argument, options_from
from pipeline.stages.doctor import DoctorReport, doctor
from pipeline.stages.options import DoctorOptions

HELP = "report which toolchains, sandboxes and Docker images are available here, with versions"
EXAMPLE = "surge doctor --json"

STAGE = doctor  # the stage this command calls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_profile_argument(parser, "; whose toolchain choices to check: one at a time")


def options_of(args: argparse.Namespace) -> DoctorOptions:
    return options_from(args, DoctorOptions)


def render_installed(installed: dict[str, list[dict[str, str]]]) -> list[str]:
    """A line per group: the built-in names, then each plug-in with its distribution."""
    lines = []
    for group, specs in installed.items():
        built_in = [spec["name"] for spec in specs if spec["from"] == "built-in"]
        added = [f"{spec['name']} (from {spec['from']})" for spec in specs if spec["from"] != "built-in"]
        names = ", ".join(built_in) + " built-in" + "".join(f"; {plugin}" for plugin in added)
        lines.append(f"    {group}: {names}")
    return lines


def render(report: DoctorReport, options: DoctorOptions) -> str:
    from sandboxes.backends.registry import names as backend_names

    lines = [f"surge-pipeline {report.pipeline} (prefect {report.prefect}), profile {report.profile}"]
    for name in backend_names():
        status = report.backends[name]
        detail = str(status.get("summary", ""))
        lines.append(_line(f"sandbox {name}", status.get("available", False), detail, status.get("hint", "")))
        lines += [f"    image {image}" for image in status.get("images", [])]
    names = ", ".join(f"{row.name} ({row.language})" for row in report.languages)
    lines.append(f"    languages: {names}")
    for tool in report.toolchains:
        hint = tool.install_hint or ""
        lines.append(_line(f"{tool.language}: {tool.tool}", tool.available, tool.version or "", hint))
    lean = report.lean
    pinned = "Goedel-Prover pins" if lean.get("matches_pins") else "pins differ"
    detail = f"{lean['repl_command']} in {lean['project_dir']}" + (
        f" ({pinned})" if lean["available"] else ""
    )
    lines.append(_line("fl checker: lean repl", lean["available"], detail, lean.get("hint", "")))
    lines.append("installed (plug-ins: entry points of these groups)")
    lines += render_installed(report.installed)
    return "\n".join(lines)


def _line(label: str, ok: Any, detail: str, hint: str) -> str:
    mark = "ok " if ok else "-- "
    text = f"{mark} {label:<24} {detail}".rstrip()
    return text if ok or not hint else f"{text}  (fix: {hint})"
