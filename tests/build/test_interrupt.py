"""Interrupt a real `surge build` process mid-build, run it again: it finishes exactly the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.build.records import OUTCOME_TABLE, outcome_table
from pipeline.dataset import read_rows
from pipeline.store import Store

REPO = Path(__file__).resolve().parents[2]


ITEMS = 30  # 15 batches of about 0.2 s each: the interrupt lands mid-build, not after the last batch


def _surge(store: Path, *extra: str) -> subprocess.Popen:
    args = [
        "build",
        "sc",
        "--n",
        str(ITEMS),
        "--seed",
        "3",
        "--batch-size",
        "2",
        "--store",
        str(store),
        *extra,
    ]
    code = "import sys; from pipeline.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=REPO, env=env, stdout=subprocess.PIPE)


@pytest.mark.slow
def test_sigint_after_the_first_batch_then_a_rerun_gives_the_uninterrupted_rows(tmp_path, require_bwrap):
    interrupted = tmp_path / "interrupted"
    process = _surge(interrupted)
    deadline = time.monotonic() + 240
    while not list((interrupted / OUTCOME_TABLE).glob("part-*.parquet")):
        assert process.poll() is None, "the build ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    process.wait(timeout=120)
    assert process.returncode != 0
    assert len(list(outcome_table(Store(interrupted)).records())) < ITEMS  # stopped part way
    assert _surge(interrupted).wait(timeout=300) == 0
    assert _surge(tmp_path / "whole").wait(timeout=300) == 0

    def content(root: Path) -> list:
        return [(r.upstream.key, r.question, r.gt, r.run.run_id) for r in read_rows(Store(root), {"sc"})]

    assert content(interrupted) == content(tmp_path / "whole")
    outcomes = [o.item_id for o in outcome_table(Store(interrupted)).records()]
    assert len(outcomes) == len(set(outcomes)) == ITEMS  # every item decided once: nothing ran twice
