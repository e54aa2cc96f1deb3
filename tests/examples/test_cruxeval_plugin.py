"""The CRUXEval example installed as a user installs it (`pip install --target`, its dist-info beside it on
PYTHONPATH, so its entry points are read) and driven through `surge` in subprocesses: `surge doctor` lists
its subset and source with the distribution, `surge audit cruxeval.jsonl --subset cruxeval` reproduces the
20 bundled labels and classes an altered one as a mismatch, `surge score` scores with its metric, and
`surge pull cruxeval` reads a checkout with its reader. Nothing of surge's is edited or registered here."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.examples.cruxeval_files import ALTERED_LINE, BUNDLED, PACKAGE, altered, bundled_lines, write_lines
from tests.plugin_packages import installed_site, surge

DISTRIBUTION = "surge-cruxeval 0.1.0"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_site(PACKAGE, tmp_path_factory)


def test_doctor_lists_the_subset_and_the_source_with_their_distribution(site: Path, tmp_path: Path) -> None:
    done = surge(["doctor", "--json"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    installed = json.loads(done.stdout)["installed"]
    subsets = {spec["name"]: spec["from"] for spec in installed["surge.subsets"]}
    sources = {spec["name"]: spec["from"] for spec in installed["surge.sources"]}
    assert subsets["cruxeval"] == DISTRIBUTION and subsets["ml"] == "built-in"
    assert sources["cruxeval"] == DISTRIBUTION
    assert f"cruxeval (from {DISTRIBUTION})" in surge(["doctor"], site, tmp_path).stdout


@pytest.mark.slow
@pytest.mark.usefixtures("require_bwrap")
def test_audit_reproduces_the_bundled_labels_and_classes_an_altered_one_a_mismatch(
    site: Path, tmp_path: Path
) -> None:
    audit = ["--subset", "cruxeval", "--store", "store", "--repeats", "1", "--json"]
    done = surge(["audit", str(BUNDLED), *audit], site, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["classes"] == {"reproduced_exact": 20}, summary["classes"]
    assert summary["by_subset"]["cruxeval"]["mean_score"] == 1.0

    write_lines(tmp_path / "cruxeval.jsonl", altered(bundled_lines()))
    done = surge(["audit", "cruxeval.jsonl", *audit, "--errata", "errata"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["classes"] == {"reproduced_exact": 19, "mismatch": 1}
    report = (tmp_path / "store" / "audit-report.html").read_text()
    assert f"cruxeval.jsonl:{ALTERED_LINE}" in report and "bcksrutQ" in report

    # the errata is CRUXEval's JSONL again: the altered line corrected with its note, the others as read
    corrected = (tmp_path / "errata" / "dataset" / "cruxeval.jsonl").read_text().splitlines()
    read = (tmp_path / "cruxeval.jsonl").read_text().splitlines()
    changed = [n for n, (mine, theirs) in enumerate(zip(corrected, read, strict=True), 1) if mine != theirs]
    assert changed == [ALTERED_LINE]
    fixed = json.loads(corrected[ALTERED_LINE - 1])
    assert fixed["output"] == bundled_lines()[ALTERED_LINE - 1]["output"]
    assert fixed["corrections"]["released"] == "'bcksrutQ'" and fixed["corrections"]["status"] == "corrected"
    errata = [json.loads(line) for line in (tmp_path / "errata" / "errata.jsonl").read_text().splitlines()]
    assert [(e["location"], e["status"]) for e in errata] == [(f"cruxeval.jsonl:{ALTERED_LINE}", "corrected")]


def test_score_takes_predictions_with_the_subsets_metric(site: Path, tmp_path: Path) -> None:
    replies = {0: "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]", 1: "{2: None, 1: None}", 2: "'hbtofde'"}
    lines = [
        {"subset": "cruxeval", "index": i, "prediction": f"[ANSWER]\nassert f(...) == {reply}\n[/ANSWER]"}
        for i, reply in replies.items()
    ]
    write_lines(tmp_path / "predictions.jsonl", lines)
    done = surge(["score", "predictions.jsonl", "--dataset", str(BUNDLED), "--json"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    scored = json.loads(done.stdout)
    assert [item["score"] for item in scored["items"][str(BUNDLED)]] == [1.0, 1.0, 0.0]
    assert scored["coverage"][str(BUNDLED)]["missing"] == 17


@pytest.mark.slow
def test_pull_reads_a_checkout_with_the_reader_and_quarantines_a_bad_line(site: Path, tmp_path: Path) -> None:
    checkout = tmp_path / "cruxeval-mirror"
    write_lines(checkout / "data" / "cruxeval.jsonl", [*bundled_lines()[:5], '{"code": "def f(): pass"}'])
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "sample"]):
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *command]
        subprocess.run(git, cwd=checkout, check=True, capture_output=True, timeout=60)
    args = ["pull", "cruxeval", "--mirror", str(checkout), "--commit", "HEAD", "--store", "store", "--json"]
    done = surge([*args, "--cache", "cache"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    pulled = json.loads(done.stdout)["sources"]["cruxeval"]
    assert (pulled["items"], pulled["quarantined"]) == (5, 1)
    assert pulled["quarantine"] == [
        {"location": "data/cruxeval.jsonl:6", "reason": "missing fields: input, output, id"}
    ]
