"""`surge build sc --n 3` plans and runs 3 items, not a whole default batch of 16; dr about one item for
two rows."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pipeline.build import dr, steps
from pipeline.build.failures import Built
from pipeline.build.manual import _outcome
from pipeline.build.plan import snippet_item
from pipeline.build.records import BuildConfig, BuildItem, outcome_table
from pipeline.build.rows import row
from pipeline.cli import main
from pipeline.dataset import RunRef, read_rows
from pipeline.store import Store
from pipeline.subsets import REGISTRY
from pipeline.subsets.base import SubsetSpec
from pipeline.templates import library_snippets


def test_a_small_build_plans_only_the_items_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    code = main(["build", "sc", "--n", "3", "--store", str(tmp_path / "store"), "--json"])
    built = json.loads(capsys.readouterr().out)["built"]["sc"]
    assert code == 0 and built["rows"] == 3
    assert built["planned_items"] == 3 and built["items"] == 3


def test_build_refuses_a_second_profile_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["build", "sc", "--n", "3", "--store", str(tmp_path / "store"), "--profile", "default"]
    code = main([*argv, "--profile", "surge-bg"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "takes one --profile, not 2" in err
    assert not (tmp_path / "store").exists()  # refused before any work


def test_recorded_responses_are_said_once_and_more_items_planned_are_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, require_bwrap: None
) -> None:
    """ml with no endpoint: one line says the recorded responses answer and how to set an endpoint; the
    line of the subset says why it planned more items than rows."""
    for name in ("SURGE_LLM_BASE_URL", "SURGE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    code = main(["build", "ml", "--n", "1", "--auto-approve", "--store", str(tmp_path / "store")])
    out = capsys.readouterr().out
    assert code == 0, out
    notices = [line for line in out.splitlines() if "recorded responses in pipeline/build/recorded/" in line]
    assert len(notices) == 1 and notices[0].startswith("ml: no LLM endpoint is set")
    assert out.count("SURGE_LLM_BASE_URL") == 1  # the fix, once
    assert re.search(r"\(planned 16 for 1 rows, in whole batches of 16 items", out)


def _two_labels_a_snippet(
    spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]
) -> Built:
    """dr's build step without a compiler: four labels a snippet, of which dr's own seeded draw keeps
    its rows (two, or one for about a tenth), so an item gives what a real snippet gives."""
    outcomes, rows = [], []
    for item in items:
        first_key = {f"label {key}": key for key in dr.KEYS[:4]}
        made = [
            row(spec, item, config.seed, item.program().files[0].content, label, {"key": key}, FAKE_RUN)
            for label, key in dr.chosen_labels(first_key, config.seed, str(item.index))
        ]
        outcomes.append(_outcome(config, item, "kept", "", tuple(r.row_id for r in made), ()))
        rows += made
    return outcomes, rows, []


FAKE_RUN = RunRef(run_id="not-run", profile="surge-dr", backend="bwrap", repeats=2)


def test_dr_plans_about_one_item_for_two_rows_and_a_larger_n_extends_the_same_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, require_bwrap: None
) -> None:
    """One item per wanted row built a third of dr's items for nothing (a snippet gives about 1.9 rows):
    the first round plans n / 1.9 items, no whole last batch; a rerun builds nothing, and a larger n
    extends the same sequence, its first rows the smaller build's."""
    faked = dataclasses.replace(REGISTRY["dr"], build_batch=_two_labels_a_snippet)
    monkeypatch.setitem(REGISTRY, "dr", faked)
    store = str(tmp_path / "store")

    def build(n: int) -> dict[str, Any]:
        assert main(["build", "dr", "--n", str(n), "--seed", "7", "--store", store, "--json"]) == 0
        return json.loads(capsys.readouterr().out)["built"]["dr"]

    # ceil(40 / 1.9) = 22 items, not two whole batches of 16; they give a few rows short of 40 (some
    # give one), and a second round plans the 2 items the rows per item measured say the rest needs
    built = build(40)
    assert (built["rows"], built["planned_items"], built["items"]) == (40, 24, 24)
    first = [(r.upstream.key, r.gt) for r in read_rows(Store(store), {"dr"})]
    assert build(40)["items"] == 24  # the rerun plans the same items and builds none of them again
    built = build(80)  # ceil(80 / 1.9) = 43 items, of which the first 24 are built already; then 2 more
    assert (built["rows"], built["planned_items"], built["items"]) == (80, 45, 45)
    indexes = [o.index for o in outcome_table(Store(store)).records()]
    assert sorted(indexes) == list(range(45))  # nothing built twice
    assert [(r.upstream.key, r.gt) for r in read_rows(Store(store), {"dr"})][:40] == first


def test_a_later_round_plans_from_the_rows_per_item_measured(tmp_path: Path) -> None:
    """A round after the first divides the rows still wanted by the rows kept items gave so far."""
    store = Store(tmp_path)
    config = BuildConfig(subset="dr", seed=7, batch_size=4)
    assert steps.round_size(store, config, 40, 0, 160) == 22  # ceil(40 / 1.9), no whole last batch
    items = [snippet_item(config, library_snippets(), index) for index in range(8)]
    table = outcome_table(store)  # 8 items kept 10 rows: 1.25 an item, 30 rows to go -> 24 items
    rows = [("a", "b"), ("c", "d")] + [("e",)] * 6
    table.append(_outcome(config, item, "kept", "", ids, ()) for item, ids in zip(items, rows, strict=True))
    table.flush()
    assert steps.round_size(store, config, 40, 24, 160) == 24
    assert steps.round_size(store, config, 40, 24, 30) == 6  # never past the most a build may plan
