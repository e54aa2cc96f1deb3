"""What a run row claims at the edges: what varied between repeats, output that is not UTF-8, and parts
written before either was recorded (real Parquet, real records)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.cli import main
from pipeline.records import LabelProtocol, PhaseResult, RunResult, Verdict
from pipeline.store import SCHEMA_VERSION, Store
from tests.factories import make_result

NOT_UTF8 = b"A\xff\xfeB"


def not_utf8_result() -> RunResult:
    run = PhaseResult(stdout=NOT_UTF8.decode("utf-8", "replace"), stdout_bytes=NOT_UTF8, verdict=Verdict.OK)
    return make_result("write bytes", "").model_copy(update={"run": run})


def test_raw_bytes_survive_json() -> None:
    result = not_utf8_result()  # the review queue keeps runs as JSON: bytes there are base64
    computed = {"label": True, "label_bytes": True, "setting": {"setting_id"}}
    again = RunResult.model_validate_json(result.model_dump_json(exclude=computed))
    assert again == result and again.label_bytes == NOT_UTF8 and again.label == "A\ufffd\ufffdB"


def test_a_label_made_of_several_streams_keeps_each_ones_bytes() -> None:
    failed = PhaseResult(stderr="e: \ufffd", stderr_bytes=b"e: \xff", verdict=Verdict.COMPILE_ERROR)
    result = make_result().model_copy(
        update={"compile": failed, "run": None, "protocol": LabelProtocol.COMBINED_WITH_PREFIX}
    )
    assert result.label == "Compilation Error: e: \ufffd"
    assert result.label_bytes == b"Compilation Error: e: \xff"


def test_streams_outside_the_label_do_not_make_it_vary_but_a_split_of_the_same_bytes_is_one_label() -> None:
    from pipeline.records import compare_repeats  # here: the other tests fail on their own without it

    quiet = [PhaseResult(stdout="1\n", stderr=f"took {i} ms\n", verdict=Verdict.OK) for i in range(3)]
    assert compare_repeats(LabelProtocol.STDOUT, None, quiet) == (1, (), ())
    combined = compare_repeats(LabelProtocol.COMBINED_WITH_PREFIX, None, quiet)
    assert combined[:2] == (3, ("stderr",))
    assert combined.others == tuple(quiet[1:])  # each other outcome's first repeat, kept to be read
    split = [
        PhaseResult(stdout="ab", verdict=Verdict.OK),
        PhaseResult(stdout="a", stderr="b", verdict=Verdict.OK),
    ]  # the composed label is the same text: one label
    assert compare_repeats(LabelProtocol.COMBINED_WITH_PREFIX, None, split) == (1, (), ())


def schema_3_part(part: Path) -> None:
    """Rewrite a part as schema 3 wrote it: no ``varied``, ``label_bytes`` nor ``other_runs``, phases
    without bytes nor setup time."""
    table = pq.read_table(part)
    table = table.drop_columns(["varied", "label_bytes", "other_runs"])
    for name in ("compile", "run"):
        column = table.column(name).combine_chunks()
        kept = [f for f in column.type if not f.name.endswith("_bytes") and f.name != "setup_wall_s"]
        older = pa.StructArray.from_arrays(
            [column.field(f.name) for f in kept], fields=kept, mask=column.is_null()
        )
        table = table.set_column(table.schema.get_field_index(name), name, older)
    pq.write_table(
        table.replace_schema_metadata({**table.schema.metadata, b"surge.schema_version": b"3"}), part
    )


def test_parts_before_varied_was_recorded_read_back_with_their_stdout_as_what_varied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path)
    unstable = make_result("print(random())", "0.1\n").model_copy(update={"distinct_outputs": 2})
    store.runs.append([make_result(), unstable])
    part = store.runs.flush()
    assert part is not None
    schema_3_part(part)
    read = {r.run_id: r for r in store.runs.records()}
    assert read[unstable.run_id].varied == ("stdout",) and not read[unstable.run_id].deterministic
    assert read[make_result().run_id].varied == () and read[make_result().run_id].run.stdout_bytes is None
    assert read[make_result().run_id].run.setup_wall_s is None  # not measured then

    exits = make_result("exit(random())", "").model_copy(
        update={"distinct_outputs": 3, "varied": ("exit_code",)}
    )
    store.runs.append([exits, not_utf8_result()])
    store.runs.flush()
    assert main(["stats", "--store", str(tmp_path), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["nondeterministic"] == 2
    assert stats["nondeterministic_by_part"] == {"stdout": 1, "exit_code": 1}
    assert stats["rows_by_schema_version"] == {"3": 2, SCHEMA_VERSION: 2}
    assert main(["stats", "--store", str(tmp_path)]) == 0
    assert "2 non-deterministic runs: 1 stdout, 1 exit_code" in capsys.readouterr().out
