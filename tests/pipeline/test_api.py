"""The Python API as a user calls it: a fresh interpreter imports `surge`, which changes nothing in its
process (environment, collector, no Prefect loaded), calls `run` on examples/programs.jsonl and `stats`,
and gets typed summaries holding what the CLI's `--json` prints for the same work."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.api import OPTIONS
from pipeline.cli import build_parser, load_command
from pipeline.commands.common import options_from

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "examples" / "programs.jsonl"
LIMITS = ["--cpu-s", "1", "--wall-s", "12"]  # the endless loop stops on CPU, even on a busy machine
REQUIRED = {  # each command's positional arguments, as flags and as options
    "run": (["p.jsonl"], {"programs": Path("p.jsonl")}),
    "build": (["sc"], {"subsets": ["sc"]}),
    "audit": (["ds"], {"dataset": Path("ds")}),
    "export": (["st", "out"], {"store": Path("st"), "out": Path("out")}),
    "score": (["p.jsonl", "--dataset", "d"], {"predictions": Path("p.jsonl"), "dataset": [Path("d")]}),
    "stats": ([], {}),
    "show": (["abc"], {"run_id": "abc"}),
    "predict": (["d"], {"dataset": Path("d")}),
    "pull": ([], {}),
    "refactor": (["items.jsonl"], {"items": Path("items.jsonl")}),
    "review": (["list"], {"action": "list"}),
    "doctor": ([], {}),
}

USER_SCRIPT = """
import gc, json, os, sys
environ, frozen = dict(os.environ), gc.get_freeze_count()
import surge
imported_clean = dict(os.environ) == environ and gc.get_freeze_count() == frozen
ran = surge.run(surge.RunOptions(programs=sys.argv[1], store=sys.argv[2], cpu_s=1, wall_s=12))
summary = surge.stats(store=sys.argv[2])
print(json.dumps({
    "imported_clean": imported_clean,
    "prefect_at_import": "prefect" in sys.modules and not imported_clean,
    "environ_kept": dict(os.environ) == environ,
    "frozen_kept": gc.get_freeze_count() == frozen,
    "types": [type(ran).__name__, type(summary).__name__],
    "run": ran.model_dump(mode="json"),
    "stats": summary.model_dump(mode="json"),
    "display": [name for name in ("text", "_text", "_screen") if hasattr(ran, name)],
}))
"""


def parser_of(command: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


@pytest.mark.parametrize("command", list(OPTIONS))
def test_the_options_are_the_flags_with_the_same_defaults(command: str) -> None:
    argv, fields = REQUIRED[command]
    args = parser_of(command).parse_args(argv)
    args.json, args.command = False, command
    dests = {a.dest for a in parser_of(command)._actions} - {"help", "json"}
    names = set(OPTIONS[command].model_fields) - {"per_item"}  # score's per_item is the CLI's --json
    assert names == dests
    module = load_command(command)
    # audit's command still hands the audit its own plan; its flags make the same options all the same
    options = module.options_of(args) if hasattr(module, "STAGE") else options_from(args, OPTIONS[command])
    assert options == OPTIONS[command](**fields)


def test_a_misspelt_option_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="repeat"):
        OPTIONS["run"](programs=Path("p.jsonl"), repeat=3)


def cli_json(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *argv, "--json"],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    # The CLI names an exit code and failures only for a command that has them; a summary model always does.
    summary.setdefault("exit_code", 0)
    summary.setdefault("failures", [])
    return summary


@pytest.mark.slow
def test_a_user_imports_surge_calls_run_and_stats_and_gets_the_clis_json(
    tmp_path: Path, require_bwrap: None
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PYTHONPATH=str(ROOT), XDG_STATE_HOME=str(tmp_path / "state"))
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(PROGRAMS), str(tmp_path / "api-store")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["imported_clean"] and seen["environ_kept"] and seen["frozen_kept"]
    assert seen["types"] == ["RunSummary", "StatsSummary"]
    ran = seen["run"]
    assert ran["programs"] == 13 and ran["written"] == ran["planned_runs"] > 13
    assert seen["display"] == []  # the text is the CLI's rendering, not the library's data
    # Prefect's state went to the per-user folder, never the working folder
    assert (tmp_path / "state" / "surge" / "prefect").is_dir()
    assert not (tmp_path / ".surge" / "prefect").exists()

    cli_store = tmp_path / "cli-store"
    by_cli = cli_json(["run", str(PROGRAMS), "--store", str(cli_store), *LIMITS], env, tmp_path)
    assert {**seen["run"], "store": str(cli_store)} == by_cli
    assert seen["stats"] == cli_json(["stats", "--store", str(tmp_path / "api-store")], env, tmp_path)
