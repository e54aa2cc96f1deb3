"""`surge show` and `surge stats` read by a person: one real `surge run` (bwrap) shared by every test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ConfigurationError
from pipeline.stages.show import unique_match
from tests.conftest import require_tool

# Three Python programs: one writes a byte that is not UTF-8 and a line on stderr, one prints a random
# number (its repeats differ), one fails.
PROGRAMS = [
    {
        "language": "python",
        "source": "import sys\nprint('hello')\nsys.stdout.flush()\nsys.stdout.buffer.write(b'\\xff\\n')\n"
        "print('to stderr', file=sys.stderr)\n",
        "origin": {"name": "raw-bytes"},
    },
    {"language": "python", "source": "import random\nprint(random.random())\n", "origin": {"name": "random"}},
    {"language": "python", "source": "raise SystemExit(3)\n", "origin": {"name": "exits-3"}},
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("bwrap")
    folder = tmp_path_factory.mktemp("show")
    programs = folder / "programs.jsonl"
    programs.write_text("".join(json.dumps(p) + "\n" for p in PROGRAMS), encoding="utf-8")
    assert main(["run", str(programs), "--store", str(folder / "store"), "--repeats", "2"]) == 0
    return folder / "store"


def surge(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_id_of(capsys: pytest.CaptureFixture[str], store: Path, name: str) -> str:
    from pipeline.store import Store

    (run_id,) = [r.run_id for r in Store(store).runs.records() if r.origin["name"] == name]
    return run_id


def test_show_prints_what_the_program_printed_its_phase_and_provenance(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = run_id_of(capsys, store, "raw-bytes")
    code, out, _ = surge(capsys, "show", run_id[:6], "--store", str(store))
    assert code == 0
    assert f"run {run_id}" in out and "verdict: ok" in out
    assert "    hello\n" in out and "    to stderr\n" in out  # stdout and stderr, as printed
    assert re.search(r"stdout \(not UTF-8: 8 raw bytes kept", out)  # hello\n + \xff\n
    assert "command: python3" in out and "max rss" in out
    assert "backend bwrap" in out and "toolchains: python3 Python 3." in out and "run limits: cpu 10 s" in out


def test_show_json_is_the_stored_run(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = run_id_of(capsys, store, "exits-3")
    code, out, _ = surge(capsys, "show", run_id, "--store", str(store), "--json")
    shown = json.loads(out)
    assert code == 0 and shown["run_id"] == run_id and shown["verdict"] == "runtime_error"
    assert shown["run"]["exit_code"] == 3 and shown["provenance"]["backend"] == "bwrap"


def test_show_last_is_the_latest_started_run(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.store import Store

    latest = max(Store(store).runs.records(), key=lambda r: r.provenance.started_at)
    code, out, _ = surge(capsys, "show", "--last", "--store", str(store), "--json")
    assert code == 0 and json.loads(out)["run_id"] == latest.run_id


def test_show_names_what_varied_between_repeats(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = run_id_of(capsys, store, "random")
    code, out, _ = surge(capsys, "show", run_id, "--store", str(store))
    assert code == 0 and "repeats 2  distinct outputs 2  varied: stdout" in out


def test_show_refuses_an_unknown_id_in_one_line(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = surge(capsys, "show", "zzzz", "--store", str(store))
    assert code == 2 and out == "" and err.count("\n") == 1 and "no run id starts with 'zzzz'" in err


def test_an_ambiguous_prefix_lists_the_candidates() -> None:
    with pytest.raises(ConfigurationError, match=r"'ab' names 2 runs: ab01, ab02"):
        unique_match(["ab01", "ab02", "cd03"], "ab")


def test_stats_names_the_non_deterministic_runs(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = run_id_of(capsys, store, "random")
    code, out, _ = surge(capsys, "stats", "--store", str(store))
    assert code == 0 and "1 non-deterministic run:" in out
    assert re.search(rf"^  {run_id[:12]}  python +2 distinct outcomes, varied: stdout$", out, re.MULTILINE)
    code, out, _ = surge(capsys, "stats", "--store", str(store), "--json")
    assert json.loads(out)["nondeterministic_runs"] == [
        {"run_id": run_id, "language": "python", "distinct_outputs": 2, "varied": ["stdout"]}
    ]


def test_stats_caps_the_runs_it_names(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = surge(capsys, "stats", "--store", str(store), "--name-at-most", "0")
    assert code == 0 and "  and 1 more (--json names them all)" in out


def test_stats_has_a_section_for_every_table(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Dataset rows, build outcomes, audit classes and quarantine, each counted from a table written here
    with the store's own writers."""
    from pipeline.audit.rows import AuditClass, AuditRow
    from pipeline.build.records import BuildOutcome, outcome_table
    from pipeline.records import QuarantinedRecord
    from pipeline.store import Store

    copy = store.parent / "with-tables"
    if not copy.exists():
        import shutil

        shutil.copytree(store, copy)
    opened = Store(copy)
    with outcome_table(opened) as outcomes:
        outcomes.append(
            [
                BuildOutcome(build_key="b", subset="ml", item_id="i1", index=0, status="kept"),
                BuildOutcome(
                    build_key="b", subset="ml", item_id="i2", index=1, status="dropped", reason="timeout"
                ),
            ]
        )
    audit_row = {"subset": "cl", "location": "cl.json[0]", "language": "python", "profile": "default"}
    with opened.table("audit", AuditRow, "audit_id") as audit:
        audit.append(
            [
                AuditRow(record_id=f"r{i}", index=i, audit_class=kind, metric="exact", score=1.0, **audit_row)
                for i, kind in enumerate([AuditClass.EXACT, AuditClass.EXACT, AuditClass.LOCALE_DRIFT])
            ]
        )
    assert main(["build", "sc", "--n", "1", "--store", str(copy)]) == 0  # a dataset row, by the build
    capsys.readouterr()
    with opened.quarantine as quarantine:
        quarantine.append([QuarantinedRecord(stage="pull", source="x", location="x:1", reason="bad")])
    code, out, _ = surge(capsys, "stats", "--store", str(copy))
    assert code == 0
    assert re.search(r"build outcomes by subset:\n  ml +2  \(dropped: timeout 1, kept 1\)\n", out)
    assert re.search(r"dataset rows by subset and source:\n  sc +1  \(surge-templates 1\)\n", out)
    assert re.search(r"audit classes by subset:\n  cl +3  \(locale_drift 1, reproduced_exact 2\)\n", out)
    assert re.search(r"quarantined records by stage:\n  pull +1\n", out)
    assert re.search(r"rows per table: audit 3 .*dataset 1 .*quarantine 1 .*runs \d+", out)


def on_terminal(*argv: str) -> str:
    """What `surge ARGV` writes to stdout when stdout is a real pseudo-terminal (120 columns)."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    command = [sys.executable, "-m", "pipeline.cli", *argv]
    with subprocess.Popen(command, stdout=follower, stderr=subprocess.PIPE) as process:
        os.close(follower)
        seen = bytearray()
        while chunk := read_or_end(leader):
            seen.extend(chunk)
        assert process.wait() == 0, process.stderr.read() if process.stderr else ""
    os.close(leader)
    return seen.decode(errors="replace")


def read_or_end(fd: int) -> bytes:
    import os

    try:
        return os.read(fd, 65536)
    except OSError:  # the command closed the terminal
        return b""


@pytest.mark.parametrize("command", ["stats", "show --last"])
def test_a_terminal_gets_rich_tables_a_pipe_plain_lines_and_json_no_codes(
    store: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    argv = [*command.split(), "--store", str(store)]
    drawn = on_terminal(*argv)
    assert "\x1b[" in drawn and "─" in drawn, drawn  # styled, with the tables' rules
    _, piped, _ = surge(capsys, *argv)
    assert "\x1b" not in piped and "─" not in piped
    as_json = on_terminal(*argv, "--json")
    assert "\x1b" not in as_json and "_screen" not in as_json
    json.loads(as_json)


def test_a_programs_output_is_never_read_as_markup() -> None:
    import io

    from pipeline.commands.display import Table, draw

    screen = io.StringIO()
    draw(["[red]printed[/red]", Table(("run", "stdout"), [("a", "[bold]x[/bold]")])], screen)
    assert "[red]printed[/red]" in screen.getvalue() and "[bold]x[/bold]" in screen.getvalue()


def test_show_says_a_compiles_setup_apart_from_its_own_wall_time() -> None:
    from pipeline.commands.show import render_phase
    from pipeline.records import PhaseResult, Verdict

    seeded = PhaseResult(verdict=Verdict.OK, cpu_user_s=5.0, wall_s=0.2, setup_wall_s=4.5)
    assert "wall 0.200 s (+4.500 s the runner's seed or warm compiler)" in render_phase("compile", seeded)[2]
    cold = seeded.model_copy(update={"setup_wall_s": None})
    assert "(+" not in render_phase("compile", cold)[2]
