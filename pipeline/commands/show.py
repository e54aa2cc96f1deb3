"""surge show: the show stage (pipeline/stages/show.py) from its flags, and one run as a person reads it —
what the program printed, its phases, verdict, provenance."""

from __future__ import annotations

import argparse

from pipeline.commands.common import add_store_argument
from pipeline.commands.display import Table, key_values
from pipeline.records import PhaseResult, RunResult
from pipeline.stages.options import ShowOptions
from pipeline.stages.show import show

HELP = "show one run: what the program printed, its compile and run phases, verdict and provenance"
EXAMPLE = "surge show --last --store .surge/store"

STAGE = show  # the stage this command calls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("run_id", nargs="?", help="a run id or a prefix of one that names a single run")
    which.add_argument("--last", action="store_true", help="the run started most recently")
    add_store_argument(parser)


def options_of(args: argparse.Namespace) -> ShowOptions:
    return ShowOptions(store=args.store, run_id=args.run_id, last=args.last)


def render(result: RunResult, options: ShowOptions | None = None) -> str:
    provenance = result.provenance
    lines = [
        f"run {result.run_id}  {result.language}  verdict: {result.verdict}",
        f"program {result.program_id}  setting {result.setting_id}  profile {provenance.profile}",
    ]
    for name, phase in (("compile", result.compile), ("run", result.run)):
        lines += render_phase(name, phase) if phase is not None else []
    lines.append(f"label ({result.protocol}):")
    lines += indented(result.label)
    if result.label_bytes is not None:
        lines.append(f"  (not UTF-8: {len(result.label_bytes)} raw bytes kept; --json gives them as base64)")
    varied = ", ".join(result.varied) or "nothing"
    lines.append(f"repeats {result.repeats}  distinct outputs {result.distinct_outputs}  varied: {varied}")
    lines += render_provenance(result)
    return "\n".join(lines)


def screen(result: RunResult, options: ShowOptions | None = None) -> list[str | Table]:
    """``render`` for a terminal: the phases' facts side by side in one table, the provenance as a table
    of names and values; what the program printed and its label as written."""
    phases = [(name, phase) for name, phase in (("compile", result.compile), ("run", result.run)) if phase]
    facts = Table(
        ("phase", "verdict", "exit", "signal", "cpu s", "wall s", "max rss KiB"),
        [
            (
                name,
                p.verdict,
                p.exit_code,
                p.signal,
                f"{p.cpu_user_s + p.cpu_sys_s:.3f}",
                f"{p.wall_s:.3f}",
                p.max_rss_kib,
            )
            for name, p in phases
        ],  # fmt: skip
        figures=range(2, 7),
    )
    text = render(result).splitlines()
    printed = [line for name, phase in phases for line in render_phase(name, phase)[3:]]  # the outputs
    label_at = next(i for i, line in enumerate(text) if line.startswith(f"label ({result.protocol})"))
    provenance_at = next(i for i, line in enumerate(text) if line.startswith("provenance: "))
    return [*text[:2], facts, *[f"{name} command: {' '.join(p.command)}" for name, p in phases], *printed,
            *text[label_at:provenance_at], key_values(provenance_pairs(result), "provenance")]  # fmt: skip


def provenance_pairs(result: RunResult) -> list[tuple[str, str]]:
    provenance = result.provenance
    run_limits = provenance.limits.run
    return [
        ("backend", provenance.backend),
        ("host", provenance.host),
        ("started", provenance.started_at.isoformat()),
        ("pipeline", provenance.pipeline_version),
        (
            "toolchains",
            ", ".join(f"{k} {v}" for k, v in sorted(provenance.toolchain_versions.items())) or "none",
        ),
        ("image digest", provenance.image_digest or "none (no image)"),
        (
            "run limits",
            f"cpu {run_limits.cpu_s:g} s, wall {run_limits.wall_s:g} s, memory {run_limits.memory_mib} MiB, "
            f"output {run_limits.output_bytes} bytes per stream",
        ),
    ]


def render_phase(name: str, phase: PhaseResult) -> list[str]:
    status = f"exit {phase.exit_code}" + (f", signal {phase.signal}" if phase.signal else "")
    lines = [
        f"{name}: {phase.verdict}  ({status})" + (f"  {phase.detail}" if phase.detail else ""),
        f"  command: {' '.join(phase.command)}",
        f"  cpu {phase.cpu_user_s + phase.cpu_sys_s:.3f} s  wall {phase.wall_s:.3f} s"
        + (f" (+{phase.setup_wall_s:.3f} s the runner's seed or warm compiler)" if phase.setup_wall_s else "")
        + f"  max rss {phase.max_rss_kib} KiB",
    ]
    for stream in ("stdout", "stderr"):
        text: str = getattr(phase, stream)
        notes = []
        if getattr(phase, f"{stream}_truncated"):
            notes.append("truncated at the output limit")
        if not phase.exact(stream):
            notes.append(f"not UTF-8: {len(phase.raw(stream))} raw bytes kept, shown with U+FFFD")
        lines.append(
            f"  {stream}" + (f" ({'; '.join(notes)})" if notes else "") + (":" if text else ": (empty)")
        )
        lines += indented(text, "    ")
    return lines


def render_provenance(result: RunResult) -> list[str]:
    provenance = result.provenance
    run_limits = provenance.limits.run
    toolchains = ", ".join(f"{k} {v}" for k, v in sorted(provenance.toolchain_versions.items())) or "none"
    return [
        f"provenance: backend {provenance.backend}  host {provenance.host}"
        f"  started {provenance.started_at.isoformat()}  pipeline {provenance.pipeline_version}",
        f"  toolchains: {toolchains}",
        f"  image digest: {provenance.image_digest or 'none (no image)'}",
        f"  run limits: cpu {run_limits.cpu_s:g} s, wall {run_limits.wall_s:g} s,"
        f" memory {run_limits.memory_mib} MiB, output {run_limits.output_bytes} bytes per stream",
    ]


def indented(text: str, indent: str = "  ") -> list[str]:
    return [indent + line for line in text.splitlines()]
