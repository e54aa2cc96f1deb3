"""Failures of ours during `surge build` (pipeline/build/failures.py): a missing toolchain, a missing Docker
image, a build killed with SIGKILL. None is ever an item's outcome; the command exits non-zero with the
fix, and the next run builds the same dataset, row for row, as a build that never met the failure."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from subprocess import Popen

import pytest

from pipeline.build import steps
from pipeline.build.records import OUTCOME_TABLE, BuildConfig, BuildOutcome, outcome_table
from pipeline.cli import main
from pipeline.dataset import read_rows
from pipeline.store import Store
from sandboxes.profiles import PROFILES
from tests.soak import SOAK_ROUNDS
from tests.surge_process import without_progress

REPO = Path(__file__).resolve().parents[2]
MISSING_PYTHON = "python3-not-installed-here"
# kill -9 rounds: 1 in `make test`, more in `make soak` (SURGE_SOAK_ROUNDS=N); each round kills twice
KILLS_PER_ROUND = 2
KILL_N = 12  # rows: 6 batches of 2, a few seconds of work to land the kills in


def content(root: Path, subset: str = "sc") -> list[tuple]:
    """A dataset row for row, without what is measured anew on every run: sc's CPU time and the bin it
    falls in (a 0.1 s program lands on either side of the bin edge on a loaded machine)."""
    rows = read_rows(Store(root), {subset})
    measured = {"time", "time_bin"}
    features = [{k: v for k, v in r.custom_features.items() if k not in measured} for r in rows]
    return [(r.upstream.key, r.question, r.gt, f) for r, f in zip(rows, features, strict=True)]


def broken_default_profile() -> object:
    """The default profile, but its Python is an executable this machine does not have."""
    return PROFILES["default"].model_copy(update={"toolchains": {"python3": MISSING_PYTHON}})


@pytest.mark.slow
def test_a_missing_toolchain_records_nothing_exits_1_with_the_fix_and_the_rerun_fills_its_place(
    tmp_path, capsys, monkeypatch, require_bwrap
) -> None:
    args = ["build", "sc", "--n", "3", "--seed", "5", "--batch-size", "3"]
    with monkeypatch.context() as patch:
        patch.setitem(PROFILES, "default", broken_default_profile())
        assert main([*args, "--store", str(tmp_path / "a")]) == 1
    err = without_progress(capsys.readouterr().err)
    assert len(err) == 1 and MISSING_PYTHON in err[0] and "run the same command again" in err[0]
    assert list(outcome_table(Store(tmp_path / "a")).records()) == []  # not the items' outcome
    assert list(Store(tmp_path / "a").runs.records()) == []  # nor a program's run
    assert read_rows(Store(tmp_path / "a"), {"sc"}) == []

    assert main([*args, "--store", str(tmp_path / "a")]) == 0  # the toolchain is back
    assert main([*args, "--store", str(tmp_path / "b")]) == 0  # never broken
    assert content(tmp_path / "a") == content(tmp_path / "b") and len(content(tmp_path / "a")) == 3
    assert [o.index for o in outcome_table(Store(tmp_path / "a")).records()] == [0, 1, 2]


@pytest.mark.slow
def test_an_outcome_recorded_for_a_failure_of_ours_by_an_older_version_is_retried(tmp_path, require_bwrap):
    store = Store(tmp_path)
    config = BuildConfig(subset="sc", seed=2, batch_size=2)
    steps.plan_round(store, config, 0, 2)
    from pipeline.build.plan import read_batch

    first = read_batch(store, config.build_key, 0)[0]
    legacy = BuildOutcome(
        build_key=config.build_key,
        subset="sc",
        item_id=first.item_id,
        index=first.index,
        status="dropped",
        reason="toolchain_missing: image surge/python:bookworm is not built",
    )
    table = outcome_table(store)
    table.append([legacy])
    table.flush()
    assert len(list(outcome_table(store).records())) == 1
    assert steps.build_batch(store, config, 0)["kept"] == 2  # the legacy drop is read as no outcome
    assert steps.summary(store, config)["drop_reasons"] == {}


@pytest.mark.slow
def test_rows_after_the_first_item_a_failure_of_ours_left_undone_wait_for_the_rerun(tmp_path, require_bwrap):
    """Item 1 undone: rows of items 2.. could be pushed out of the first n once it is built, and the
    dataset table only grows, so only item 0's row is written now."""
    store = Store(tmp_path)
    config = BuildConfig(subset="sc", seed=6, batch_size=3)
    steps.plan_round(store, config, 0, 3)
    assert steps.build_batch(store, config, 0)["kept"] == 3
    assert steps.write_dataset(store, config, 3, before=1) == 1
    assert [row.upstream.key for row in read_rows(store, {"sc"})] == ["sc-s6-00000"]


# -- Docker: an image that is not there -----------------------------------------------------------


def _docker(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=120)


def _surge(
    store: Path, n: int, *extra: str, subset: str = "sc", env: dict[str, str] | None = None, **popen: object
) -> Popen:
    """A real `surge build` process (seed 4), as a user starts it."""
    args = ["build", subset, "--n", str(n), "--seed", "4", "--store", str(store), *extra]
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "pipeline.cli", *args],  # the `surge` executable's own entry
        cwd=REPO,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.parametrize("soak_round", range(SOAK_ROUNDS))
def test_a_docker_image_missing_records_nothing_and_once_built_the_rerun_gives_the_same_rows(
    tmp_path, soak_round, require_docker
) -> None:
    """pyver runs every item under two images; one of them is not built yet (a throwaway copy's name)."""
    from tests.docker.conftest import image_present

    present, later = "python:bookworm", "python:bullseye"
    for tag in (present, later):
        if not image_present(f"surge/{tag}"):
            pytest.skip(f"needs the image surge/{tag} (make images)")
    repository = f"surge-fault-{os.getpid()}"  # a throwaway name: the real images are never touched
    env = {"SURGE_IMAGE_REPOSITORY": repository}
    build = ("--batch-size", "5")
    assert not image_present(f"{repository}/{later}")

    def pyver(store: Path) -> Popen:
        return _surge(store, 4, *build, subset="pyver", env=env)

    try:
        assert _docker("tag", f"surge/{present}", f"{repository}/{present}").returncode == 0
        missing = pyver(tmp_path / "a")
        out, err = missing.communicate(timeout=300)
        assert missing.returncode == 1, (out, err)
        assert len(without_progress(err)) == 1
        assert f"image {repository}/{later} is not built" in err and "(fix: build the images" in err
        assert list(outcome_table(Store(tmp_path / "a")).records()) == []  # not the items' outcome
        assert read_rows(Store(tmp_path / "a"), {"pyver"}) == []
        assert _docker("tag", f"surge/{later}", f"{repository}/{later}").returncode == 0  # built now
        rerun = pyver(tmp_path / "a")
        assert rerun.wait(timeout=300) == 0, rerun.communicate()
        whole = pyver(tmp_path / "b")
        assert whole.wait(timeout=300) == 0, whole.communicate()
    finally:
        _docker("rmi", f"{repository}/{present}", f"{repository}/{later}")
    assert content(tmp_path / "a", "pyver") == content(tmp_path / "b", "pyver")
    assert len(content(tmp_path / "a", "pyver")) == 4
    # the 4 items 4 rows need, not a whole batch of 5
    assert [o.index for o in outcome_table(Store(tmp_path / "a")).records()] == list(range(4))


# -- kill -9 at seeded points -----------------------------------------------------------------------


def _kill_points(round_: int) -> list[tuple[int, float]]:
    """(outcome parts to wait for, then seconds more): seeded, so a failing round can be replayed."""
    rng = random.Random(f"build-kill-{round_}")
    # At most half the batches' parts, then less than a batch's time (~0.5 s here): a point past the
    # build's end tests nothing (round 3 of the soak waited for 4 of 6 parts, then 1.3 s, and missed).
    return [(rng.randint(0, KILL_N // 4), rng.uniform(0.0, 0.3)) for _ in range(KILLS_PER_ROUND)]


def _kill_at(store: Path, parts: int, delay_s: float) -> bool:
    """Start the build, kill -9 it at the point; True if it was still running to be killed."""
    process = _surge(store, KILL_N, "--batch-size", "2", start_new_session=True)
    deadline = time.monotonic() + 300
    while len(list((store / OUTCOME_TABLE).glob("part-*.parquet"))) < parts:
        if process.poll() is not None or time.monotonic() > deadline:
            break  # finished before this point: the rerun then has nothing left, which is fine too
        time.sleep(0.05)
    time.sleep(delay_s)
    running = process.poll() is None
    if running:
        os.killpg(process.pid, signal.SIGKILL)  # the command and the local API it started
    process.communicate(timeout=60)
    return running


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.parametrize("round_", range(SOAK_ROUNDS))
def test_kill_9_at_seeded_points_then_store_check_passes_and_the_rerun_gives_the_same_rows(
    tmp_path, round_, require_bwrap
) -> None:
    killed = tmp_path / "killed"
    landed = []
    for parts, delay_s in _kill_points(round_):
        landed.append(_kill_at(killed, parts, delay_s))
        assert _store_check(killed) == _store_check_expected(killed), f"store check after {parts}, {delay_s}"
    assert landed[0], "the first kill came after the build had finished: nothing was tested"
    rerun = _surge(killed, KILL_N, "--batch-size", "2")
    assert rerun.wait(timeout=300) == 0, rerun.communicate()
    whole = _surge(tmp_path / "whole", KILL_N, "--batch-size", "2")
    assert whole.wait(timeout=300) == 0, whole.communicate()
    assert content(killed) == content(tmp_path / "whole") and len(content(killed)) == KILL_N
    decided = [o.item_id for o in steps.outcomes(Store(killed), _config_key()).values()]
    assert len(decided) == len(set(decided))
    assert main(["store", "check", "--store", str(killed)]) == 0


def _store_check(store: Path) -> int:
    return main(["store", "check", "--store", str(store)])


def _store_check_expected(store: Path) -> int:
    """0; but a build killed before it wrote any part left no store, and the check says so (exit 2)."""
    return 0 if any(store.rglob("part-*.parquet")) else 2


def _config_key() -> str:
    return BuildConfig(subset="sc", seed=4, batch_size=2).build_key
