"""Properties of the store writer: what goes in comes back equal; a write that fails leaves nothing behind.

Real Parquet files in a temporary folder; the faults are injected into the file write itself."""

from __future__ import annotations

import errno
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pipeline.parts as parts_module
from pipeline.parts import StoreWriteError, write_part
from pipeline.records import QuarantinedRecord, RunResult
from pipeline.schema import to_row
from pipeline.store import Store
from tests.factories import make_result

# Any Unicode scalar value that UTF-8 can hold (surrogates cannot be stored as UTF-8 text), NUL included.
CHARACTERS = st.characters(codec="utf-8")
HUGE_CHARS = 300_000  # beyond a Parquet data page (1 MiB) once a few rows of it share a column chunk
TEXTS = st.one_of(
    st.just(""),
    st.text(CHARACTERS, max_size=40),
    st.sampled_from(["\x00", "a\x00b", "\x00" * 10, "\U0010ffff", "\ufeff", "\r\n", " "]),
    st.builds(lambda c, n: c * n, st.text(CHARACTERS, min_size=1, max_size=3), st.integers(1000, HUGE_CHARS)),
)
FEW_EXAMPLES = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def run_results(draw: st.DrawFn) -> RunResult:
    result = make_result(draw(TEXTS), draw(TEXTS))
    assert result.run is not None
    run = result.run.model_copy(update={"stderr": draw(TEXTS), "detail": draw(TEXTS)})
    origin = draw(st.dictionaries(st.text(CHARACTERS, max_size=10), TEXTS, max_size=3))
    return result.model_copy(update={"run": run, "origin": origin})


def as_sorted_json(records: list[Any]) -> list[str]:
    """Records as canonical JSON, sorted (a dict's key order is not part of its value)."""
    return sorted(json.dumps(record.model_dump(mode="json"), sort_keys=True) for record in records)


@FEW_EXAMPLES
@given(results=st.lists(run_results(), min_size=1, max_size=12), rows_per_part=st.integers(1, 6))
def test_any_runs_written_read_back_equal(tmp_path_factory: pytest.TempPathFactory, results, rows_per_part):
    store = Store(tmp_path_factory.mktemp("store"))
    store.runs.rows_per_part = rows_per_part
    with store.runs as runs:
        runs.append(results)
    assert as_sorted_json(list(Store(store.root).runs.records())) == as_sorted_json(results)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(1000, 3000), reason=TEXTS)
def test_many_rows_span_row_groups_and_read_back_equal(tmp_path_factory, count, reason):
    store = Store(tmp_path_factory.mktemp("store"))
    records = [QuarantinedRecord(stage="t", source="s", location=str(n), reason=reason) for n in range(count)]
    store.quarantine.append(records)
    store.quarantine.flush()
    assert as_sorted_json(list(store.quarantine.records())) == as_sorted_json(records)


class FailingFile:
    """A binary file that raises ``error`` once ``after_bytes`` bytes were written (a disk filling up)."""

    def __init__(self, path: Path, after_bytes: int, error: BaseException) -> None:
        self.raw = open(path, "wb")  # noqa: SIM115 - closed by close(), as pyarrow calls it
        self.left = after_bytes
        self.error = error
        self.closed = False

    def write(self, data: bytes) -> int:
        if len(data) > self.left:
            self.raw.write(bytes(data[: self.left]))
            self.left = 0
            raise self.error
        self.left -= len(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()

    def close(self) -> None:
        self.raw.close()
        self.closed = True

    def tell(self) -> int:
        return self.raw.tell()

    def writable(self) -> bool:
        return True


ERRORS = st.sampled_from(
    [
        OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
        OSError(errno.EIO, os.strerror(errno.EIO)),
        KeyboardInterrupt(),
        RuntimeError("a bug of the caller's"),
    ]
)


def noise(seed: int) -> str:
    """~2 KB that compress poorly: the parts of a failing write span many writes of the file."""
    return "".join(hashlib.sha256(f"{seed}-{k}".encode()).hexdigest() for k in range(32))


def assert_nothing_left(folder: Path, parts_before: list[str]) -> None:
    left = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert [name for name in left if name.endswith(".partial")] == [], left
    assert [name for name in left if name.startswith("part-")] == parts_before, left


def raised_as_expected(raised: BaseException, injected: BaseException) -> bool:
    if isinstance(injected, OSError):  # ours: one StoreWriteError naming the store, with a fix
        return isinstance(raised, StoreWriteError) and bool(raised.hint)
    return type(raised) is type(injected)


@FEW_EXAMPLES
@given(after_bytes=st.integers(0, 60_000), error=ERRORS, rows=st.integers(1, 40))
def test_a_write_failing_after_any_byte_leaves_no_partial_file_and_no_part(
    tmp_path_factory: pytest.TempPathFactory, after_bytes, error, rows
):
    store = Store(tmp_path_factory.mktemp("store"))
    store.quarantine.append([QuarantinedRecord(stage="t", source="s", location="kept", reason="r")])
    before = [store.quarantine.flush().name]  # type: ignore[union-attr]
    records = [
        QuarantinedRecord(stage="t", source="s", location=str(n), reason=noise(n)) for n in range(rows)
    ]
    table = pa.Table.from_pylist([r.model_dump() for r in records], schema=store.quarantine.schema)
    real_write = parts_module.write_parquet

    def write_through_a_failing_file(path: Path, table: pa.Table, row_groups: list[int] | None) -> None:
        real_write(FailingFile(path, after_bytes, error), table, row_groups)  # type: ignore[arg-type]

    try:
        with pytest.MonkeyPatch.context() as patch:  # per example: hypothesis reuses a test's fixtures
            patch.setattr(parts_module, "write_parquet", write_through_a_failing_file)
            write_part(store.quarantine.folder, table)
    except BaseException as raised:  # noqa: BLE001 - which one is the assertion
        assert raised_as_expected(raised, error), repr(raised)
        assert_nothing_left(store.quarantine.folder, before)
        assert [r.location for r in store.quarantine.records()] == ["kept"]
    else:  # the whole file fit in after_bytes: it is a complete part
        assert len(store.quarantine.part_files()) == 2


@pytest.mark.parametrize("step", ["fsync", "replace"])
@pytest.mark.parametrize(
    "error", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()], ids=["enospc", "ctrl-c"]
)
def test_a_write_failing_at_its_fsync_or_rename_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, error: BaseException
) -> None:
    store = Store(tmp_path)
    table = pa.Table.from_pylist([to_row(make_result())], schema=store.runs.schema)

    def fail(*args: object) -> None:
        raise error

    monkeypatch.setattr(parts_module.os, step, fail)
    with pytest.raises((StoreWriteError, KeyboardInterrupt)) as raised:
        write_part(store.runs.folder, table)
    monkeypatch.undo()
    assert raised_as_expected(raised.value, error)
    assert_nothing_left(store.runs.folder, [])


def test_a_full_disk_names_the_store_its_file_system_and_the_fix(tmp_path: Path) -> None:
    error = parts_module.write_error(tmp_path / "store" / "runs", OSError(errno.ENOSPC, "No space left"))
    assert str(tmp_path / "store") in str(error) and "file system mounted at" in str(error)
    assert "free space" in error.hint and "--store" in error.hint
    # pyarrow's writer gives some errnos only in its text
    text_only = OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
    assert "no space left" in str(parts_module.write_error(tmp_path / "s" / "runs", text_only))
