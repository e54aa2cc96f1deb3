"""The store at its edges, for real: corrupt parts, a store that is not there, a read-only store or
working folder (read-only mounts: root ignores file modes), and a disk that fills up during `surge run`
(a 64 KiB tmpfs). Mount tests skip, naming `mount`, where mounting is not allowed."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pipeline.parts as parts_module
from pipeline.batches import BatchFailed, write_rows
from pipeline.cli import main
from pipeline.records import QuarantinedRecord
from pipeline.store import Store
from tests.factories import make_result
from tests.soak import SOAK_ROUNDS
from tests.surge_process import run_surge


def store_with_runs(root: Path, parts: int = 3) -> Store:
    store = Store(root)
    for n in range(parts):
        store.runs.append([make_result(f"print({n})", f"{n}\n")])
        store.runs.flush()
    return store


def corrupt(part: Path, how: str) -> None:
    data = part.read_bytes()
    if how == "truncated":  # a copy or a write cut short: no footer
        part.write_bytes(data[: len(data) // 2])
    elif how == "garbage":  # not Parquet at all
        part.write_bytes(b"PAR1 this is not a parquet file " * 8)
    else:  # "bad-pages": the footer reads, the column data does not decode
        middle = len(data) // 3
        part.write_bytes(data[:4] + bytes(b ^ 0xFF for b in data[4:middle]) + data[middle:])


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "error:" in line]


CORRUPTIONS = ["truncated", "garbage", "bad-pages"]


# -- corrupt parts ------------------------------------------------------------------------------


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_store_check_names_a_corrupt_part_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    store = store_with_runs(tmp_path)
    bad = store.runs.part_files()[1]
    corrupt(bad, how)
    assert main(["store", "check", "--store", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    (line,) = error_lines(captured.err)
    assert bad.name in line and "store check --repair" in line and "Traceback" not in captured.err


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_stats_refuses_a_store_with_a_corrupt_part_naming_it_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    store = store_with_runs(tmp_path)
    bad = store.runs.part_files()[0]
    corrupt(bad, how)
    assert main(["stats", "--store", str(tmp_path)]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert f"runs/{bad.name}" in line and "is corrupt" in line and "store check --repair" in line


def test_the_run_ids_of_a_store_with_a_corrupt_part_name_it(tmp_path: Path) -> None:
    # What `surge run` reads first (its resume check): the part, not "cannot read the store".
    store = store_with_runs(tmp_path)
    bad = store.runs.part_files()[2]
    corrupt(bad, "garbage")
    with pytest.raises(Exception, match=f"runs/{bad.name} of the store .* is corrupt") as raised:
        Store(tmp_path).stored_run_ids([make_result().run_id])
    assert "store check --repair" in getattr(raised.value, "hint", "")


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_compact_sets_a_corrupt_part_aside_with_a_quarantine_record_and_merges_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    store = store_with_runs(tmp_path, parts=4)
    bad = store.runs.part_files()[1]
    kept_ids = {
        i
        for part in store.runs.part_files()
        if part != bad
        for i in pq.read_table(part)["run_id"].to_pylist()
    }
    corrupt(bad, how)
    assert main(["store", "compact", "--store", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["set_aside"] == [f"runs/.corrupt/{bad.name}"]
    assert (tmp_path / "runs" / ".corrupt" / bad.name).is_file() and not bad.exists()
    (record,) = Store(tmp_path).quarantine.records()
    assert record.stage == "store" and record.location == f"runs/.corrupt/{bad.name}"
    assert bad.name in record.reason and "moved aside" in record.reason
    assert len(store.runs.part_files()) == 1 and store.runs.existing_ids() == kept_ids
    assert main(["store", "check", "--store", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["stats", "--store", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == len(kept_ids)


def test_check_repair_sets_corrupt_parts_of_any_table_aside_and_keeps_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = store_with_runs(tmp_path, parts=2)
    store.quarantine.append([QuarantinedRecord(stage="t", source="s", location="f:1", reason="bad line")])
    corrupt(store.quarantine.flush(), "truncated")  # type: ignore[arg-type]
    corrupt(store.runs.part_files()[0], "garbage")
    assert main(["store", "check", "--repair", "--store", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["set_aside"]) == 2 and report["tables"]["runs"]["parts"] == 1
    reasons = [r.reason for r in Store(tmp_path).quarantine.records()]
    assert len(reasons) == 2 and all("corrupt part" in reason for reason in reasons)
    assert main(["stats", "--store", str(tmp_path)]) == 0


# -- a batch whose rows cannot be written ---------------------------------------------------------


def test_a_batch_whose_rows_the_store_cannot_take_fails_with_the_stores_reason_and_no_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # BatchFailed is what the task's retry condition never retries (flows/run_programs.py): running the
    # batch's programs again would fail the same write.
    def disk_full(path: Path, *args: object) -> None:
        path.write_bytes(b"PAR1 the first bytes")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(parts_module, "write_parquet", disk_full)
    with pytest.raises(BatchFailed) as raised:
        write_rows(Store(tmp_path), [make_result()])
    assert raised.value.reason.startswith(f"no space left on the disk of the store {tmp_path}")
    assert "free space on that disk" in raised.value.fix
    assert list(tmp_path.rglob("*.partial")) == [] and list(tmp_path.rglob("part-*")) == []


# -- a store that is not there -------------------------------------------------------------------


@pytest.mark.parametrize("what", ["missing", "empty folder", "folder of other things"])
@pytest.mark.parametrize(
    "argv",
    [["stats", "--store"], ["store", "check", "--store"], ["store", "compact", "--store"], ["export"]],
    ids=["stats", "check", "compact", "export"],
)
def test_reading_a_store_that_is_not_there_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], what: str
) -> None:
    # A typo in --store, or the wrong folder, must not read as a store of 0 runs.
    path = tmp_path / "no-store"
    if what != "missing":
        path.mkdir()
    if what == "folder of other things":
        (path / "src").mkdir()
        (path / "src" / "notes.txt").write_text("not a table")
    extra = [str(tmp_path / "out")] if argv == ["export"] else []
    assert main([*argv, str(path), *extra]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert f"no store at {path}" in line and "fix:" in line
    assert sorted(p.name for p in path.rglob("*")) == (
        [] if what != "folder of other things" else ["notes.txt", "src"]
    )


# -- real file systems: read-only mounts and a small disk ----------------------------------------


def mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"needs `mount` (root in a container that allows it): {done.stderr.strip()}")


def unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(a folder, the same folder mounted read-only)."""
    source, view = tmp_path / "writable", tmp_path / "read-only"
    source.mkdir()
    view.mkdir()
    mount("--bind", "-o", "ro", str(source), str(view))
    try:
        probe = view / "probe"
        try:
            probe.touch()
        except OSError:
            yield source, view
        else:
            pytest.skip("`mount --bind -o ro` left the folder writable here")
    finally:
        unmount(view)


def surge(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_surge(argv, cwd, env)


def test_a_read_only_store_reads_and_refuses_writes_in_one_line(
    read_only: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    source, view = read_only
    store_with_runs(source, parts=2)
    (source / "runs" / ".part-x.parquet.partial").write_bytes(b"half a file")
    assert main(["stats", "--store", str(view)]) == 0
    assert main(["store", "check", "--store", str(view)]) == 0
    capsys.readouterr()
    for argv in (["store", "check", "--clean"], ["store", "compact"]):
        assert main([*argv, "--store", str(view)]) == 2, argv
        (line,) = error_lines(capsys.readouterr().err)
        assert f"the store {view} cannot be written: Read-only file system" in line, line
        assert f"mounted at {view}" in line and "fix:" in line, line
    assert len(list((source / "runs").glob("part-*.parquet"))) == 2


@pytest.mark.slow
def test_surge_run_on_a_read_only_store_or_working_folder_is_one_line(
    read_only: tuple[Path, Path], tmp_path: Path, require_bwrap: None
) -> None:
    _, view = read_only
    programs = tmp_path / "programs.jsonl"
    programs.write_text('{"language": "python", "source": "print(1)"}\n')
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect")}
    on_read_only_store = surge(["run", str(programs), "--store", str(view / "store")], tmp_path, env)
    (line,) = error_lines(on_read_only_store.stderr)
    assert on_read_only_store.returncode == 2 and "cannot be written: Read-only file system" in line
    # With a read-only state folder, Prefect's default state folder (surge/prefect in it) cannot be made.
    env.pop("PREFECT_HOME")
    env["XDG_STATE_HOME"] = str(view)
    in_read_only_folder = surge(["run", str(programs), "--store", str(tmp_path / "store")], view, env)
    (line,) = error_lines(in_read_only_folder.stderr)
    assert in_read_only_folder.returncode == 2 and "PREFECT_HOME" in line and "Traceback" not in line


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB file system (tmpfs) for the store."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk))
    try:
        yield disk
    finally:
        unmount(disk)


def tiny_programs(path: Path) -> int:
    """Two programs whose rows fit anywhere and three whose output (60 KB of hex each) cannot all fit."""
    lines = [{"language": "python", "source": f"print({n})"} for n in range(2)]
    lines += [
        {"language": "python", "source": f"import os\n# {n}\nprint(os.urandom(30000).hex())\n"}
        for n in range(3)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return len(lines)


def task_run_counts(prefect_home: Path) -> list[int]:
    """How many times each batch task of the command ran (Prefect's own record: retries add to it)."""
    with sqlite3.connect(prefect_home / "prefect.db") as db:
        return [
            count
            # by the task's key: a task run's name is for people ("batch 3/5 run") and may change
            for (count,) in db.execute("select run_count from task_run where task_key like 'execute_batch-%'")
        ]


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.parametrize("soak_round", range(SOAK_ROUNDS))
def test_a_disk_that_fills_during_a_run_fails_once_cleanly_and_the_rerun_with_room_finishes(
    small_disk: Path, tmp_path: Path, soak_round: int, require_bwrap: None
) -> None:
    programs = tmp_path / "programs.jsonl"
    count = tiny_programs(programs)
    store = small_disk / "store"
    prefect_home = tmp_path / "prefect"
    env = {**os.environ, "PREFECT_HOME": str(prefect_home)}
    argv = ["run", str(programs), "--store", str(store), "--batch-size", "1", "--json"]

    full = surge(argv, tmp_path, env)
    shown = f"exit {full.returncode}\n{full.stderr}"
    assert full.returncode == 1, shown
    (line,) = error_lines(full.stderr)
    assert f"no space left on the disk of the store {store}" in line and f"mounted at {small_disk}" in line, (
        line
    )
    assert "free space on that disk, or pass --store" in line and "Traceback" not in full.stderr
    assert [p.name for p in small_disk.rglob("*.partial")] == []
    # Each batch ran its programs once: a write that failed is not retried by running them again.
    runs = task_run_counts(prefect_home)
    assert len(runs) == count and set(runs) == {1}, runs
    written = json.loads(full.stdout)["written"]
    assert written < count

    mount("-o", "remount,size=8m", str(small_disk))  # the fix: room on the disk
    rerun = surge(argv, tmp_path, env)
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)
    assert summary["already_stored"] == written and summary["written"] == count - written
    check = surge(["store", "check", "--store", str(store)], tmp_path, env)
    assert check.returncode == 0, check.stdout + check.stderr
    assert len(Store(store).runs.existing_ids()) == count


def test_check_repair_decodes_each_part_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding every row group is the slow part of a check: --repair must not do it twice."""
    import pipeline.commands.store as store_command

    store = store_with_runs(tmp_path, parts=3)
    corrupt(store.runs.part_files()[0], "garbage")
    decoded: list[Path] = []

    def counting(part: Path) -> int:
        decoded.append(part)
        return parts_module.verify_part(part)

    monkeypatch.setattr(store_command, "verify_part", counting)
    monkeypatch.setattr("pipeline.store.verify_part", counting)
    assert main(["store", "check", "--repair", "--store", str(tmp_path)]) == 0
    assert len(decoded) == len(set(decoded)) == 3
