"""pyver, the example of a subset beyond SURGE: one file plus one registry line, built end to
end by `surge build pyver`, exported with the generic prompt and audited under each row's own profile."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from pipeline.audit.rows import REPRODUCED, AuditRow
from pipeline.build.records import BuildConfig, outcome_table
from pipeline.cli import main
from pipeline.store import Store
from pipeline.subsets import REGISTRY, RELEASED, pyver

IMAGES = ("surge/python:bookworm", "surge/python:bullseye")  # the current and surge-repro profiles


def test_pyver_is_registered_as_ours_and_plans_deterministically() -> None:
    assert REGISTRY["pyver"] is pyver.SPEC and "pyver" not in RELEASED
    config = BuildConfig(subset="pyver", seed=5)
    first = [pyver.plan_item(config, i) for i in range(10)]
    again = [pyver.plan_item(config, i) for i in range(10)]
    other = [pyver.plan_item(BuildConfig(subset="pyver", seed=6), i) for i in range(10)]
    assert [i.item_id for i in first] == [i.item_id for i in again]
    assert [i.item_id for i in first] != [i.item_id for i in other]
    assert [i.template for i in first[:5]] == [name for name, _ in pyver.TEMPLATES]
    for item in first:
        compile(item.program().files[0].content, item.template, "exec")  # every instance is Python


def images_present() -> None:
    for image in IMAGES:
        probe = subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=30)
        if probe.returncode != 0:
            pytest.skip(f"needs the Docker image {image} (`bash dockerfiles/build.sh --suites ... python`)")


@pytest.mark.usefixtures("require_docker")
def test_build_export_audit_each_label_reproduces_under_its_own_profile_only(tmp_path: Path) -> None:
    images_present()
    store, out, audit = tmp_path / "store", tmp_path / "out", tmp_path / "audit"
    assert main(["build", "pyver", "--n", "8", "--batch-size", "5", "--store", str(store)]) == 0
    outcomes = list(outcome_table(Store(store)).records())
    dropped = {o.reason for o in outcomes if o.status == "dropped"}
    assert dropped == {"same output under every profile"}  # the control template, and only it
    assert main(["export", str(store), str(out)]) == 0
    records = json.loads((out / "dataset" / "pyver.json").read_text())
    assert len(records) == 8 and {r["custom_features"]["key"] for r in records} == set(pyver.PROFILES)
    assert "Python 3.11" in records[0]["sys_0shot"] or "Python 3.9" in records[0]["sys_0shot"]
    profiles = [arg for name in pyver.PROFILES for arg in ("--profile", name)]
    assert main(["audit", str(out / "dataset"), "--store", str(audit), "--repeats", "1", *profiles]) == 0
    rows = list(Store(audit).table("audit", AuditRow, "audit_id").records())
    assert len(rows) == 16  # every record under both profiles
    for row in rows:
        own = records[row.index]["custom_features"]["key"]
        # Reproduced under the profile that printed it; under the other the label differs by construction.
        assert (row.audit_class in REPRODUCED) == (row.profile == own), (
            row.location,
            row.profile,
            row.audit_class,
        )


def test_a_subset_of_ours_exports_with_the_generic_prompt_and_reads_back(tmp_path: Path) -> None:
    # No Docker: rows as the build writes them, exported, then read by the audit's reader.
    from pipeline.dataset import DatasetRow, RunRef, UpstreamRef, write_rows
    from pipeline.subsets import subset_spec
    from sources.surge_release import load_release

    def made(index: int, key: str, gt: str) -> DatasetRow:
        text = pyver.TEMPLATES[0][1](random.Random(index))
        upstream = UpstreamRef(source="t", repo="r", commit="c", path="p", key=f"pyver-{index}")
        return DatasetRow(
            subset="pyver",
            category=9,
            question=text,
            gt=gt,
            custom_features={"key": key, "environment": f"Python {key}", "template": "int_enum"},
            upstream=upstream,
            run=RunRef(run_id=f"run{index}", profile=key, backend="docker"),
            label_origin="executed",
            construction="manual_implementation",
        )

    rows = [made(i, key, f"{key} {i}") for i in range(4) for key in pyver.PROFILES]
    write_rows(Store(tmp_path / "store"), rows)
    assert main(["export", str(tmp_path / "store"), str(tmp_path / "out")]) == 0
    exported = json.loads((tmp_path / "out" / "dataset" / "pyver.json").read_text())
    assert len(exported) == 8 and list(exported[0]["custom_features"]) == list(pyver.SPEC.feature_keys)
    first = exported[0]
    assert f"It is run with Python {first['custom_features']['key']}." in first["sys_0shot"]
    assert (
        first["sys_3shot"].startswith(first["sys_cot"]) and "Following are 3 examples" in first["sys_3shot"]
    )
    # Examples come from the same profile's pool (generic template pools by key), never the row itself.
    shots = first["sys_3shot"][len(first["sys_cot"]) :]
    shown = [record["gt"] for record in exported if f"Output:\n{record['gt']}\n" in shots]
    assert len(shown) == 3 and first["gt"] not in shown
    assert all(gt.startswith(f"{first['custom_features']['key']} ") for gt in shown)
    records, bad = load_release(tmp_path / "out" / "dataset")
    assert bad == [] and [r.subset for r in records] == ["pyver"] * 8
    assert subset_spec("pyver").to_program(records[0]).program.files[0].content == first["question"]
