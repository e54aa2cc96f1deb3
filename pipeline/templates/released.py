"""SURGE's own sc/tc scripts as templates, by `fid`: regrow SURGE with fresh parameters.

Each released record gives a script and one command line (read with the sc/tc spec's own parser-aware
argv reading, pipeline/subsets/scripts.py). Records sharing a `fid` share a script; the sampler draws each
option's value from the values seen for it: numbers uniformly between the smallest and largest seen (at
least a range of x0.5..x2 around a single value), anything else as one of the texts seen.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from pipeline.templates.base import Sampler, ScriptTemplate
from sources.surge_release import ReleasedRecord

if TYPE_CHECKING:  # the planner passes the spec's reader in: the specs import the build, which imports this
    from pipeline.subsets.base import ProgramPlan

_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d+\.(\d+)$")


def released_templates(
    records: Iterable[ReleasedRecord], to_program: Callable[[ReleasedRecord], ProgramPlan]
) -> list[ScriptTemplate]:
    """One template per (subset, fid) among records of a script subset (sc, tc), each read by its spec's
    ``to_program`` (pipeline/subsets/scripts.py: the script and the argv its parser takes); records that
    cannot be read are skipped here (the audit reports them with their reason)."""
    scripts_by_fid: dict[tuple[str, str], str] = {}
    argvs: dict[tuple[str, str], list[tuple[str, ...]]] = defaultdict(list)
    for record in records:
        try:
            plan = to_program(record)
        except ValueError:
            continue
        program = plan.program
        fid = str(record.custom_features.get("fid") or program.entry_file.path)
        scripts_by_fid.setdefault((record.subset, fid), program.entry_file.content)
        argvs[(record.subset, fid)].append(program.argv)
    return [
        ScriptTemplate(
            fid, subset, "surge release", _sampler(argvs[(subset, fid)]), origin="surge-release", text=text
        )
        for (subset, fid), text in sorted(scripts_by_fid.items())
    ]


def _sampler(seen: list[tuple[str, ...]]) -> Sampler:
    shapes = {tuple(_shape(argv)) for argv in seen}
    if len(shapes) != 1:  # commands of different shapes: replay one of them as it was
        return lambda rng: rng.choice(seen)
    columns = list(zip(*seen, strict=True))

    def sample(rng: random.Random) -> tuple[str, ...]:
        return tuple(_value(column, rng) for column in columns)

    return sample


def _shape(argv: tuple[str, ...]) -> list[str]:
    return [word if word.startswith("--") else "" for word in argv]


def _value(column: tuple[str, ...], rng: random.Random) -> str:
    if all(_INT.match(v) for v in column):
        low, high = _range([int(v) for v in column])
        return str(rng.randint(int(low), int(high)))
    if all(_INT.match(v) or _FLOAT.match(v) for v in column):
        digits = (
            max(len(m.group(1)) for v in column if (m := _FLOAT.match(v)))
            if any(_FLOAT.match(v) for v in column)
            else 2
        )
        low, high = _range([float(v) for v in column])
        return f"{rng.uniform(low, high):.{digits}f}"
    return rng.choice(column)


def _range(values: list[float] | list[int]) -> tuple[float, float]:
    low, high = min(values), max(values)
    if low == high:
        low, high = (high * 2, low / 2) if low < 0 else (low / 2, high * 2)
        if isinstance(values[0], int):
            low, high = int(low), max(int(low), int(high))
    return low, high
