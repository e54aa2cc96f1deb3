"""The stats stage: what the store holds, one short section per table — runs by language and verdict (the
non-deterministic ones named), dataset rows per subset and source, build outcomes by reason, audit
classes, quarantined records by stage, and the row count of every table."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, Field

from pipeline.audit.rows import AuditRow
from pipeline.build.records import outcome_table
from pipeline.dataset import dataset_table
from pipeline.observe import Observer, tell
from pipeline.parts import open_part
from pipeline.stage_results import StageResult
from pipeline.stages.options import StatsOptions
from pipeline.store import Store, part_files

PERCENTILES = (0.5, 0.9, 0.99)

# {first key: {second key: rows}}: dataset rows by subset and source, build outcomes by subset and why,
# audit classes by subset.
NestedCounts = dict[str, dict[str, int]]


class NondeterministicRun(BaseModel):
    """A run whose repeats differed, and in what (rows before schema 4 compared stdouts only)."""

    run_id: str
    language: str
    distinct_outputs: int
    varied: list[str]


class StatsSummary(StageResult):
    """What `surge stats` finds in a store."""

    store: str
    runs: int
    parts: int
    quarantined: int
    nondeterministic: int
    nondeterministic_by_part: dict[str, int] = Field(description="runs that saw each part vary")
    by_language: NestedCounts = Field(description="runs by language, then verdict")
    cpu_s_percentiles: dict[str, float] = Field(description="run-phase CPU seconds: p50, p90, p99, max")
    rows_by_schema_version: dict[str, int]
    nondeterministic_runs: list[NondeterministicRun]
    rows_by_table: dict[str, int]
    quarantined_by_stage: dict[str, int]
    dataset_rows: NestedCounts
    build_outcomes: NestedCounts
    audit_classes: NestedCounts


def stats(options: StatsOptions, *, observer: Observer | None = None) -> StatsSummary:
    """Summarise every table of the store (`surge stats`)."""
    store = Store.existing(options.store)
    runs = store.runs.read(columns=["run_id", "language", "verdict", "run", "distinct_outputs", "varied"])
    unstable = runs.filter(pc.greater(runs["distinct_outputs"], 1))
    tell(observer, "stats", "read", f"{runs.num_rows} runs")
    return StatsSummary(
        store=str(options.store),
        runs=runs.num_rows,
        parts=len(store.runs.part_files()),
        quarantined=store.quarantine.count(),
        nondeterministic=unstable.num_rows,
        nondeterministic_by_part=nondeterministic_by_part(unstable),
        by_language=by_language(runs),
        cpu_s_percentiles=cpu_percentiles(runs),
        rows_by_schema_version=store.runs.rows_by_schema_version(),
        nondeterministic_runs=nondeterministic_runs(unstable),
        rows_by_table=rows_by_table(store),
        quarantined_by_stage=counts_of(store.quarantine.read(columns=["stage"])["stage"].to_pylist()),
        dataset_rows=dataset_rows(store),
        build_outcomes=build_outcomes(store),
        audit_classes=audit_classes(store),
    )


def rows_by_table(store: Store) -> dict[str, int]:
    """Every table folder of the store with its row count (from the parts' footers: no row is read)."""
    return {
        folder.name: sum(open_part(part).metadata.num_rows for part in part_files(folder))
        for folder in store.table_folders()
    }


def nondeterministic_runs(unstable: pa.Table) -> list[NondeterministicRun]:
    """Each run whose repeats differed: its id, language and what varied."""
    table = unstable.select(["run_id", "language", "distinct_outputs", "varied"])
    return [
        NondeterministicRun(
            run_id=row["run_id"],
            language=row["language"],
            distinct_outputs=row["distinct_outputs"],
            varied=list(row["varied"]) if row["varied"] is not None else ["stdout"],
        )
        for row in sorted(table.to_pylist(), key=lambda r: r["run_id"])
    ]


def counts_of(values: list[object]) -> dict[str, int]:
    """Rows per value, sorted by value."""
    return dict(sorted(Counter(str(value) for value in values).items()))


def nested_counts(outer: list[object], inner: list[object]) -> NestedCounts:
    """Rows per (outer, inner) pair as {outer: {inner: rows}}, both levels sorted."""
    counts: dict[str, Counter[str]] = {}
    for first, second in zip(outer, inner, strict=True):
        counts.setdefault(str(first), Counter())[str(second)] += 1
    return {key: dict(sorted(counts[key].items())) for key in sorted(counts)}


def dataset_rows(store: Store) -> NestedCounts:
    """Dataset rows per subset, then per upstream source (mceval, surge_release, ...)."""
    table = dataset_table(store).read(columns=["subset", "upstream"])
    sources = pc.struct_field(table["upstream"], "source") if table.num_rows else pa.array([], pa.string())
    return nested_counts(table["subset"].to_pylist(), sources.to_pylist())


def build_outcomes(store: Store) -> NestedCounts:
    """Build outcomes per subset: how many items were kept, and how many were dropped for each reason."""
    table = outcome_table(store).read(columns=["subset", "status", "reason"])
    why = [
        "kept" if status == "kept" else f"dropped: {reason or 'no reason given'}"
        for status, reason in zip(table["status"].to_pylist(), table["reason"].to_pylist(), strict=True)
    ]
    return nested_counts(table["subset"].to_pylist(), list(why))


def audit_classes(store: Store) -> NestedCounts:
    """Audit verdicts per subset and class (agrees, differs, not run, ...)."""
    table = store.table("audit", AuditRow, "audit_id").read(columns=["subset", "audit_class"])
    return nested_counts(table["subset"].to_pylist(), table["audit_class"].to_pylist())


def by_language(runs: pa.Table) -> NestedCounts:
    counts: NestedCounts = {}
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
