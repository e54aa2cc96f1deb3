"""surge stats: what the store holds, one short section per table: runs by language and verdict (the
non-deterministic ones named), dataset rows per subset and source, build outcomes by reason, audit classes,
quarantined records by stage, and the row count of every other table."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.audit.rows import AuditRow
from pipeline.build.records import outcome_table
from pipeline.commands.common import add_store_argument, bounded_int, old_rule_note
from pipeline.commands.display import Table
from pipeline.dataset import dataset_table
from pipeline.parts import open_part
from pipeline.store import Store, old_run_id_rule_rows, part_files

HELP = (
    "summarise every table of the store: runs by language and verdict (non-deterministic runs named, with "
    "what varied), dataset rows per subset and source, build outcomes by reason, audit classes, quarantine"
)
EXAMPLE = "surge stats --store .surge/store --json"
PERCENTILES = (0.5, 0.9, 0.99)
RUN_ID_SHOWN_CHARS = 12  # enough for `surge show` to find the run again


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_argument(parser)
    parser.add_argument(
        "--name-at-most",
        type=bounded_int(0, 10_000),
        default=10,
        metavar="N",
        help="non-deterministic runs named in the text (the rest counted; --json names them all)",
    )


def execute(args: argparse.Namespace) -> dict[str, Any]:
    store = Store.existing(args.store)
    runs = store.runs.read(columns=["run_id", "language", "verdict", "run", "distinct_outputs", "varied"])
    unstable = runs.filter(pc.greater(runs["distinct_outputs"], 1))
    summary: dict[str, Any] = {
        "store": str(args.store),
        "runs": runs.num_rows,
        "parts": len(store.runs.part_files()),
        "quarantined": store.quarantine.count(),
        "nondeterministic": unstable.num_rows,
        "nondeterministic_by_part": nondeterministic_by_part(unstable),
        "by_language": by_language(runs),
        "cpu_s_percentiles": cpu_percentiles(runs),
        "rows_by_schema_version": store.runs.rows_by_schema_version(),
        "nondeterministic_runs": nondeterministic_runs(unstable),
        "rows_by_table": rows_by_table(store),
        "quarantined_by_stage": counts_of(store.quarantine.read(columns=["stage"]), "stage"),
        "dataset_rows": dataset_rows(store),
        "build_outcomes": build_outcomes(store),
        "audit_classes": audit_classes(store),
    }
    summary["_text"] = render(summary, args.name_at_most)
    summary["_screen"] = screen(summary, args.name_at_most)
    return summary


def rows_by_table(store: Store) -> dict[str, int]:
    """Every table folder of the store with its row count (from the parts' footers: no row is read)."""
    return {
        folder.name: sum(open_part(part).metadata.num_rows for part in part_files(folder))
        for folder in store.table_folders()
    }


def nondeterministic_runs(unstable: pa.Table) -> list[dict[str, Any]]:
    """Each run whose repeats differed: its id, language and what varied (rows before schema 4 compared
    stdouts only)."""
    table = unstable.select(["run_id", "language", "distinct_outputs", "varied"])
    return [
        {
            "run_id": row["run_id"],
            "language": row["language"],
            "distinct_outputs": row["distinct_outputs"],
            "varied": list(row["varied"]) if row["varied"] is not None else ["stdout"],
        }
        for row in sorted(table.to_pylist(), key=lambda r: r["run_id"])
    ]


def counts_of(table: pa.Table, *keys: str) -> dict[str, Any]:
    """Nested counts: {key1 value: {key2 value: rows}} (one level per key), sorted."""
    counts: dict[str, Any] = {}
    for row in table.to_pylist():
        level = counts
        for key in keys[:-1]:
            level = level.setdefault(str(row[key]), {})
        last = str(row[keys[-1]])
        level[last] = level.get(last, 0) + 1
    return sort_nested(counts)


def sort_nested(counts: dict[str, Any]) -> dict[str, Any]:
    return {k: sort_nested(v) if isinstance(v, dict) else v for k, v in sorted(counts.items())}


def dataset_rows(store: Store) -> dict[str, Any]:
    """Dataset rows per subset, then per upstream source (mceval, surge_release, ...)."""
    table = dataset_table(store).read(columns=["subset", "upstream"])
    sources = pc.struct_field(table["upstream"], "source") if table.num_rows else pa.array([], pa.string())
    return counts_of(pa.table({"subset": table["subset"], "source": sources}), "subset", "source")


def build_outcomes(store: Store) -> dict[str, Any]:
    """Build outcomes per subset: how many items were kept, and how many were dropped for each reason."""
    table = outcome_table(store).read(columns=["subset", "status", "reason"])
    why = [
        "kept" if status == "kept" else f"dropped: {reason or 'no reason given'}"
        for status, reason in zip(table["status"].to_pylist(), table["reason"].to_pylist(), strict=True)
    ]
    return counts_of(
        pa.table({"subset": table["subset"], "why": pa.array(why, pa.string())}), "subset", "why"
    )


def audit_classes(store: Store) -> dict[str, Any]:
    """Audit verdicts per subset and class (agrees, differs, not run, ...)."""
    table = store.table("audit", AuditRow, "audit_id").read(columns=["subset", "audit_class"])
    return counts_of(table, "subset", "audit_class")


def by_language(runs: pa.Table) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    grouped = runs.group_by(["language", "verdict"]).aggregate([("verdict", "count")])
    for row in grouped.to_pylist():
        counts.setdefault(row["language"], {})[row["verdict"]] = row["verdict_count"]
    return dict(sorted(counts.items()))


def nondeterministic_by_part(unstable: pa.Table) -> dict[str, int]:
    """How many non-deterministic runs saw each part vary between repeats (stdout, stderr, exit_code,
    signal, verdict). Rows before schema 4 have no ``varied``: they compared stdouts only."""
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


def render(summary: dict[str, Any], name_at_most: int) -> str:
    lines = [
        f"{summary['runs']} runs in {summary['parts']} parts at {summary['store']}"
        f" ({summary['quarantined']} quarantined records,"
        f" {plural(summary['nondeterministic'], 'non-deterministic run')}{parts_varied(summary)})"
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
    lines += render_unstable(summary["nondeterministic_runs"], name_at_most)
    sections = (
        ("dataset rows by subset and source", summary["dataset_rows"]),
        ("build outcomes by subset", summary["build_outcomes"]),
        ("audit classes by subset", summary["audit_classes"]),
        ("quarantined records by stage", summary["quarantined_by_stage"]),
    )
    for title, counts in sections:
        lines += render_counts(title, counts)
    tables = "  ".join(f"{name} {rows}" for name, rows in summary["rows_by_table"].items())
    lines.append(f"rows per table: {tables or 'none'}")
    return "\n".join(lines)


def render_unstable(runs: list[dict[str, Any]], name_at_most: int) -> list[str]:
    """The non-deterministic runs, one a line: id prefix (for `surge show`), language, what varied."""
    if not runs:
        return []
    lines = ["non-deterministic runs (surge show ID for one):"]
    lines += [
        f"  {run['run_id'][:RUN_ID_SHOWN_CHARS]}  {run['language']:<10}"
        f" {run['distinct_outputs']} distinct outcomes, varied: {', '.join(run['varied'])}"
        for run in runs[:name_at_most]
    ]
    if len(runs) > name_at_most:
        lines.append(f"  and {len(runs) - name_at_most} more (--json names them all)")
    return lines


def render_counts(title: str, counts: dict[str, Any]) -> list[str]:
    """A section of nested counts, a line per first key: 'ml  42  (mceval 40, surge_release 2)'."""
    if not counts:
        return []
    lines = [f"{title}:"]
    for key, inner in counts.items():
        if isinstance(inner, dict):
            parts = ", ".join(f"{k} {v}" for k, v in inner.items())
            lines.append(f"  {key:<10}{sum(inner.values()):>8}  ({parts})")
        else:
            lines.append(f"  {key:<10}{inner:>8}")
    return lines


def parts_varied(summary: dict[str, Any]) -> str:
    """': 3 stdout, 1 verdict' (what varied between repeats), or nothing."""
    parts = summary["nondeterministic_by_part"]
    return (": " + ", ".join(f"{count} {part}" for part, count in parts.items())) if parts else ""


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def screen(summary: dict[str, Any], name_at_most: int) -> list[str | Table]:
    """The same sections as ``render``, as tables for a terminal."""
    text = render(summary, name_at_most).splitlines()
    blocks: list[str | Table] = [text[0]]
    verdicts = sorted({v for counts in summary["by_language"].values() for v in counts})
    if verdicts:
        rows = [(lang, *(c.get(v, 0) for v in verdicts)) for lang, c in summary["by_language"].items()]
        blocks.append(Table(("language", *verdicts), rows, title="runs by language and verdict"))
    old = old_run_id_rule_rows(summary["rows_by_schema_version"])
    if old:
        blocks.append(old_rule_note(old))
    if summary["cpu_s_percentiles"]:
        figures = summary["cpu_s_percentiles"]
        blocks.append(
            Table(
                tuple(figures),
                [[f"{v:.3f} s" for v in figures.values()]],
                "run CPU time",
                range(len(figures)),
            )
        )
    if runs := summary["nondeterministic_runs"]:
        rows = [
            (r["run_id"][:RUN_ID_SHOWN_CHARS], r["language"], r["distinct_outputs"], ", ".join(r["varied"]))
            for r in runs[:name_at_most]
        ]
        more = (
            [f"and {len(runs) - name_at_most} more (--json names them all)"]
            if len(runs) > name_at_most
            else []
        )
        columns = ("run (surge show ID)", "language", "distinct outcomes", "varied")
        blocks.append(Table(columns, rows, "non-deterministic runs", (2,), more))
    blocks += [
        counts_table(title, summary[key])
        for title, key in (
            ("dataset rows by subset and source", "dataset_rows"),
            ("build outcomes by subset", "build_outcomes"),
            ("audit classes by subset", "audit_classes"),
            ("quarantined records by stage", "quarantined_by_stage"),
        )
        if summary[key]
    ]
    rows_by_table = summary["rows_by_table"]
    blocks.append(
        Table(("table", "rows"), list(rows_by_table.items()), "rows per table") if rows_by_table else text[-1]
    )
    return blocks


def counts_table(title: str, counts: dict[str, Any]) -> Table:
    """Nested counts as a table: a row per first key, its total, and what it is made of."""
    rows = [
        (key, sum(inner.values()), ", ".join(f"{k} {v}" for k, v in inner.items()))
        if isinstance(inner, dict)
        else (key, inner, "")
        for key, inner in counts.items()
    ]
    return Table(("", "rows", "of which"), rows, title, figures=(1,))
