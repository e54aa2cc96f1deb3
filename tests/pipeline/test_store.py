from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pipeline.store as store_module
from pipeline.cli import main
from pipeline.records import QuarantinedRecord, RunResult, Verdict
from pipeline.schema import arrow_schema
from pipeline.store import Store
from tests.factories import make_result

GOLDEN_SCHEMA = Path(__file__).parent / "golden" / "runs.schema.txt"


def test_round_trip_gives_back_equal_records(tmp_path: Path) -> None:
    results = [make_result(f"print({i})", f"{i}\n") for i in range(5)]
    store = Store(tmp_path)
    with store.runs as runs:
        runs.append(results)
    assert sorted(store.runs.records(), key=lambda r: r.run_id) == sorted(results, key=lambda r: r.run_id)


def test_schema_is_stable(tmp_path: Path) -> None:
    # A failing diff here means the on-disk format changed: bump SCHEMA_VERSION and regenerate the golden
    # file deliberately (python -c "from pipeline.schema import ...; print(arrow_schema(RunResult))").
    assert str(arrow_schema(RunResult)) + "\n" == GOLDEN_SCHEMA.read_text()
    store = Store(tmp_path)
    store.runs.append([make_result()])
    part = store.runs.flush()
    assert part is not None
    written = pq.read_schema(part)
    assert written.equals(store.runs.schema, check_metadata=False)
    assert written.metadata[b"surge.model"] == b"RunResult"


def test_resume_sees_stored_ids_and_filters_read(tmp_path: Path) -> None:
    store = Store(tmp_path)
    ok, bad = make_result("print(1)"), make_result("boom", "", Verdict.RUNTIME_ERROR)
    with store.runs as runs:
        runs.append([ok, bad])
    assert Store(tmp_path).runs.existing_ids() == {ok.run_id, bad.run_id}
    failed = list(store.runs.records(where={"verdict": "runtime_error"}))
    assert [r.run_id for r in failed] == [bad.run_id]


@pytest.mark.parametrize(
    "where",
    [
        {"verdict": "runtime_error"},
        {"verdict": ["ok", "runtime_error"], "language": "python"},
        {"label": ("0\n", "4\n", "no such label")},
        {"verdict": "timeout"},
    ],
)
def test_reading_parts_of_todays_schema_directly_matches_the_dataset_read(
    tmp_path: Path, where: dict[str, object]
) -> None:
    store = Store(tmp_path)
    verdicts = [Verdict.OK, Verdict.RUNTIME_ERROR, Verdict.OK]
    for first in (0, 3):  # two parts
        store.runs.append(
            make_result(f"print({i})", f"{i}\n", verdicts[i - first]) for i in range(first, first + 3)
        )
        store.runs.flush()
    columns = ["run_id", "verdict"]
    direct = store.runs.read(columns=columns, where=where)
    through_dataset = store.runs.dataset().to_table(filter=store_module.expression_of(where), columns=columns)
    assert direct.num_rows > 0 or where == {"verdict": "timeout"}
    assert sorted(direct.to_pylist(), key=str) == sorted(through_dataset.to_pylist(), key=str)


def test_a_read_by_id_opens_only_the_parts_holding_the_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    results = [make_result(f"print({i})", f"{i}\n") for i in range(6)]
    for result in results:  # a part per run, as an audit's batches write them
        store.runs.append([result])
        store.runs.flush()
    opened: list[Path] = []
    real_open_part = store_module.open_part
    monkeypatch.setattr(store_module, "open_part", lambda part: opened.append(part) or real_open_part(part))
    wanted = [results[1].run_id, results[4].run_id]
    read = store.runs.read(columns=["run_id"], where={"run_id": wanted, "verdict": "ok"})
    assert sorted(read["run_id"].to_pylist()) == sorted(wanted)
    assert len(opened) == 2
    assert [r.run_id for r in store.runs.records(where={"run_id": results[5].run_id})] == [results[5].run_id]
    assert store.runs.read(where={"run_id": ["no such run"]}).num_rows == 0


def test_buffer_turns_into_parts_of_bounded_size(tmp_path: Path) -> None:
    table = Store(tmp_path).runs
    table.rows_per_part = 3
    table.append(make_result(f"print({i})") for i in range(7))
    table.flush()
    assert [pq.ParquetFile(p).metadata.num_rows for p in table.part_files()] == [3, 3, 1]
    assert table.compact() is not None
    assert table.count() == 7 and len(table.part_files()) == 1


WRITER = """
import sys
from pipeline.store import Store
from tests.factories import make_result
table = Store(sys.argv[1]).runs
for i in range(100_000):
    table.append([make_result(f"print({i})", "x" * 4000)])
    if i % 10 == 9:
        table.flush()
        print(i, flush=True)
"""


def test_a_writer_killed_mid_write_leaves_every_completed_part_readable(tmp_path: Path) -> None:
    repo_root = Path(__file__).resolve().parents[2]
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path)],
        cwd=repo_root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(repo_root)},
    )
    assert writer.stdout is not None
    for _ in range(5):  # let it complete a few parts, then kill it without warning
        writer.stdout.readline()
    time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    table = Store(tmp_path).runs
    rows = table.read()
    assert rows.num_rows >= 50 and rows.num_rows % 10 == 0  # only whole parts, never half of one
    assert len(table.existing_ids()) == rows.num_rows


def test_leftover_partial_files_are_ignored_by_readers(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.runs as runs:
        runs.append([make_result()])
    (store.runs.folder / ".part-crashed.parquet.partial").write_bytes(b"PAR1 half a file")
    assert store.runs.read().num_rows == 1


def test_store_is_readable_by_duckdb(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb", reason="needs the duckdb package (pip install -e '.[dev]')")
    store = Store(tmp_path)
    with store.runs as runs:
        runs.append([make_result("print(1)"), make_result("x", "", Verdict.RUNTIME_ERROR)])
    rows = duckdb.sql(
        f"select verdict, run.verdict as run_verdict, run.cpu_user_s as cpu "
        f"from read_parquet('{tmp_path}/runs/part-*.parquet') order by verdict"
    ).fetchall()
    assert rows == [("ok", "ok", 0.01), ("runtime_error", "runtime_error", 0.01)]


def test_a_compaction_interrupted_before_its_deletions_never_shows_a_row_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Store(tmp_path).runs
    for index in range(3):
        table.append([make_result(f"print({index})")])
        table.flush()
    old_parts = table.part_files()
    # What a compaction killed after renaming its merged part, before deleting the old ones, leaves:
    monkeypatch.setattr(store_module, "finish_compaction", lambda folder: None)
    merged = store_module.compact_parts(table.folder)
    monkeypatch.undo()
    assert merged is not None and all(part.exists() for part in old_parts)
    assert table.part_files() == [merged]
    assert len([r.run_id for r in table.records()]) == len({r.run_id for r in table.records()}) == 3

    assert main(["store", "check", "--clean", "--store", str(tmp_path), "--json"]) == 0
    assert not any(part.exists() for part in old_parts) and table.count() == 3


def test_store_check_and_compact_cover_every_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path)
    quarantined = QuarantinedRecord(stage="test", source="s", location="f:1", reason="bad")
    extra = store.table("extra", QuarantinedRecord, "quarantine_id")
    for table, record in ((store.runs, make_result()), (extra, quarantined)):
        for _ in range(2):
            table.append([record])
            table.flush()
    (store.runs.folder / ".part-x.parquet.partial").write_bytes(b"half a file")
    assert main(["store", "compact", "--store", str(tmp_path), "--json"]) == 0
    compacted = json.loads(capsys.readouterr().out)
    assert set(compacted["tables"]) == {"runs", "extra"}
    assert main(["store", "check", "--store", str(tmp_path), "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)["tables"]
    leftover = [".part-x.parquet.partial"]
    assert checked["runs"] == {
        "parts": 1,
        "rows": 2,
        "unreadable": [],
        "partial_leftovers": leftover,
        "cleaned": False,
    }
    assert checked["extra"]["parts"] == 1 and checked["extra"]["rows"] == 2


def test_a_part_replaced_whole_is_read_again_for_its_ids(tmp_path: Path) -> None:
    # Each part's ids are read once per process; a part rewritten under its name (a batch run again) or
    # merged away by a compaction must not answer from what it held before.
    store = Store(tmp_path)
    first, second, third = (make_result(f"print({n})") for n in range(3))
    store.runs.append([first])
    store.runs.flush(name="part-batch-x.parquet")
    assert store.stored_run_ids([first.run_id, second.run_id]) == {first.run_id}
    store.runs.append([second])
    store.runs.flush(name="part-batch-x.parquet")
    assert store.stored_run_ids([first.run_id, second.run_id]) == {second.run_id}
    store.runs.append([third])
    store.runs.flush()
    store.runs.compact()
    assert Store(tmp_path).runs.existing_ids() == {second.run_id, third.run_id}


def test_the_executable_writes_and_reads_parts_without_importing_pandas(tmp_path: Path) -> None:
    # pyarrow's first list conversion imports pandas (0.18 CPU-s) only to ask whether the list is pandas';
    # the `surge` executable answers that probe without it, and pandas still loads when asked for.
    probe = (
        "import sys; from pipeline.schema import skip_pyarrows_pandas_probe; skip_pyarrows_pandas_probe(); "
        "from pipeline.store import Store; from tests.factories import make_result; "
        "store = Store(sys.argv[1]); store.runs.append([make_result()]); store.runs.flush(); "
        "assert store.runs.read(columns=['verdict']).column(0).to_pylist() == ['ok']; "
        "assert 'pandas' not in sys.modules, 'pandas was imported'; "
        "assert list(store.runs.read(columns=['verdict']).to_pandas()['verdict']) == ['ok']"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr[-800:]


def test_importing_the_store_leaves_pyarrows_pandas_integration_alone() -> None:
    # Only the executable skips the probe: a library user's pandas objects still convert as pandas'.
    probe = (
        "import pipeline.store, pandas, pyarrow as pa; "
        "assert pa.array(pandas.Series(['a', None])).to_pylist() == ['a', None]"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=Path(__file__).parents[2]
    )
    assert done.returncode == 0, done.stderr[-800:]


def test_a_small_part_is_written_plain_and_a_large_one_compressed(tmp_path: Path) -> None:
    """A fed audit writes and reads two parts of a row or two a batch: plain, they cost half as much to
    write and to read. A large part (a 50-MB output, a compacted table) keeps zstd."""
    import pyarrow as pa

    from pipeline.parts import PLAIN_BELOW_BYTES, write_part

    small = pa.table({"run_id": ["a"], "stdout": ["1\n"]})
    large = pa.table({"run_id": ["b"], "stdout": ["x" * (2 * PLAIN_BELOW_BYTES)]})
    for table, compression in ((small, "UNCOMPRESSED"), (large, "ZSTD")):
        part = write_part(tmp_path, table)
        assert pq.ParquetFile(part).metadata.row_group(0).column(1).compression == compression
        assert pq.read_table(part).equals(table)
    assert sum(p.stat().st_size for p in tmp_path.glob("part-*")) < PLAIN_BELOW_BYTES  # compressed indeed
