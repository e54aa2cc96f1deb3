"""The CRUXEval example installed as a user installs it (`pip install --target`, its dist-info beside it on
PYTHONPATH, so its entry points are read) and driven through `surge` in subprocesses: `surge doctor` lists
its subset and source with the distribution, `surge audit cruxeval.jsonl --subset cruxeval` reproduces the
20 bundled labels and classes an altered one as a mismatch, `surge score` scores with its metric, and
`surge pull cruxeval` reads a checkout with its reader. Nothing of surge's is edited or registered here."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.examples.cruxeval_files import ALTERED_LINE, BUNDLED, PACKAGE, altered, bundled_lines, write_lines
from tests.surge_process import COMMAND_TIMEOUT_S, REPO_ROOT, SURGE

DISTRIBUTION = "surge-cruxeval 0.1.0"
PIP = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target"]


def install(site: Path, wheels: Path) -> None:
    """pip builds the package with setuptools where this interpreter has setuptools and wheel; else pip
    installs a wheel written here from the package's pyproject.toml and files (what a build backend
    writes), so the test needs neither a build backend nor an index."""
    backend = all(importlib.util.find_spec(name) for name in ("setuptools", "wheel"))
    if backend:  # setuptools builds in the source folder (build/, *.egg-info): a copy keeps ours clean
        copy = shutil.copytree(PACKAGE, wheels / "source", ignore=shutil.ignore_patterns("__pycache__"))
        target = ["--no-build-isolation", str(copy)]
    else:
        target = [str(written_wheel(wheels))]
    done = subprocess.run([*PIP, str(site), *target], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"pip cannot install {PACKAGE.name} offline: {done.stderr.strip().splitlines()[-1:]}")


def written_wheel(folder: Path) -> Path:
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    package, version = project["name"].replace("-", "_"), project["version"]
    info = f"{package}-{version}.dist-info"
    files = {
        path.relative_to(PACKAGE / "src").as_posix(): path.read_text()
        for path in sorted((PACKAGE / "src").rglob("*"))
        if path.is_file() and path.suffix in (".py", ".jsonl", ".txt") and "__pycache__" not in path.parts
    }
    points = "".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in named.items())
        for group, named in project["entry-points"].items()
    )
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {version}\n"
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = points
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{package}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cruxeval-plugin")
    install(root / "site", root / "wheels")
    return root / "site"


def surge(args: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`surge ARGS` started as a user starts it, with the installed package on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(site)])}
    env |= {"PREFECT_HOME": str(cwd / "prefect")}
    env.pop("SURGE_DEBUG", None)
    return subprocess.run(
        [*SURGE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S
    )


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
    done = surge(["audit", "cruxeval.jsonl", *audit], site, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["classes"] == {"reproduced_exact": 19, "mismatch": 1}
    report = (tmp_path / "store" / "audit-report.html").read_text()
    assert f"cruxeval.jsonl:{ALTERED_LINE}" in report and "bcksrutQ" in report


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
