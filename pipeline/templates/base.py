"""What a template is: a script (or snippet) in the repository plus a seeded parameter sampler.

Manual implementation (SURGE section 3.1): sc and tc instances are one script run with a sampled command
line; dr instances are C++ snippets with sampled constants. An instance's randomness comes only from
``instance_rng(seed, subset, index)``, so the same seed gives the same instances, row for row.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pipeline.records import content_id

SCRIPTS_DIR = Path(__file__).parent / "scripts"
SNIPPETS_DIR = Path(__file__).parent / "snippets"

Sampler = Callable[[random.Random], tuple[str, ...]]  # rng -> argv (without the script)
SizedSampler = Callable[[random.Random, int], tuple[str, ...]]  # (rng, size) -> argv
ValueSampler = Callable[[random.Random], str]


class Script(NamedTuple):
    """A library script's sampler: the subset is the folder its file lives in (scripts/<subset>/)."""

    fid: str
    domain: str
    sampler: Sampler
    scale: Scale | None = None  # tc: the size parameter, for time bins


@dataclass(frozen=True)
class Scale:
    """A tc template's size parameter: run time grows with it, so the build picks a size per time bin.

    ``ladder`` holds the sizes a calibration measures, smallest first (pipeline/build/calibrate.py);
    ``growth`` says how to interpolate between them: "power" (time ~ size^k: sorts, DP, graphs in P) or
    "exponential" (time ~ c^size: brute force over permutations or subsets, backtracking). ``exponent``,
    where the algorithm says it (2 for insertion sort over n, 1 for a linear scan), is the k that sizes
    past the ladder are extrapolated with, from its largest point: the slope between the ladder's two
    largest points, each one run on a shared core, was off by up to 0.5 (insertion sort's read 2.43), and
    a tc instance for >= 30 s extrapolates 10-30 times past the ladder's top.
    """

    name: str  # the option it sets, for the rows' parameters
    low: int
    high: int  # the largest size the template takes (memory, argv length)
    ladder: tuple[int, ...]
    argv: SizedSampler
    growth: str = "power"
    quick_high: int = 0  # sizes of an instance drawn without a time target: low..quick_high
    exponent: float | None = None  # power growth past the ladder (None: its last segment's slope)

    def describe(self) -> str:
        """What a calibration's id hashes besides the script: the sizes it measures and how it reads them."""
        past = f":k={self.exponent:g}" if self.exponent is not None else ""
        return f"{self.name}:{self.low}-{self.high}:{self.growth}:{','.join(map(str, self.ladder))}{past}"


@dataclass(frozen=True)
class ScriptTemplate:
    """One Python script with an argparse command line, and how to sample that command line."""

    fid: str  # the script's file name: SURGE's `fid`
    subset: str  # the subset it is a template of (sc or tc): its folder under scripts/
    domain: str  # e.g. "ode", "graph (NP-hard)": the sc/tc prompts open with a domain line
    sampler: Sampler
    origin: str = "library"  # "library" (pipeline/templates/scripts) or "surge-release"
    text: str | None = field(default=None, compare=False)  # inline source (release imports)
    scale: Scale | None = field(default=None, compare=False)  # tc: the size parameter, for time bins

    @property
    def family(self) -> str:
        """The program family a row belongs to: the script's name without '.py'."""
        return self.fid.removesuffix(".py")

    def script(self) -> str:
        if self.text is not None:
            return self.text
        return (SCRIPTS_DIR / self.subset / self.fid).read_text(encoding="utf-8")


@dataclass(frozen=True)
class SnippetTemplate:
    """A C++ snippet with ``@@NAME@@`` holes filled by sampled values (dr)."""

    name: str
    holes: dict[str, ValueSampler]
    note: str  # what makes its output depend on the toolchain (documentation: the matrix decides)
    text: str = field(default="", compare=False)  # the snippet without its header lines
    origin: str = "library"  # "library" (pipeline/templates/snippets) or "surge-release"

    def render(self, rng: random.Random) -> str:
        text = self.text
        for hole in sorted(self.holes):
            text = text.replace(f"@@{hole}@@", self.holes[hole](rng))
        return text


def sized(fid: str, domain: str, scale: Scale) -> Script:
    """A script whose instances can be drawn for a time bin; without one, a size in low..quick_high."""

    def sample(rng: random.Random) -> tuple[str, ...]:
        return scale.argv(rng, rng.randint(scale.low, scale.quick_high or scale.low))

    return Script(fid, domain, sample, scale)


def instance_rng(seed: int, subset: str, index: int) -> random.Random:
    """The one source of randomness for instance `index`: independent of n and of other instances."""
    return random.Random(int(content_id("instance-rng", seed, subset, index), 16))


# -- value samplers (each returns the argument's text) -------------------------------------------------


def integer(low: int, high: int) -> ValueSampler:
    return lambda rng: str(rng.randint(low, high))


def decimal(low: float, high: float, digits: int = 2) -> ValueSampler:
    return lambda rng: f"{rng.uniform(low, high):.{digits}f}"


def choice(*values: str) -> ValueSampler:
    return lambda rng: rng.choice(values)


def int_list(count: tuple[int, int], low: int, high: int, sep: str = ",") -> ValueSampler:
    def sample(rng: random.Random) -> str:
        return sep.join(str(rng.randint(low, high)) for _ in range(rng.randint(*count)))

    return sample


def points(count: tuple[int, int], high: float = 10.0) -> ValueSampler:
    def sample(rng: random.Random) -> str:
        return " ".join(
            f"{rng.uniform(0, high):.2f},{rng.uniform(0, high):.2f}" for _ in range(rng.randint(*count))
        )

    return sample


def word(length: tuple[int, int], alphabet: str = "acgt") -> ValueSampler:
    return lambda rng: "".join(rng.choice(alphabet) for _ in range(rng.randint(*length)))


def matrix(size: tuple[int, int], low: int = -9, high: int = 9) -> ValueSampler:
    def sample(rng: random.Random) -> str:
        n = rng.randint(*size)
        return ";".join(",".join(str(rng.randint(low, high)) for _ in range(n)) for _ in range(n))

    return sample


def options(**values: ValueSampler) -> Sampler:
    """`--name value` pairs in the given order; `max_iter` is written `--max-iter`."""

    def sample(rng: random.Random) -> tuple[str, ...]:
        argv: list[str] = []
        for name, value in values.items():
            flag, text = f"--{name.replace('_', '-')}", value(rng)
            # argparse reads a separate '-3' as an option string: negative values go in '--x=-3' form
            argv += [f"{flag}={text}"] if text.startswith("-") else [flag, text]
        return tuple(argv)

    return sample
