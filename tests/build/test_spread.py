"""tc's spread by design: the bin mix, the calibration (a fake clock stands in for the sandbox, so these
stay fast), sizes that land in their bins, and the spread counted against its target."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pytest

from pipeline.build import calibrate, spread
from pipeline.build.plan import spread_items
from pipeline.build.records import BuildConfig
from pipeline.errors import ConfigurationError, SandboxUnavailable
from pipeline.records import RunRequest, RunResult, Verdict
from pipeline.store import Store
from pipeline.templates.base import Scale, ScriptTemplate
from tests.factories import make_result

STARTUP_S = 0.03


def power_clock(size: int) -> float:  # an n^2 script: 1 s at size 1000
    return STARTUP_S + 1e-6 * size**2


def exp_clock(size: int) -> float:  # brute force over subsets: doubles per element, 1 s at size 20
    return STARTUP_S + 2.0 ** (size - 20)


def steep_clock(size: int) -> float:  # x20 per step: whole sizes jump over a whole bin
    return STARTUP_S + 20.0 ** (size - 10)


CLOCKS = {"square.py": power_clock, "subsets.py": exp_clock, "steep.py": steep_clock}


def _template(fid: str, low: int, high: int, ladder: tuple[int, ...], growth: str) -> ScriptTemplate:
    scale = Scale(
        "n", low, high, ladder, lambda rng, size: ("--n", str(size), "--seed", str(rng.randint(0, 9))), growth
    )
    return ScriptTemplate(fid, "tc", "test", lambda rng: ("--n", str(low)), scale=scale, text=f"# {fid}\n")


TEMPLATES = (
    _template("square.py", 10, 20000, (100, 300, 1000, 3000, 10000), "power"),
    _template("subsets.py", 5, 30, (10, 14, 18, 21), "exponential"),
    _template("steep.py", 5, 13, (7, 8, 9, 10, 11), "exponential"),
)


def size_of(request: RunRequest) -> int:
    argv = request.program.argv
    return int(argv[argv.index("--n") + 1])


class FakeSandbox:
    """execute() for calibration runs: CPU time from the template's clock, nothing started."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(
        self, store: Store, requests: list[RunRequest], *args: object, **kwargs: object
    ) -> list[RunResult]:
        results = []
        for request in requests:
            self.runs += 1
            seconds = CLOCKS[request.program.entry_file.path](size_of(request))
            result = make_result(request.program.entry_file.path, "ok\n")
            assert result.run is not None
            timed = result.run.model_copy(update={"cpu_user_s": seconds, "cpu_sys_s": 0.0})
            results.append(result.model_copy(update={"run": timed}))
        return results


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> FakeSandbox:
    fake = FakeSandbox()
    monkeypatch.setattr(calibrate, "execute", fake)
    monkeypatch.setattr(calibrate, "probe", lambda template, config: ("test", "python-3.11"))
    return fake


def calibrated(store: Store, mix: str = "surge") -> BuildConfig:
    return calibrate.calibrated(store, BuildConfig(subset="tc", seed=3, time_mix=mix), TEMPLATES)


def stored(store: Store) -> dict[str, calibrate.Calibration]:
    return {c.template: c for c in calibrate.calibration_table(store).records()}


# -- the mix ----------------------------------------------------------------------------------------


def test_surge_mix_is_the_release_per_150_rows_and_a_mix_round_trips() -> None:
    mix = spread.parse_mix("surge")
    assert spread.targets(mix, 150) == {"<0.1s": 120, "0.1-1s": 0, "1-10s": 10, "10-30s": 10, ">=30s": 10}
    assert spread.parse_mix(spread.mix_text(mix)) == mix
    assert sum(spread.targets(mix, 37).values()) == 37


@pytest.mark.parametrize("text", ["<0.1s=-1", "fast=3", "<0.1s=x", "<0.1s=0,1-10s=0"])
def test_a_bad_mix_is_refused_with_the_bins_named(text: str) -> None:
    with pytest.raises(ConfigurationError) as error:
        spread.parse_mix(text)
    assert "<0.1s" in (error.value.hint or "") or "0" in str(error.value)


def test_the_bin_sequence_plans_the_targets_exactly_and_a_prefix_does_not_depend_on_n() -> None:
    mix = spread.parse_mix("surge")
    assert Counter(spread.bin_sequence(mix, 150)) == {k: v for k, v in spread.targets(mix, 150).items() if v}
    assert spread.bin_sequence(mix, 40) == spread.bin_sequence(mix, 150)[:40]
    first = spread.bin_sequence(mix, 15)
    assert ">=30s" in first and "1-10s" in first  # the long bins are spread through the build, not at its end


def test_the_spread_is_counted_against_its_target() -> None:
    mix = spread.parse_mix("<0.1s=2,1-10s=1,10-30s=1")
    counted = spread.tally(["<0.1s", "<0.1s", "1-10s", "0.1-1s"], mix, 4)
    assert counted["<0.1s"] == {"target": 2, "built": 2}
    assert counted["0.1-1s"] == {"target": 0, "built": 1}
    assert counted["10-30s"] == {"target": 1, "built": 0}
    assert spread.spread_line(counted).endswith("off by at most 1 rows")


def test_time_bins_have_the_release_bounds() -> None:
    assert [spread.time_bin(s) for s in (0.05, 0.1, 9.99, 10.0, 30.0, 146.0)] == [
        "<0.1s",
        "0.1-1s",
        "1-10s",
        "10-30s",
        ">=30s",
        ">=30s",
    ]


# -- sizes from measured times ---------------------------------------------------------------------


@pytest.mark.parametrize("fid", ["square.py", "subsets.py"])
def test_a_size_solved_from_the_points_lands_in_its_bin(fid: str) -> None:
    template = next(t for t in TEMPLATES if t.fid == fid)
    scale = template.scale
    assert scale is not None
    points = [(size, CLOCKS[fid](size)) for size in scale.ladder]
    for name in ("<0.1s", "0.1-1s", "1-10s", "10-30s", ">=30s"):
        assert spread.reaches(points, scale.growth, scale.low, scale.high, name), (fid, name)
        for seed in range(5):
            size = spread.draw_size(points, scale.growth, scale.low, scale.high, name, random.Random(seed))
            assert spread.time_bin(CLOCKS[fid](size)) == name, (fid, name, size)


def test_whole_sizes_that_jump_over_a_bin_do_not_claim_it() -> None:
    points = [(size, steep_clock(size)) for size in (7, 8, 9, 10)]
    # size 10 takes ~1 s, size 11 ~20 s, size 12 ~400 s: 1-10 s and >=30 s not reachable, 10-30 s is
    assert spread.reaches(points, "exponential", 5, 13, "10-30s")
    assert not spread.reaches(points, "exponential", 5, 13, "1-10s") or steep_clock(10) >= 1.0
    assert not spread.reaches(points, "exponential", 5, 11, ">=30s")


# -- calibration, stored ---------------------------------------------------------------------------


def test_calibration_stops_past_its_budget_and_is_reused(tmp_path: Path, sandbox: FakeSandbox) -> None:
    store = Store(tmp_path)
    config = calibrated(store)
    found = stored(store)
    square = found["square.py"]
    # 1000 took 1.03 s, under the budget; 3000 took 9 s: 10000 (100 s) is never run
    assert (
        square.sizes == (100, 300, 1000, 3000)
        and square.stopped == f"past {calibrate.BUDGET_S} s at size 3000"
    )
    assert found["subsets.py"].sizes == (10, 14, 18, 21) and found["subsets.py"].stopped == ""
    assert found["steep.py"].cpu_s[-1] == pytest.approx(steep_clock(11))
    runs = sandbox.runs
    again = calibrated(store)
    assert sandbox.runs == runs  # a rerun measures nothing
    assert again.calibration == config.calibration and again.build_key == config.build_key
    assert again.calibration_times == config.calibration_times
    assert {t.template: t.sizes for t in config.calibration_times}["square.py"] == square.sizes


def test_a_changed_script_or_toolchain_is_calibrated_again(
    tmp_path: Path, sandbox: FakeSandbox, monkeypatch
) -> None:
    store = Store(tmp_path)
    first = calibrated(store)
    monkeypatch.setattr(calibrate, "probe", lambda template, config: ("test", "python-3.12"))
    runs = sandbox.runs
    second = calibrated(store)
    assert sandbox.runs > runs and second.calibration != first.calibration
    assert second.build_key != first.build_key  # the plan it makes is another build's


def test_a_calibration_the_sandbox_could_not_run_is_ours(tmp_path: Path, monkeypatch) -> None:
    def broken(store: Store, requests: list[RunRequest], *args: object, **kwargs: object) -> list[RunResult]:
        return [make_result("x", "", Verdict.SANDBOX_ERROR) for _ in requests]

    monkeypatch.setattr(calibrate, "execute", broken)
    monkeypatch.setattr(calibrate, "probe", lambda template, config: ("test", "python-3.11"))
    store = Store(tmp_path)
    with pytest.raises(SandboxUnavailable, match="tc calibration"):
        calibrated(store)
    assert not calibrate.calibration_table(store).part_files()  # nothing stored: the rerun measures


def test_planned_instances_fill_the_mix_and_land_in_their_bins(tmp_path: Path, sandbox: FakeSandbox) -> None:
    store = Store(tmp_path)
    config = calibrated(store, "<0.1s=2,0.1-1s=1,1-10s=1,10-30s=1,>=30s=1")
    items = spread_items(config, TEMPLATES, 0, 30)
    assert items is not None
    landed = Counter()
    for item in items:
        program = item.program()
        target = program.origin["target_bin"]
        seconds = CLOCKS[program.entry_file.path](size_of(RunRequest.model_construct(program=program)))
        landed[(target, spread.time_bin(seconds))] += 1
    assert sum(n for (target, bin_), n in landed.items() if target == bin_) == 30, landed
    assert Counter(item.program().origin["target_bin"] for item in items)["<0.1s"] == 10
    # the same seed plans the same programs; a longer plan extends it
    again = spread_items(config, TEMPLATES, 0, 40)
    assert again is not None and [i.item_id for i in again[:30]] == [i.item_id for i in items]
    assert math.isfinite(len({i.template for i in items}))
    assert {i.template for i in items} == {"square.py", "subsets.py", "steep.py"}


def test_a_declared_exponent_carries_a_noisy_top_point_into_the_longest_bin() -> None:
    """The ladder's largest point ran 15% slow (another program on the other core): its last segment
    reads n^2.13 for an n^2 script, and sizes extrapolated with that slope for >= 30 s land below the bin.
    With the template's exponent (2), every size drawn for the bin lands in it."""
    ladder = (100, 300, 1000, 3000)
    points = [(size, power_clock(size) * (1.15 if size == 3000 else 1.0)) for size in ladder]

    def landed(exponent: float | None) -> list[str]:
        draws = [random.Random(seed) for seed in range(20)]
        sizes = [spread.draw_size(points, "power", 10, 20000, ">=30s", rng, exponent) for rng in draws]
        return [spread.time_bin(power_clock(size)) for size in sizes]

    assert set(landed(2.0)) == {">=30s"}
    assert "10-30s" in landed(None)
    # within the ladder the points decide, exponent or not
    assert spread.predict_s(points, "power", 500, 2.0) == spread.predict_s(points, "power", 500)
