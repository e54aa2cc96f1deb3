"""surge stats: the stats stage (pipeline/stages/stats.py) from its flags, and what the store holds as text,
one short section per table."""

from __future__ import annotations

import argparse

from pipeline.bounds import MAX_NAMED_RUNS
from pipeline.commands.common import add_store_argument, bounded_int, old_rule_note
from pipeline.commands.display import Table
from pipeline.stages.options import StatsOptions
from pipeline.stages.stats import NestedCounts, NondeterministicRun, StatsSummary, stats
from pipeline.store import old_run_id_rule_rows

HELP = (
    "summarise every table of the store: runs by language and verdict (non-deterministic runs named, with "
    "what varied), dataset rows per subset and source, build outcomes by reason, audit classes, quarantine"
)
EXAMPLE = "surge stats --store .surge/store --json"
RUN_ID_SHOWN_CHARS = 12  # enough for `surge show` to find the run again

STAGE = stats  # the stage this command calls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_argument(parser)
    parser.add_argument(
        "--name-at-most",
        type=bounded_int(0, MAX_NAMED_RUNS),
        default=10,
        metavar="N",
        help="non-deterministic runs named in the text (the rest counted; --json names them all)",
    )


def options_of(args: argparse.Namespace) -> StatsOptions:
    return StatsOptions(store=args.store, name_at_most=args.name_at_most)


def render(summary: StatsSummary, options: StatsOptions) -> str:
    name_at_most = options.name_at_most
    lines = [
        f"{summary.runs} runs in {summary.parts} parts at {summary.store}"
        f" ({summary.quarantined} quarantined records,"
        f" {plural(summary.nondeterministic, 'non-deterministic run')}{parts_varied(summary)})"
    ]
    verdicts = sorted({v for counts in summary.by_language.values() for v in counts})
    if verdicts:
        lines.append(f"{'language':<12}" + "".join(f"{v:>17}" for v in verdicts))
        for language, counts in summary.by_language.items():
            lines.append(f"{language:<12}" + "".join(f"{counts.get(v, 0):>17}" for v in verdicts))
    old = old_run_id_rule_rows(summary.rows_by_schema_version)
    if old:
        lines.append(old_rule_note(old))
    if summary.cpu_s_percentiles:
        figures = "  ".join(f"{k}={v:.3f}s" for k, v in summary.cpu_s_percentiles.items())
        lines.append(f"run CPU time  {figures}")
    lines += render_unstable(summary.nondeterministic_runs, name_at_most)
    for title, section in sections(summary):
        lines += render_counts(title, section)
    tables = "  ".join(f"{name} {rows}" for name, rows in summary.rows_by_table.items())
    lines.append(f"rows per table: {tables or 'none'}")
    return "\n".join(lines)


def sections(summary: StatsSummary) -> list[tuple[str, NestedCounts | dict[str, int]]]:
    """The sections of counts, titled, in the order they are shown."""
    return [
        ("dataset rows by subset and source", summary.dataset_rows),
        ("build outcomes by subset", summary.build_outcomes),
        ("audit classes by subset", summary.audit_classes),
        ("quarantined records by stage", summary.quarantined_by_stage),
    ]


def render_unstable(runs: list[NondeterministicRun], name_at_most: int) -> list[str]:
    """The non-deterministic runs, one a line: id prefix (for `surge show`), language, what varied."""
    if not runs:
        return []
    lines = ["non-deterministic runs (surge show ID for one):"]
    lines += [
        f"  {run.run_id[:RUN_ID_SHOWN_CHARS]}  {run.language:<10}"
        f" {run.distinct_outputs} distinct outcomes, varied: {', '.join(run.varied)}"
        for run in runs[:name_at_most]
    ]
    if len(runs) > name_at_most:
        lines.append(f"  and {len(runs) - name_at_most} more (--json names them all)")
    return lines


def render_counts(title: str, counts: NestedCounts | dict[str, int]) -> list[str]:
    """A section of counts, a line per first key: 'ml  42  (mceval 40, surge_release 2)'."""
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


def parts_varied(summary: StatsSummary) -> str:
    """': 3 stdout, 1 verdict' (what varied between repeats), or nothing."""
    parts = summary.nondeterministic_by_part
    return (": " + ", ".join(f"{count} {part}" for part, count in parts.items())) if parts else ""


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def screen(summary: StatsSummary, options: StatsOptions) -> list[str | Table]:
    """The same sections as ``render``, as tables for a terminal."""
    name_at_most = options.name_at_most
    text = render(summary, options).splitlines()
    blocks: list[str | Table] = [text[0]]
    verdicts = sorted({v for counts in summary.by_language.values() for v in counts})
    if verdicts:
        rows = [(lang, *(c.get(v, 0) for v in verdicts)) for lang, c in summary.by_language.items()]
        blocks.append(Table(("language", *verdicts), rows, title="runs by language and verdict"))
    old = old_run_id_rule_rows(summary.rows_by_schema_version)
    if old:
        blocks.append(old_rule_note(old))
    if summary.cpu_s_percentiles:
        figures = summary.cpu_s_percentiles
        blocks.append(
            Table(
                tuple(figures),
                [[f"{v:.3f} s" for v in figures.values()]],
                "run CPU time",
                range(len(figures)),
            )
        )
    if runs := summary.nondeterministic_runs:
        rows = [
            (r.run_id[:RUN_ID_SHOWN_CHARS], r.language, r.distinct_outputs, ", ".join(r.varied))
            for r in runs[:name_at_most]
        ]
        more = (
            [f"and {len(runs) - name_at_most} more (--json names them all)"]
            if len(runs) > name_at_most
            else []
        )
        columns = ("run (surge show ID)", "language", "distinct outcomes", "varied")
        blocks.append(Table(columns, rows, "non-deterministic runs", (2,), more))
    blocks += [counts_table(title, counts) for title, counts in sections(summary) if counts]
    rows_by_table = summary.rows_by_table
    blocks.append(
        Table(("table", "rows"), list(rows_by_table.items()), "rows per table") if rows_by_table else text[-1]
    )
    return blocks


def counts_table(title: str, counts: NestedCounts | dict[str, int]) -> Table:
    """Nested counts as a table: a row per first key, its total, and what it is made of."""
    rows = [
        (key, sum(inner.values()), ", ".join(f"{k} {v}" for k, v in inner.items()))
        if isinstance(inner, dict)
        else (key, inner, "")
        for key, inner in counts.items()
    ]
    return Table(("", "rows", "of which"), rows, title, figures=(1,))
