"""Every numeric flag of every command: a number outside its documented range (inf, nan, 1e12, 0, negative)
is refused while the flags are parsed, in one line naming the flag, exit 2, before any work."""

from __future__ import annotations

import math

import pytest

from pipeline.cli import main
from pipeline.records import PhaseLimits

RUN = ["run", "programs.jsonl"]
AUDIT = ["audit", "dataset"]
REFACTOR = ["refactor", "items.jsonl"]
BUILD = ["build", "sc"]

BAD = [
    (RUN, "--wall-s", "1e12"),  # once an OverflowError inside a batch
    (RUN, "--cpu-s", "inf"),  # once a sandbox_error on every program
    (RUN, "--cpu-s", "nan"),
    (RUN, "--cpu-s", "-1"),
    (RUN, "--memory-mib", "99999999999"),
    (RUN, "--output-bytes", str(1 << 40)),
    (RUN, "--repeats", "1000000"),
    (RUN, "--workers", "100000"),
    (RUN, "--batch-size", "100000"),
    (AUDIT, "--repeats", "-3"),
    (AUDIT, "--limit", "0"),
    (AUDIT, "--limit", "-5"),
    (AUDIT, "--time-margin", "inf"),
    (AUDIT, "--time-margin", "0"),
    (AUDIT, "--time-cap-s", "nan"),
    (AUDIT, "--wall-s", "1e12"),
    (AUDIT, "--workers", "-2"),
    (REFACTOR, "--limit", "-1"),
    (REFACTOR, "--max-rounds", "0"),
    (REFACTOR, "--batch-size", "0"),
    (REFACTOR, "--workers", "-4"),
    (REFACTOR, "--llm-concurrency", "0"),
    (REFACTOR, "--price-prompt-per-1k", "nan"),
    (REFACTOR, "--price-completion-per-1k", "-0.5"),
    (BUILD, "--repeats", "0"),
    (BUILD, "--workers", "-1"),
    (BUILD, "--batch-size", "0"),
    (BUILD, "--seed", "-1"),
    (BUILD, "--seed", str(1 << 64)),
    (["pull"], "--workers", "0"),
    (["export", "store", "out"], "--seed", "-7"),
    (["review", "serve"], "--port", "70000"),  # once an OverflowError from bind(), exit 70
    (["review", "serve"], "--port", "-1"),
    (["review", "serve"], "--token", "short"),
]


@pytest.mark.parametrize(("command", "flag", "value"), BAD, ids=[f"{c[0]} {f} {v}" for c, f, v in BAD])
def test_a_number_outside_its_range_is_refused_in_one_line(
    command: list[str], flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, flag, value]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err  # one line, not argparse's usage block
    assert f"argument {flag}:" in err and "(fix: see `surge " in err


def test_limits_refuse_infinite_and_nan_seconds_in_the_library_too() -> None:
    for bad in (math.inf, math.nan):
        with pytest.raises(ValueError, match="finite"):
            PhaseLimits(cpu_s=bad)
        with pytest.raises(ValueError, match="finite"):
            PhaseLimits(wall_s=bad)
