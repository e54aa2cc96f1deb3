"""surge stats: what the store holds — runs by language and verdict, CPU-time percentiles."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.commands.common import add_store_argument, old_rule_note
from pipeline.store import Store, old_run_id_rule_rows

HELP = (
    "summarise the store: runs by language and verdict, CPU-time percentiles, non-deterministic runs and "
    "what varied between their repeats"
)
EXAMPLE = "surge stats --store .surge/store --json"
PERCENTILES = (0.5, 0.9, 0.99)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_argument(parser)


def execute(args: argparse.Namespace) -> dict[str, Any]:
    store = Store.existing(args.store)
    runs = store.runs.read(columns=["language", "verdict", "run", "distinct_outputs", "varied"])
    summary: dict[str, Any] = {
        "store": str(args.store),
        "runs": runs.num_rows,
        "parts": len(store.runs.part_files()),
        "quarantined": store.quarantine.count(),
        "nondeterministic": int(pc.sum(pc.greater(runs["distinct_outputs"], 1)).as_py() or 0),
        "nondeterministic_by_part": nondeterministic_by_part(runs),
        "by_language": by_language(runs),
        "cpu_s_percentiles": cpu_percentiles(runs),
        "rows_by_schema_version": store.runs.rows_by_schema_version(),
    }
    summary["_text"] = render(summary)
    return summary


def by_language(runs: pa.Table) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    grouped = runs.group_by(["language", "verdict"]).aggregate([("verdict", "count")])
    for row in grouped.to_pylist():
        counts.setdefault(row["language"], {})[row["verdict"]] = row["verdict_count"]
    return dict(sorted(counts.items()))


def nondeterministic_by_part(runs: pa.Table) -> dict[str, int]:
    """How many non-deterministic runs saw each part vary between repeats (stdout, stderr, exit_code,
    signal, verdict). Rows before schema 4 have no ``varied``: they compared stdouts only."""
    unstable = runs.filter(pc.greater(runs["distinct_outputs"], 1))
    counts: dict[str, int] = {}
    for varied in unstable["varied"].to_pylist():
        for part in varied if varied is not None else ["stdout"]:
            counts[part] = counts.get(part, 0) + 1
    return counts


def cpu_percentiles(runs: pa.Table) -> dict[str, float]:
    """Run-phase CPU seconds (user + system) of the runs that reached the run phase."""
    if runs.num_rows == 0:
        return {}
    run_phase = runs["run"]
    cpu = pc.add(pc.struct_field(run_phase, "cpu_user_s"), pc.struct_field(run_phase, "cpu_sys_s"))
    cpu = pc.drop_null(cpu)
    if len(cpu) == 0:
        return {}
    quantiles = pc.quantile(cpu, q=list(PERCENTILES)).to_pylist()
    figures = {f"p{round(q * 100)}": round(v, 4) for q, v in zip(PERCENTILES, quantiles, strict=True)}
    figures["max"] = round(pc.max(cpu).as_py(), 4)
    return figures


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"{summary['runs']} runs in {summary['parts']} parts at {summary['store']}"
        f" ({summary['quarantined']} quarantined records,"
        f" {summary['nondeterministic']} non-deterministic runs{parts_varied(summary)})"
    ]
    verdicts = sorted({v for counts in summary["by_language"].values() for v in counts})
    if verdicts:
        lines.append(f"{'language':<12}" + "".join(f"{v:>17}" for v in verdicts))
        for language, counts in summary["by_language"].items():
            lines.append(f"{language:<12}" + "".join(f"{counts.get(v, 0):>17}" for v in verdicts))
    old = old_run_id_rule_rows(summary["rows_by_schema_version"])
    if old:
        lines.append(old_rule_note(old))
    if summary["cpu_s_percentiles"]:
        figures = "  ".join(f"{k}={v:.3f}s" for k, v in summary["cpu_s_percentiles"].items())
        lines.append(f"run CPU time  {figures}")
    return "\n".join(lines)


def parts_varied(summary: dict[str, Any]) -> str:
    """': 3 stdout, 1 verdict' (what varied between repeats), or nothing."""
    parts = summary["nondeterministic_by_part"]
    return (": " + ", ".join(f"{count} {part}" for part, count in parts.items())) if parts else ""
