"""docs/api.md cannot rot: its python blocks, run in order as one session in a fresh folder, pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def python_blocks() -> list[str]:
    return BLOCK.findall((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))


def test_the_doc_has_a_worked_example() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 3 and any("surge.run(" in block for block in blocks)


@pytest.mark.slow
def test_the_worked_example_runs(tmp_path: Path, require_bwrap: None) -> None:
    session = tmp_path / "session.py"
    session.write_text("\n".join(python_blocks()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PYTHONPATH=str(ROOT), XDG_STATE_HOME=str(tmp_path / "state"))
    done = subprocess.run(
        [sys.executable, str(session)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "rows written" in done.stdout and "no store" in done.stdout
