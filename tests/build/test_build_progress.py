"""`surge build`'s progress bar, as a user sees it: live on a terminal, plain lines in a pipe, and `--json`
the same bytes either way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.surge_process import PROGRESS_LINE, run_on_terminals

BUILD = ["build", "sc", "--n", "4", "--batch-size", "1", "--seed", "3", "--store", "store", "--json"]
COUNTS = re.compile(r"build sc .*?items (\d+)/(\d+), rows (\d+)/4, (\d+) s elapsed, ETA (\d+ s|unknown)")


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


@pytest.mark.slow
def test_build_draws_a_live_bar_on_a_terminal_and_its_json_is_the_same_bytes_in_a_pipe(
    tmp_path: Path, require_bwrap: None
) -> None:
    """Four batches of one item: on a terminal the bar's rows rise one by one to 4 of 4 while its clock
    runs; in a pipe one plain line without terminal codes; stdout's JSON is byte for byte the same (each
    build in a folder of its own, the store named alike)."""
    (tmp_path / "terminal").mkdir()
    (tmp_path / "pipe").mkdir()
    code, drawn_out, drawn = run_on_terminals(BUILD, tmp_path / "terminal", stdout_tty=True, stderr_tty=True)
    assert code == 0, drawn.decode(errors="replace")
    shown = COUNTS.findall(strip_ansi(drawn.decode(errors="replace")))
    assert "\x1b[" in drawn.decode(errors="replace"), "not drawn as a terminal's live bar"
    rows = [int(kept) for _, _, kept, _, _ in shown]
    assert rows == sorted(rows) and {1, 2, 3, 4} <= set(rows), shown  # the count rose, one row at a time
    assert shown[-1][:3] == ("4", "4", "4") and shown[-1][4] == "0 s", shown
    # The clock never runs back. Whether it ticks between draws depends on the machine: a warm one builds
    # the four items within one second of the first draw, so that is tested with a clock of the test's own
    # (tests/flows/test_progress.py, the clock runs and the ETA falls between batches).
    clock = [int(elapsed) for _, _, _, elapsed, _ in shown]
    assert clock == sorted(clock), shown
    assert "unknown" in {eta for *_, eta in shown}, shown  # no ETA before the first item's outcome

    code, piped_out, piped = run_on_terminals(BUILD, tmp_path / "pipe", stdout_tty=False, stderr_tty=False)
    assert code == 0, piped.decode(errors="replace")
    (line,) = piped.decode().splitlines()  # a short build: only the last line
    assert PROGRESS_LINE.fullmatch(line) and "items 4/4, rows 4/4" in line and "\x1b" not in line, line
    assert piped_out == drawn_out and json.loads(piped_out)["built"]["sc"]["rows"] == 4
