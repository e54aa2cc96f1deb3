"""tc's spread by design: a target mix of time bins, the bin each instance is drawn for, and its size.

SURGE's tc is the subset whose point is run time across orders of magnitude. Its release times 47 of its
150 records (all of them brute-force TSP): < 0.1 s 17, 0.1-1 s 0, 1-10 s 10, 10-30 s 10, >= 30 s 10 (the
longest about 146 s); the other 103 have ``time: null`` and are small inputs (binary search over a
hundred numbers, KMP over a few hundred characters, 10x10 matrices) that run well under 0.1 s. So the
default mix counts them in the first bin: 120 / 0 / 10 / 10 / 10 per 150 rows.

Instance ``i`` is drawn for ``bin_sequence(mix)[i]``: a sequence in which every prefix holds each bin's
share as closely as whole items allow, so a larger ``--n`` extends a build and a build of 150 plans
exactly the target counts. Within the bin, the templates that a calibration (calibrate.py) says can
reach it take turns, and each instance's size is solved from the template's measured times for a CPU
time drawn inside the bin (``AIM_S``, with a margin for the calibration's error). The measured run, not
this plan, decides the bin a row lands in.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence

from pipeline.errors import ConfigurationError

# (upper bound in CPU seconds, name); the last bin has no upper bound
TIME_BINS_S: tuple[tuple[float, str], ...] = (
    (0.1, "<0.1s"),
    (1.0, "0.1-1s"),
    (10.0, "1-10s"),
    (30.0, "10-30s"),
    (math.inf, ">=30s"),
)
BIN_NAMES = tuple(name for _, name in TIME_BINS_S)
SURGE_MIX = "<0.1s=120,0.1-1s=0,1-10s=10,10-30s=10,>=30s=10"
# What an instance aims at inside its bin: away from the edges, since a calibration's extrapolation and
# a shared machine's timing are off by tens of percent.
AIM_S: dict[str, tuple[float, float]] = {
    "<0.1s": (0.0, 0.05),
    "0.1-1s": (0.2, 0.6),
    "1-10s": (1.6, 6.0),
    "10-30s": (13.0, 22.0),
    ">=30s": (36.0, 50.0),
}
Mix = tuple[tuple[str, float], ...]


def time_bin(cpu_s: float) -> str:
    return next(name for upper, name in TIME_BINS_S if cpu_s < upper)


def bin_bounds(name: str) -> tuple[float, float]:
    lower = 0.0
    for upper, bin_name in TIME_BINS_S:
        if bin_name == name:
            return lower, upper
        lower = upper
    raise KeyError(name)


def parse_mix(text: str) -> Mix:
    """'surge' or 'BIN=WEIGHT,...' (weights, not counts: scaled to --n) -> the mix in bin order."""
    spec = SURGE_MIX if text.strip().lower() == "surge" else text
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, value = part.rpartition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if name.strip() not in BIN_NAMES or weight < 0 or not math.isfinite(weight):
            raise ConfigurationError(
                f"--time-mix: {part!r} is not BIN=WEIGHT",
                hint=f"bins: {', '.join(BIN_NAMES)}; e.g. --time-mix '{SURGE_MIX}' (or 'surge')",
            )
        weights[name.strip()] = weight
    if sum(weights.values()) <= 0:
        raise ConfigurationError("--time-mix gives every bin a weight of 0", hint=f"e.g. '{SURGE_MIX}'")
    return tuple((name, weights.get(name, 0.0)) for name in BIN_NAMES)


def mix_text(mix: Mix) -> str:
    return ",".join(f"{name}={weight:g}" for name, weight in mix)


def tally(bins: Iterable[str], mix: Mix, n: int) -> dict[str, dict[str, int]]:
    """{bin: {target, built}} for n rows whose measured bins are ``bins``."""
    built = Counter(bins)
    return {name: {"target": count, "built": built.get(name, 0)} for name, count in targets(mix, n).items()}


def spread_line(spread: dict[str, dict[str, int]]) -> str:
    """'time bins (built/target): <0.1s 118/120, ...; off by at most 2 rows'."""
    cells = [f"{name} {row['built']}/{row['target']}" for name, row in spread.items()]
    off = max(abs(row["built"] - row["target"]) for row in spread.values())
    return f"time bins (built/target): {', '.join(cells)}; off by at most {off} rows"


def targets(mix: Mix, n: int) -> dict[str, int]:
    """Rows per bin for n rows: the bins the first n instances are drawn for (they sum to n)."""
    planned = Counter(bin_sequence(mix, n))
    return {name: planned.get(name, 0) for name in BIN_NAMES}


def bin_sequence(mix: Mix, count: int) -> list[str]:
    """The bin of each of the first ``count`` instances; the same prefix whatever ``count`` is."""
    total = sum(weight for _, weight in mix)
    placed = [0] * len(mix)
    sequence = []
    for i in range(count):
        # the bin furthest behind its share after i+1 items (ties: the first in bin order)
        deficits = [weight / total * (i + 1) - placed[k] for k, (_, weight) in enumerate(mix)]
        chosen = max(range(len(mix)), key=lambda k: (deficits[k], -k))
        placed[chosen] += 1
        sequence.append(mix[chosen][0])
    return sequence


# -- a template's run time against its size, from the calibration's points ----------------------------

STARTUP_S = 0.05  # below this the interpreter's start-up dominates: such points say little about growth


def _base(points: Sequence[tuple[int, float]]) -> float:
    """The start-up cost every size pays (most of the smallest time), taken off before reading growth."""
    return 0.9 * min(seconds for _, seconds in points)


def _axes(points: Sequence[tuple[int, float]], growth: str) -> list[tuple[float, float]]:
    """(x, log of the time past start-up) with x = log size (power growth) or size (exponential), the
    times made non-decreasing; points still dominated by start-up are left out when enough remain."""
    base, found, highest = _base(points), [], 0.0
    for size, seconds in sorted(points):
        highest = max(highest, seconds)
        found.append(
            (math.log(size) if growth == "power" else float(size), math.log(max(highest - base, 1e-4)))
        )
    useful = [p for p in found if p[1] > math.log(STARTUP_S)]
    return useful if len(useful) >= 2 else found[-2:]


def predict_s(
    points: Sequence[tuple[int, float]], growth: str, size: int, exponent: float | None = None
) -> float:
    """CPU seconds a size should take: piecewise interpolation, the end segments extrapolated; past the
    largest point as size^exponent where the template gives one (templates/base.py, Scale)."""
    if exponent is not None and size > (top := _top(points))[0]:
        base = _base(points)
        return base + (top[1] - base) * (size / top[0]) ** exponent
    axes = _axes(points, growth)
    x = math.log(size) if growth == "power" else float(size)
    floor = min(seconds for _, seconds in points)
    if len(axes) < 2:
        return floor
    (x0, y0), (x1, y1) = _segment(axes, x, 0)
    slope = (y1 - y0) / (x1 - x0) if x1 != x0 else 0.0
    return max(floor, _base(points) + math.exp(y0 + slope * (x - x0)))


def size_for(
    points: Sequence[tuple[int, float]],
    growth: str,
    seconds: float,
    low: int,
    high: int,
    exponent: float | None = None,
) -> int:
    """The whole size, within [low, high], whose predicted time is nearest ``seconds`` (in ratio)."""
    axes = _axes(points, growth)
    if len(axes) < 2 or seconds <= min(s for _, s in points):
        return low
    past = _past_the_ladder(points, seconds, exponent)
    exact = past if past is not None else _between_points(points, axes, growth, seconds)
    candidates = {max(low, min(high, math.floor(exact))), max(low, min(high, math.ceil(exact)))}
    return min(
        sorted(candidates),
        key=lambda size: abs(math.log(predict_s(points, growth, size, exponent) / seconds)),
    )


def _past_the_ladder(
    points: Sequence[tuple[int, float]], seconds: float, exponent: float | None
) -> float | None:
    """The size taking ``seconds`` past the largest point, as size^exponent; None within the points or
    without an exponent."""
    if exponent is None or seconds <= (top := _top(points))[1]:
        return None
    base = _base(points)
    return top[0] * ((seconds - base) / (top[1] - base)) ** (1 / exponent)


def _top(points: Sequence[tuple[int, float]]) -> tuple[int, float]:
    """(largest size, longest time): where a declared exponent extrapolates from."""
    return max(size for size, _ in points), max(seconds for _, seconds in points)


def _between_points(
    points: Sequence[tuple[int, float]], axes: list[tuple[float, float]], growth: str, seconds: float
) -> float:
    """The size taking ``seconds`` on the piecewise line through the points (its end segments extended)."""
    y = math.log(max(seconds - _base(points), 1e-4))
    (x0, y0), (x1, y1) = _segment(axes, y, 1)
    x = x0 if y1 == y0 else x0 + (y - y0) * (x1 - x0) / (y1 - y0)
    return math.exp(x) if growth == "power" else x


def _segment(axes: list[tuple[float, float]], value: float, coordinate: int) -> tuple:
    """The two neighbouring points around ``value`` on one coordinate; the end pair outside the range."""
    for left, right in zip(axes, axes[1:], strict=False):
        if value <= right[coordinate]:
            return left, right
    return axes[-2], axes[-1]


def draw_size(
    points: Sequence[tuple[int, float]],
    growth: str,
    low: int,
    high: int,
    name: str,
    rng: random.Random,
    exponent: float | None = None,
) -> int:
    """A size for an instance of the bin: solved for a CPU time drawn log-uniformly in the bin's aim
    window; in the first bin, any size up to the one predicted at the window's top (log-uniform), so
    quick rows are not all the smallest instance."""
    aim_low, aim_high = AIM_S[name]
    if aim_low <= 0:
        top = max(low, size_for(points, growth, aim_high, low, high, exponent))
        return max(low, min(top, round(math.exp(rng.uniform(math.log(low), math.log(top))))))
    seconds = math.exp(rng.uniform(math.log(aim_low), math.log(aim_high)))
    return size_for(points, growth, seconds, low, high, exponent)


def reaches(
    points: Sequence[tuple[int, float]],
    growth: str,
    low: int,
    high: int,
    name: str,
    exponent: float | None = None,
) -> bool:
    """Whether the template can land in the bin: the size solved for the middle of the bin's aim window
    is predicted inside the bin (whole sizes of exponential templates jump over some bins)."""
    aim_low, aim_high = AIM_S[name]
    middle = aim_high / 2 if aim_low <= 0 else math.sqrt(aim_low * aim_high)
    size = size_for(points, growth, middle, low, high, exponent)
    lower, upper = bin_bounds(name)
    return lower <= predict_s(points, growth, size, exponent) < upper
