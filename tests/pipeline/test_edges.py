"""Bad input and bad flags end in one line with the fix and a non-zero exit; nothing finished is lost
None of these reaches Prefect: they are refused while planning."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.cli import build_parser, main
from pipeline.records import LabelProtocol, Limits, PhaseLimits, PhaseResult, Program, RunRequest, Verdict
from pipeline.store import SCHEMA_VERSION, Store, old_run_id_rule_rows
from sandboxes.identity import backend_for, identify
from sandboxes.profiles import get_profile
from tests.factories import make_result

GOOD_LINE = json.dumps({"language": "python", "source": "print(1)"}) + "\n"


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI expecting a refusal: exit 2 and exactly one line on stderr, with its fix."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"surge {argv[0]}: error: ") and "(fix: " in err, err
    return err


def test_a_store_path_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    programs, store = tmp_path / "p.jsonl", tmp_path / "store"
    programs.write_text(GOOD_LINE)
    store.write_text("not a folder")
    for command in (["run", str(programs)], ["stats"], ["store", "check"]):
        assert "is a file, not a folder" in refused(capsys, *command, "--store", str(store))
    assert store.read_text() == "not a folder"


def test_a_bogus_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    programs = tmp_path / "p.jsonl"
    programs.write_text(GOOD_LINE)
    err = refused(capsys, "run", str(programs), "--store", str(tmp_path / "s"), "--setting", "bogus")
    assert "--setting 'bogus'" in err and "g++-C++14--O2" in err


def test_a_bad_flush_interval_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    programs = tmp_path / "p.jsonl"
    programs.write_text(GOOD_LINE)
    monkeypatch.setenv("SURGE_FLUSH_EVERY_S", "soon")
    err = refused(capsys, "run", str(programs), "--store", str(tmp_path / "s"))
    assert "SURGE_FLUSH_EVERY_S='soon'" in err
    assert not (tmp_path / "s" / "runs").exists()  # nothing planned, nothing ran


@pytest.mark.parametrize("flag", ["--repeats", "--batch-size", "--workers"])
def test_zero_is_refused_by_the_parser(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["run", "p.jsonl", flag, "0"])
    assert exit_.value.code == 2
    assert f"{flag}: must be 1-" in capsys.readouterr().err


def test_help_offers_only_backends_that_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--help"])
    text = capsys.readouterr().out
    assert "{bwrap,docker}" in text and "unsafe-local" not in text
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "p.jsonl", "--backend", "unsafe-local"])
    assert "invalid choice: 'unsafe-local'" in capsys.readouterr().err


def test_an_empty_programs_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    programs = tmp_path / "p.jsonl"
    programs.write_text("\n\n")
    err = refused(capsys, "run", str(programs), "--store", str(tmp_path / "s"))
    assert "holds no programs to run" in err and '{"language": "python"' in err


def test_the_same_bad_file_twice_stores_its_quarantine_records_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    programs, store = tmp_path / "p.jsonl", tmp_path / "s"
    programs.write_text('{"language": "brainfuck", "source": "+."}\n{not json\n')
    for _ in range(2):
        err = refused(capsys, "run", str(programs), "--store", str(store))
        assert "2 bad lines, kept in the quarantine table" in err
    assert Store(store).quarantine.count() == 2


def test_bad_limits_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    programs = tmp_path / "p.jsonl"
    programs.write_text(GOOD_LINE)
    err = refused(capsys, "run", str(programs), "--cpu-s", "-1")
    assert "argument --cpu-s: must be a finite number in (0, 86400], not -1" in err


def test_a_dask_address_nobody_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    programs = tmp_path / "p.jsonl"
    programs.write_text(GOOD_LINE)
    argv = ["run", str(programs), "--store", str(tmp_path / "s")]
    assert "tcp://HOST:PORT" in refused(capsys, *argv, "--dask-address", "localhost:1")
    assert "no Dask scheduler answers" in refused(capsys, *argv, "--dask-address", "tcp://127.0.0.1:1")


# -- run ids ----------------------------------------------------------------------------------


def test_run_ids_hash_limits_repeats_backend_and_toolchain() -> None:
    base = RunRequest(program=Program.single("python", "print(1)"), profile=get_profile("default"))
    variants = [
        base.model_copy(update={"limits": Limits(run=PhaseLimits(cpu_s=2))}),
        base.model_copy(update={"repeats": 3}),
        base.model_copy(update={"backend": "docker"}),
        base.model_copy(update={"toolchain_id": "python3 3.12"}),
    ]
    ids = {base.run_id, *(v.run_id for v in variants)}
    assert len(ids) == 5
    again = RunRequest(program=Program.single("python", "print(1)"), profile=get_profile("default"))
    assert again.run_id == base.run_id


def test_a_copy_with_changed_fields_never_carries_the_cached_ids_of_the_original() -> None:
    program = Program.single("python", "print(1)")
    base = RunRequest(program=program, profile=get_profile("default"))
    first, label_before = base.run_id, program.program_id  # computed and cached on these records
    changed = base.model_copy(update={"backend": "docker", "program": Program.single("python", "print(2)")})
    assert changed.run_id != first and changed.program.program_id != label_before
    assert (
        changed.run_id
        == RunRequest(
            program=Program.single("python", "print(2)"), profile=get_profile("default"), backend="docker"
        ).run_id
    )
    assert base.model_copy().run_id == first


def test_identify_names_the_tool_versions_and_routes_image_profiles_to_docker() -> None:
    request = RunRequest(program=Program.single("python", "print(1)"), profile=get_profile("default"))
    (bwrap,) = identify([request], "bwrap")
    assert bwrap.backend == "bwrap" and bwrap.toolchain_id and bwrap.run_id != request.run_id
    # same tools, same identity: a rerun finds its rows
    assert identify([request], "bwrap")[0].run_id == bwrap.run_id
    assert backend_for(get_profile("current"), "bwrap", unsafe=False) == "docker"


def test_rows_of_the_old_run_id_rule_stay_readable_and_are_reported(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.runs.append([make_result()])
    part = store.runs.flush()
    assert part is not None
    table = pq.read_table(part)
    old = table.replace_schema_metadata({**table.schema.metadata, b"surge.schema_version": b"1"})
    pq.write_table(old, part)
    assert store.runs.rows_by_schema_version() == {"1": 1}
    assert [r.run_id for r in store.runs.records()] == [make_result().run_id]
    store.runs.append([make_result("print(2)")])
    store.runs.flush()
    assert store.runs.rows_by_schema_version() == {"1": 1, SCHEMA_VERSION: 1}


def test_parts_that_stored_the_label_instead_of_the_protocol_read_back_with_their_labels(
    tmp_path: Path,
) -> None:
    warned = make_result("int main(){}", "1\n").model_copy(
        update={
            "compile": PhaseResult(stderr="w: careful\n", verdict=Verdict.OK),
            "protocol": LabelProtocol.COMPILE_THEN_RUN,
        }
    )
    store = Store(tmp_path)
    store.runs.append([make_result(), warned])
    part = store.runs.flush()
    assert part is not None
    table = pq.read_table(part)
    old = table.drop_columns(["protocol"])
    pq.write_table(
        old.replace_schema_metadata({**table.schema.metadata, b"surge.schema_version": b"2"}), part
    )
    read = {r.run_id: r for r in store.runs.records()}
    assert read[warned.run_id].label == "w: careful\n1\n" and read[make_result().run_id].label == "1\n"
    assert store.runs.rows_by_schema_version() == {"2": 2}
    assert old_run_id_rule_rows(store.runs.rows_by_schema_version()) == 0
    for index in range(2):  # parts of both versions: compaction merges each version on its own
        store.runs.append([make_result(f"print({index})", f"{index}\n")])
        store.runs.flush()
    store.runs.append([make_result("print(3)", "3\n")])
    assert store.runs.compact() is not None
    assert (
        store.runs.rows_by_schema_version() == {"2": 2, SCHEMA_VERSION: 3}
        and len(store.runs.part_files()) == 2
    )
    labels = sorted(r.label for r in store.runs.records())
    assert labels == ["0\n", "1\n", "1\n", "3\n", "w: careful\n1\n"]
