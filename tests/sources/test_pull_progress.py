"""`surge pull`'s progress bar: sources pulled of those named and the items they held, live on a terminal,
a plain line in a pipe, and `--json` the same bytes either way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.sources.conftest import sample_files
from tests.surge_process import PROGRESS_LINE, run_on_terminals

COUNTS = re.compile(r"pull .*?sources (\d)/2, items (\d+), \d+ s elapsed, ETA (\d+ s|unknown)")


@pytest.mark.slow
def test_pull_counts_sources_and_their_items_on_a_terminal_and_json_is_the_same_bytes_in_a_pipe(
    upstream, samples: Path, tmp_path: Path
) -> None:
    mceval, debugbench = upstream("McEval"), upstream("DebugBench")
    pinned = {
        "mceval": mceval.commit(sample_files(samples, "mceval", "data", "*.jsonl")),
        "debugbench": debugbench.commit(sample_files(samples, "debugbench", "benchmark", "*.json")),
    }
    argv = ["pull", "mceval", "debugbench", "--cache", "cache", "--store", "store", "--json"]
    for name, repo in (("mceval", mceval), ("debugbench", debugbench)):
        argv += ["--mirror", f"{name}={repo.url}", "--commit", f"{name}={pinned[name]}"]
    for place in ("terminal", "pipe"):
        (tmp_path / place).mkdir()

    code, drawn_out, drawn = run_on_terminals(argv, tmp_path / "terminal", stdout_tty=True, stderr_tty=True)
    assert code == 0, drawn.decode(errors="replace")
    items = sum(source["items"] for source in json.loads(drawn_out)["sources"].values())
    text = drawn.decode(errors="replace")
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    shown = [(int(s), int(i), eta) for s, i, eta in COUNTS.findall(plain)]
    assert "\x1b[" in text, "not drawn as a terminal's live bar"
    assert shown[0][:2] == (0, 0) and shown[0][2] == "unknown", shown  # drawn before any source ended
    assert shown[-1] == (2, items, "0 s") and items > 0, shown
    assert [s for s, _, _ in shown] == sorted(s for s, _, _ in shown) and 1 in {s for s, _, _ in shown}

    code, piped_out, piped = run_on_terminals(argv, tmp_path / "pipe", stdout_tty=False, stderr_tty=False)
    assert code == 0, piped.decode(errors="replace")
    (line,) = piped.decode().splitlines()
    assert PROGRESS_LINE.fullmatch(line) and f"sources 2/2, items {items}, " in line, line
    assert piped_out == drawn_out
