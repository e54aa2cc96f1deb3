"""bench/cruxeval_x_scale.py: a CRUXEval-X folder of a chosen size, in upstream's format, every program
distinct, every class of the plug-in's records still present once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "bench" / "cruxeval_x_scale.py"


def test_each_language_file_is_refilled_to_the_size_asked_with_distinct_programs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, SCRIPT, tmp_path, "--per-language", "9"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 19
    for path in files:
        records = json.loads(path.read_text())
        assert [record["id"] for record in records] == list(range(800)), path.name
        codes = [record["code"] for record in records if "code" in record]
        assert len(codes) == 9 and len(set(codes)) == 9, path.name
    python = json.loads((tmp_path / "py.json").read_text())
    # the plug-in's prose record (id 6 upstream) is kept once, not cycled with the passing checks
    prose = [record for record in python if "code" in record and "def f" not in record["code"]]
    assert len(prose) == 1


def test_a_size_beyond_upstreams_ids_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, SCRIPT, tmp_path, "--per-language", "801"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--per-language must be 1..800" in done.stderr
