"""Which toolchains a profile can use here, with versions (probed once per process, cached)."""

from __future__ import annotations

import shutil
import subprocess
from functools import cache

from pydantic import BaseModel, ConfigDict

from pipeline.records import EnvironmentProfile, ExecutionSetting
from sandboxes.languages import REGISTRY, LanguageSpec, version_flag
from sandboxes.profiles import SANDBOX_PATH

PROBE_TIMEOUT_S = 20


class ToolchainStatus(BaseModel):
    """One tool a language's spec runs under a profile, as the sandbox finds it (`surge doctor` shows it)."""

    model_config = ConfigDict(frozen=True)

    language: str
    tool: str
    version: str | None
    path: str | None
    available: bool
    install_hint: str | None


def find_tool(tool: str) -> str | None:
    """The tool as the sandbox sees it: on the sandbox PATH (never the host's ~/.cargo or pyenv shims)."""
    return shutil.which(tool, path=SANDBOX_PATH)


@cache
def tool_version(tool: str) -> str | None:
    path = find_tool(tool)
    if path is None:
        return None
    try:
        probe = subprocess.run(
            [path, version_flag(tool)], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (probe.stdout.strip() or probe.stderr.strip()).splitlines()
    return text[0].strip() if text else ""


def status_of(spec: LanguageSpec, tool: str) -> ToolchainStatus:
    path = find_tool(tool)
    return ToolchainStatus(
        language=spec.language.value,
        tool=tool,
        version=tool_version(tool) if path else None,
        path=path,
        available=path is not None,
        install_hint=None if path else spec.install_hint(tool),
    )


def toolchain_report(profile: EnvironmentProfile) -> list[ToolchainStatus]:
    report: dict[str, ToolchainStatus] = {}
    for spec in REGISTRY.values():
        tools = spec.tools(ExecutionSetting(), profile)
        tools += [profile.toolchains.get(t, t) for t in spec.alternative_tools]
        for tool in tools:
            report.setdefault(tool, status_of(spec, tool))
    return list(report.values())
