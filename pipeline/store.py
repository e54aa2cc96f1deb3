"""The Parquet store: one folder per table, append-only part files, crash-safe, resumable.

Layout::

    <root>/runs/part-20261121T101500Z-4242-0001.parquet
    <root>/runs/part-batch-<id of its runs>.parquet (a batch's finished rows, at most every 30 s: written
                                                    under the store's write lock, each holds only runs
                                                    not stored yet, so no row is ever stored twice)
    <root>/quarantine/part-....parquet
    <root>/manifest/part-plan-<plan id>.parquet    (a plan's run requests, one row group per batch)

Each part is written under a hidden temporary name and renamed into place, so a reader (pyarrow,
DuckDB, polars, pandas) never sees half a file, and an interrupted run leaves every completed part
readable. Resuming is a scan of one id column: ``existing_ids()``. How one part is written and read, and
what a full disk, a read-only folder or a corrupt part becomes, is ``pipeline.parts``; a corrupt part is
set aside into ``<table>/.corrupt/`` with a quarantine record by ``Store.repair``.

The manifest is how work reaches the orchestrator by reference: planning writes every pending
``RunRequest`` once, with its content-addressed batch id; a flow receives the store path and a plan id,
a task the plan id and a batch id, and reads its batch's row group from here. Nothing that grows with a
program passes through Prefect's API.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeGuard, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import BaseModel

from pipeline.errors import StoreError
from pipeline.part_ids import PartIds, indexed
from pipeline.parts import (
    CorruptPart,
    StoreWriteError,
    disk_errors,
    move_aside,
    new_part_name,
    open_part,
    read_error,
    verify_part,
    write_part,
)
from pipeline.records import RUN_ID_RULE, Frozen, QuarantinedRecord, RunRequest, RunResult, content_id
from pipeline.schema import arrow_schema, from_row, to_row

if TYPE_CHECKING:  # pyarrow.dataset loads only for parts of older schemas
    import pyarrow.dataset as ds

Record = TypeVar("Record", bound=BaseModel)
# A read's row filter: each column equals the value, or is one of the values of a list, tuple or set.
Where = Mapping[str, object]

__all__ = ["CorruptPart", "StoreError", "StoreWriteError", "write_part"]  # raised or used by callers

COMPACTION_JOURNAL = ".compaction.json"
# 1: run ids of program, setting and profile only. 2: run ids hash limits, repeats, backend and toolchain
# identity too (pipeline.records.RUN_ID_RULE); rows of version-1 parts stay readable but their run ids are
# never matched again. 3: runs store their label protocol and compute the label from the phases;
# version-1 and 2 rows stored the label itself and read back with the protocol that composes it.
# 4: runs say what varied between repeats (``varied``, judged on the whole composed label and how each
# repeat ended) and keep output that is not valid UTF-8 as bytes; older rows read back with no bytes and,
# where they counted several distinct stdouts, ``varied = ("stdout",)``.
# 5: runs keep the run phase of each repeat whose outcome differs from the first's (``other_runs``), so a
# label judged on less than the raw streams (a self-check's verdict) is judged on every repeat; older rows
# read back with none.
# 6: a phase says the wall time its runner spent beyond the phase's own on a compiler's seed or warm server
# (``PhaseResult.setup_wall_s``); older rows read back with none (null).
SCHEMA_VERSION = "6"
RUN_ID_RULE_OF_SCHEMA = {"1": 1, "2": 2, "3": 2, "4": 2, "5": 2, "6": 2}


def old_run_id_rule_rows(rows_by_schema_version: dict[str, int]) -> int:
    """How many rows carry run ids of an older rule than today's: no new run id matches them."""
    return sum(
        rows
        for version, rows in rows_by_schema_version.items()
        if RUN_ID_RULE_OF_SCHEMA.get(version) != RUN_ID_RULE
    )


class Table(Generic[Record]):
    """One append-only table of records of a single model, keyed by a content id."""

    def __init__(self, folder: Path, model: type[Record], id_field: str, rows_per_part: int = 4096) -> None:
        self.folder = folder
        self.model = model
        self.id_field = id_field
        self.schema = arrow_schema(model).with_metadata(
            {"surge.model": model.__name__, "surge.schema_version": SCHEMA_VERSION}
        )
        self.rows_per_part = rows_per_part
        self._buffer: list[dict] = []
        self.parts_written: list[Path] = []

    # -- writing -----------------------------------------------------------------------------

    def append(self, records: Iterable[Record]) -> None:
        for record in records:
            self._buffer.append(to_row(record))
            if len(self._buffer) >= self.rows_per_part:
                self.flush()

    def append_new(self, records: Iterable[Record]) -> int:
        """Append the records whose id the table does not hold yet (a rerun stores nothing twice)."""
        fresh: dict[str, Record] = {}
        for record in records:
            fresh.setdefault(getattr(record, self.id_field), record)
        for known in self.ids_among(fresh):
            fresh.pop(known, None)
        self.append(fresh.values())
        self.flush()
        return len(fresh)

    def flush(self, name: str | None = None) -> Path | None:
        """Write buffered rows as one part file (atomically). Returns its path, if any rows were buffered.

        ``name``: a fixed part name (``part-<something>.parquet``); writing it again replaces it whole.
        """
        if not self._buffer:
            return None
        table = pa.Table.from_pylist(self._buffer, schema=self.schema)
        final = write_part(self.folder, table, name)
        self._buffer.clear()
        self.parts_written.append(final)
        return final

    def __enter__(self) -> Table[Record]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()  # also on KeyboardInterrupt: every finished row is kept

    # -- reading -----------------------------------------------------------------------------

    def part_files(self) -> list[Path]:
        return part_files(self.folder)

    def dataset(self, parts: list[Path] | None = None) -> ds.Dataset:
        import pyarrow.dataset as ds

        parts = self.part_files() if parts is None else parts
        return ds.dataset([str(p) for p in parts], schema=self.schema, format="parquet")

    def read(self, columns: list[str] | None = None, where: Where | None = None) -> pa.Table:
        """The table's rows matching ``where`` (all without), with ``columns`` (all without).

        Parts written under today's schema are read directly, part by part; older ones through a dataset
        with today's schema, which fills the columns they lack with nulls. A read by id opens only the
        parts that hold one of the ids (``parts_holding``)."""
        if where and self.id_field in where:
            parts = self.parts_holding(where[self.id_field])
        else:
            parts = self.part_files()
        if not parts:
            return self.schema.empty_table() if columns is None else self.schema.empty_table().select(columns)
        files = [open_part(part) for part in parts]
        if all(file.schema_arrow.equals(self.schema) for file in files):
            return read_parts(parts, files, columns, where or {})
        try:
            return self.dataset(parts).to_table(filter=expression_of(where or {}), columns=columns)
        except (pa.ArrowException, OSError) as error:
            for part in parts:  # which part: a dataset's error need not name it
                verify_part(part)
            raise StoreError(
                f"cannot read table {self.folder}: {error}", hint="run `surge store check`"
            ) from error

    def parts_holding(self, wanted: object) -> list[Path]:
        """The parts that hold one of the ``wanted`` ids (one id or a collection), from the table's id
        index (``pipeline.part_ids``). An audit reads each batch's runs back as it ends: opening every
        part for it grew with the store, 0.2-0.3 s a batch at 57 parts, one core idle while the flow's
        thread did it."""
        ids = {str(id_) for id_ in wanted} if is_value_list(wanted) else {str(wanted)}  # ids are text
        with self.id_index() as index:
            return [self.folder / name for name in index.holding(ids)]

    def existing_ids(self) -> set[str]:
        with self.id_index() as index:
            return set(index.holders)

    def ids_among(self, ids: Iterable[str]) -> set[str]:
        """Which of ``ids`` the table holds (from its id index, ``pipeline.part_ids``)."""
        wanted = set(ids)
        if not wanted:
            return set()
        with self.id_index() as index:
            return index.among(wanted)

    def id_index(self) -> AbstractContextManager[PartIds]:
        """The table's id index, up to date with its parts, held for one question."""
        return indexed(self.folder, self.id_field, listed_parts)

    def records(self, where: Where | None = None) -> Iterator[Record]:
        for row in self.read(where=where).to_pylist():
            yield from_row(self.model, row)

    def count(self) -> int:
        return sum(open_part(p).metadata.num_rows for p in self.part_files())

    def rows_by_schema_version(self) -> dict[str, int]:
        """Rows per ``surge.schema_version`` of the parts that hold them (old parts stay readable)."""
        counts: dict[str, int] = {}
        for part in self.part_files():
            meta = open_part(part).metadata
            version = schema_version_in(meta.metadata)
            counts[version] = counts.get(version, 0) + meta.num_rows
        return counts

    def compact(self) -> Path | None:
        self.flush()
        return compact_parts(self.folder)


def read_parts(
    parts: list[Path], files: list[pq.ParquetFile], columns: list[str] | None, where: Where
) -> pa.Table:
    """Rows of parts that share one schema, filtered part by part (one part's rows in memory at a time)."""
    needed = None if columns is None else list(dict.fromkeys([*columns, *where]))
    tables = []
    for part, file in zip(parts, files, strict=True):
        try:
            table = file.read(columns=needed)
        except Exception as error:  # noqa: BLE001 - sorted by read_error: corrupt or I/O
            raise read_error(part, error) from error
        tables.append(table.filter(row_mask(table, where)) if where else table)
    rows = pa.concat_tables(tables)
    return rows if columns is None else rows.select(columns)


def row_mask(table: pa.Table, where: Where) -> pa.ChunkedArray:
    """Which rows match every condition of ``where`` (a null matches nothing, as in a dataset filter)."""
    mask = None
    for column, wanted in where.items():
        values = table.column(column)
        if is_value_list(wanted):
            hit = pc.is_in(values, value_set=pa.array(list(wanted), type=values.type))
        else:
            hit = pc.equal(values, pa.scalar(wanted, type=values.type))
        mask = hit if mask is None else pc.and_(mask, hit)
    return mask


def expression_of(where: Where) -> pc.Expression | None:
    """``where`` as a dataset filter (for parts of older schemas)."""
    expression = None
    for column, wanted in where.items():
        field = pc.field(column)
        condition = field.isin(list(wanted)) if is_value_list(wanted) else field == wanted
        expression = condition if expression is None else expression & condition
    return expression


def is_value_list(wanted: object) -> TypeGuard[Collection[object]]:
    return isinstance(wanted, Collection) and not isinstance(wanted, (str, bytes))


def part_files(folder: Path) -> list[Path]:
    """A table's complete parts, minus any a finished-but-unfinalised compaction has replaced, in name
    order (``listed_parts``)."""
    return [folder / name for name in sorted(listed_parts(folder))]


def listed_parts(folder: Path) -> dict[str, int]:
    """A table's complete parts as name -> inode, minus any a finished-but-unfinalised compaction has
    replaced. One directory read, no stat: a fed audit lists its runs table about four times a batch, and
    the inode (from the directory entry) is what tells a part replaced under its name (``part_ids``)."""
    try:
        with os.scandir(folder) as entries:
            listing = {e.name: e.inode() for e in entries if is_part_name(e.name)}
    except (FileNotFoundError, NotADirectoryError):
        return {}
    for name in replaced_by_compaction(folder) or ():
        listing.pop(name, None)
    return listing


def is_part_name(name: str) -> bool:
    return name.startswith("part-") and name.endswith(".parquet")


def replaced_by_compaction(folder: Path) -> set[str] | None:
    """The parts a journalled compaction replaces: None without a journal, empty if its merged part
    never landed (the old parts are still the table)."""
    journal = folder / COMPACTION_JOURNAL
    if not journal.exists():
        return None
    plan = json.loads(journal.read_text())
    return set(plan["replaces"]) if (folder / plan["merged"]).exists() else set()


def compact_parts(folder: Path) -> Path | None:
    """Merge a table's parts into one per schema version (the last merged part, or None), safely under
    interruption at any point.

    Parts of different schema versions have different columns (version 3 added ``protocol``): merging
    them would drop a column or fill a required one with nulls, so each version is merged on its own.
    A journal naming the merged part and the parts it replaces is written before the merged part is
    renamed into place; readers honour it (``part_files``), and the next compaction or check finishes
    the deletions. So a crash never shows a row twice, nor loses one.
    """
    finish_compaction(folder)
    by_version: dict[str, list[Path]] = {}
    for part in part_files(folder):
        by_version.setdefault(schema_version_of(part), []).append(part)
    merged = None
    for old_parts in by_version.values():
        if len(old_parts) >= 2:
            merged = merge_parts(folder, old_parts)
    return merged


def schema_version_of(part: Path) -> str:
    return schema_version_in(open_part(part).schema_arrow.metadata)


def schema_version_in(metadata: dict[bytes, bytes] | None) -> str:
    """The ``surge.schema_version`` a part's key-value metadata records ('?' for none)."""
    return (metadata or {}).get(b"surge.schema_version", b"?").decode()


def merge_parts(folder: Path, old_parts: list[Path]) -> Path:
    """One compaction: parts of one schema version into one, journalled (see ``compact_parts``)."""
    import pyarrow.dataset as ds

    try:
        merged_rows = ds.dataset([str(p) for p in old_parts], format="parquet").to_table()
    except (pa.ArrowException, OSError) as error:
        for part in old_parts:  # which part: a dataset's error need not name it
            verify_part(part)
        raise StoreError(f"cannot read table {folder}: {error}", hint="run `surge store check`") from error
    metadata = open_part(old_parts[0]).schema_arrow.metadata
    name = new_part_name()
    write_journal(folder, {"merged": name, "replaces": [p.name for p in old_parts]})
    try:
        merged = write_part(folder, merged_rows.replace_schema_metadata(metadata), name)
    finally:
        finish_compaction(folder)  # landed: drop the old parts; failed (a full disk): forget the journal
    return merged


def write_journal(folder: Path, plan: dict[str, object]) -> None:
    """The compaction journal, atomically (a failed write leaves no pending file behind)."""
    pending = folder / f"{COMPACTION_JOURNAL}.partial"
    with disk_errors(folder):
        try:
            pending.write_text(json.dumps(plan))
            os.replace(pending, folder / COMPACTION_JOURNAL)
        except BaseException:
            pending.unlink(missing_ok=True)
            raise


def finish_compaction(folder: Path) -> None:
    """Apply a compaction journal: drop replaced parts if the merged one landed, else forget it."""
    replaced = replaced_by_compaction(folder)
    if replaced is None:
        return
    with disk_errors(folder):  # a read-only store: one line, not a traceback
        for name in replaced:
            (folder / name).unlink(missing_ok=True)
        (folder / COMPACTION_JOURNAL).unlink()


# A plan part's metadata: its batch ids, in the order of its row groups (one row group per batch).
PLAN_BATCHES_KEY = b"surge.plan_batches"


def planned_batch_ids(part: pq.ParquetFile) -> list[str]:
    return json.loads((part.schema_arrow.metadata or {}).get(PLAN_BATCHES_KEY, b"[]"))


class PlannedRun(Frozen):
    """One pending run request in the manifest, with the batch that will execute it."""

    plan_id: str
    batch_id: str
    request: RunRequest


def batch_id_for(requests: list[RunRequest]) -> str:
    """Content-addressed: the same pending runs always form the same batch."""
    return content_id("batch", [request.run_id for request in requests])


class Store:
    """The ground-truth store: a folder of tables."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(
                f"the store path {self.root} is a file, not a folder",
                hint="pass --store with a folder (created if missing), e.g. --store .surge/store",
            )
        self.runs: Table[RunResult] = Table(self.root / "runs", RunResult, "run_id")
        self.quarantine: Table[QuarantinedRecord] = Table(
            self.root / "quarantine", QuarantinedRecord, "quarantine_id"
        )
        self.manifest: Table[PlannedRun] = Table(self.root / "manifest", PlannedRun, "plan_id")

    @classmethod
    def existing(cls, root: Path | str) -> Store:
        """The store at ``root``, for commands that only read it: a path holding nothing is an error
        (a typo in --store must not read as "0 runs")."""
        store = cls(root)
        if not store.root.is_dir() or not store.holds_a_table():
            held = " (the folder holds no table: runs/, quarantine/, ...)" if store.root.is_dir() else ""
            raise StoreError(
                f"no store at {store.root}{held}",
                hint="give the store folder that `surge run` or `surge build` wrote (default: .surge/store)",
            )
        return store

    def holds_a_table(self) -> bool:
        """One of the store's own tables, or any folder of part files (an empty folder is no store)."""
        ours = {self.runs.folder.name, self.quarantine.folder.name, self.manifest.folder.name}
        return any(
            folder.name in ours or next(folder.glob("part-*.parquet"), None) is not None
            for folder in self.table_folders()
        )

    # -- parts that do not read ----------------------------------------------------------------

    def corrupt_parts(self) -> list[CorruptPart]:
        """Every part of every table that does not decode (each row group read: slow on a big store)."""
        corrupt = []
        for folder in self.table_folders():
            for part in part_files(folder):
                try:
                    verify_part(part)
                except CorruptPart as error:
                    corrupt.append(error)
        return corrupt

    def repair(self) -> list[QuarantinedRecord]:
        """Move every corrupt part aside (``<table>/.corrupt/``), each with a quarantine record; every
        other part stays. The runs of a moved part run again on the next ``surge run``."""
        records = [self.set_aside(error) for error in self.corrupt_parts()]
        self.quarantine.append_new(records)
        return records

    def set_aside(self, corrupt: CorruptPart) -> QuarantinedRecord:
        moved = move_aside(corrupt.part)
        return QuarantinedRecord(
            stage="store",
            source=corrupt.part.parent.name,
            location=str(moved.relative_to(self.root)),
            reason=f"corrupt part {corrupt.part.name} moved aside: {corrupt.detail}",
        )

    # -- the manifest: work by reference -------------------------------------------------------

    def plan(self, batches: list[list[RunRequest]]) -> str:
        """Write the batches' requests to the manifest (once per plan) and return the plan's id.

        A plan is one part, ``part-plan-<plan id>.parquet``, with one row group per batch and the batch ids
        in row-group order in its metadata: a batch reads its own rows and nothing else, however many
        plans the store has seen (one filtered read of every plan's part grew with the store's history)."""
        batch_ids = [batch_id_for(batch) for batch in batches]
        plan_id = content_id("plan", batch_ids)
        if self.plan_part(plan_id).exists():
            return plan_id  # planned before (a rerun of the same job): its requests are already here
        rows = [
            to_row(PlannedRun(plan_id=plan_id, batch_id=batch_id, request=request))
            for batch_id, batch in zip(batch_ids, batches, strict=True)
            for request in batch
        ]
        schema = self.manifest.schema.with_metadata(
            {**self.manifest.schema.metadata, PLAN_BATCHES_KEY: json.dumps(batch_ids).encode()}
        )
        table = pa.Table.from_pylist(rows, schema=schema)
        write_part(self.manifest.folder, table, self.plan_part(plan_id).name, [len(b) for b in batches])
        return plan_id

    def plan_part(self, plan_id: str) -> Path:
        return self.manifest.folder / f"part-plan-{plan_id}.parquet"

    def plan_batches(self, plan_id: str) -> dict[str, int]:
        """A plan's batch ids with their run counts, in the order they were planned (the order to start
        them in: ``pipeline.batches.start_order``, the longest first)."""
        part = self.planned_part(plan_id)
        sizes = {
            batch_id: part.metadata.row_group(group).num_rows
            for group, batch_id in enumerate(planned_batch_ids(part))
        }
        return sizes

    def batch_requests(self, plan_id: str, batch_id: str) -> list[RunRequest]:
        """A batch's requests, each once: its row group of the plan's part (none for an unknown batch)."""
        part = self.planned_part(plan_id)
        order = planned_batch_ids(part)
        if batch_id not in order:
            return []
        requests: dict[str, RunRequest] = {}
        for row in part.read_row_group(order.index(batch_id)).to_pylist():
            request = from_row(PlannedRun, row).request
            requests.setdefault(request.run_id, request)
        return list(requests.values())

    def planned_part(self, plan_id: str) -> pq.ParquetFile:
        try:
            return pq.ParquetFile(self.plan_part(plan_id))
        except FileNotFoundError:
            raise StoreError(
                f"plan {plan_id} is not in the manifest of {self.root}",
                hint="the workers must see the same store as the command: put it on a shared path "
                "(docs/scale-out.md)",
            ) from None
        except (pa.ArrowInvalid, OSError) as error:
            raise StoreError(f"cannot read plan {plan_id}: {error}", hint="run `surge store check`") from None

    def stored_run_ids(self, run_ids: list[str]) -> set[str]:
        return self.runs.ids_among(run_ids)

    def table(self, name: str, model: type[Record], id_field: str) -> Table[Record]:
        return Table(self.root / name, model, id_field)

    def table_folders(self) -> list[Path]:
        """Every table in the store (runs, quarantine, items, pulls, audit, ...), model or not."""
        if not self.root.exists():
            return []
        return sorted(folder for folder in self.root.iterdir() if folder.is_dir())
