"""`surge build` on the command line: real flow, real sandbox; unbuilt methods reported, not faked."""

from __future__ import annotations

import json

import pytest

from pipeline.cli import main
from pipeline.dataset import read_rows
from pipeline.store import Store


def test_a_subset_with_no_builder_is_named_and_exits_non_zero(tmp_path, capsys, monkeypatch) -> None:
    """A registered subset whose spec names no build step (here a copy of sc without its planner and step)."""
    import dataclasses

    from pipeline.subsets import REGISTRY

    unbuildable = dataclasses.replace(REGISTRY["sc"], name="zz", plan_items=None, build_batch=None)
    monkeypatch.setitem(REGISTRY, "zz", unbuildable)
    code = main(["build", "zz", "--store", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert code == 1  # a subset we cannot build is a failure of ours, with its fix
    assert summary["not_built"]["zz"] == "construction method manual_implementation is not wired for zz yet"
    assert summary["exit_code"] == 1
    assert err.startswith("surge build: error: zz: not built: construction method") and "(fix: " in err


def test_an_unknown_subset_is_refused_with_the_choices(tmp_path, capsys) -> None:
    assert main(["build", "zz", "--store", str(tmp_path)]) == 2
    assert "use some of: ml, cl" in capsys.readouterr().err


@pytest.mark.slow
def test_build_writes_dataset_rows_and_a_rerun_adds_nothing(tmp_path, capsys, require_bwrap) -> None:
    args = ["build", "sc", "--n", "3", "--seed", "9", "--batch-size", "2", "--store", str(tmp_path), "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["built"]["sc"]
    assert first["rows"] == 3 and first["items"] == 3  # the items 3 rows need, not 2 whole batches
    rows = read_rows(Store(tmp_path), {"sc"})
    assert [row.upstream.key for row in rows] == ["sc-s9-00000", "sc-s9-00001", "sc-s9-00002"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["built"]["sc"]["items"] == 3
    assert len(read_rows(Store(tmp_path), {"sc"})) == 3


def test_a_time_mix_that_does_not_parse_is_refused_before_any_work(tmp_path, capsys) -> None:
    assert main(["build", "tc", "--time-mix", "fast=3", "--store", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--time-mix: 'fast=3' is not BIN=WEIGHT" in err and "<0.1s" in err
    assert not (tmp_path / "build_plan").exists()


def test_items_rl_cannot_read_are_refused_before_any_subset_is_built(tmp_path, capsys) -> None:
    """One --items serves the whole command: a store of pulled items is ml's, and rl, which reads a
    manifest, used to fail with an internal error after ml had been built."""
    pulled = tmp_path / "pulled"
    pulled.mkdir()
    store = tmp_path / "store"
    assert main(["build", "ml", "rl", "--items", str(pulled), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert f"rl reads a repository manifest (a JSONL file) from --items, and {pulled} is a folder" in err
    assert "(fix: " in err and "internal error" not in err
    assert not (store / "build_plan").exists()  # ml was not started either
    assert main(["build", "rl", "--items", str(tmp_path / "absent.jsonl"), "--store", str(store)]) == 2
    assert "is not there" in capsys.readouterr().err


def test_an_items_path_that_is_not_there_is_refused_before_any_work(tmp_path, capsys) -> None:
    store = tmp_path / "store"
    assert main(["build", "sc", "cl", "--items", str(tmp_path / "absent.jsonl"), "--store", str(store)]) == 2
    assert f"no such items file: {tmp_path / 'absent.jsonl'}" in capsys.readouterr().err
    assert not (store / "build_plan").exists()  # sc, first, was not built either


@pytest.mark.slow
def test_tc_prints_its_spread_and_sits_beside_the_release(tmp_path, capsys, samples, require_bwrap) -> None:
    """A tiny tc (3 rows, all aimed under 0.1 s: a quick calibration) compared with the bundled samples."""
    release = str(samples / "surge-released")
    args = ["build", "tc", "--n", "3", "--seed", "1", "--store", str(tmp_path), "--compare-to", release]
    assert main([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    tc = summary["built"]["tc"]
    assert tc["spread"]["<0.1s"]["target"] == 3 and sum(b["built"] for b in tc["spread"].values()) == 3
    side = summary["compare_to"]["tc"]
    assert side["build"]["rows"] == 3 and side["release"]["families"] == 1
    assert side["build"]["families"] == 3  # three instances, three families in turn
    rows = read_rows(Store(tmp_path), {"tc"})
    assert all({"family", "params", "time_bin", "target_bin"} <= set(r.custom_features) for r in rows)
    assert main(args) == 0  # the rerun reuses the calibration and the rows
    text = capsys.readouterr().out
    assert "tc: time bins (built/target): <0.1s" in text and "| families | 3 (" in text
