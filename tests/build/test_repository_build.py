"""rl: repositories (a folder, or a git URL at a commit) with run instructions and input files."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from pipeline.build import steps
from pipeline.build.records import BuildConfig, outcome_table
from pipeline.build.repository import FULL_SHA, SAMPLE_MANIFEST, is_remote, read_manifest
from pipeline.dataset import read_rows
from pipeline.errors import ConfigurationError
from pipeline.store import Store
from tests.conftest import require_tool

UPSTREAM_MANIFEST = SAMPLE_MANIFEST.parent / "upstream.jsonl"


def _build(store: Store, config: BuildConfig, n: int) -> list:
    steps.plan_round(store, config, 0, n)
    for batch in range(-(-n // config.batch_size)):
        steps.build_batch(store, config, batch)
    steps.write_dataset(store, config, n)
    return read_rows(store, {"rl"})


def _stand_in_remote(tmp_path):
    """A local git repository standing in for a public one (no network here): (its URL, commit v1)."""
    repo = tmp_path / "wordfreq"
    shutil.copytree(SAMPLE_MANIFEST.parent / "wordfreq", repo)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    (repo / "textstats.py").write_text("raise SystemExit('later commit')\n")  # must not be what runs
    subprocess.run([*git, "commit", "-qam", "v2"], check=True)
    return repo.as_uri(), commit


def test_the_bundled_repositories_give_sixty_rows_offline_of_surge_s_kinds() -> None:
    pairs = read_manifest(SAMPLE_MANIFEST)
    assert len(pairs) >= 60
    tasks = {task.name: task for task, _ in pairs}
    for task, input_path in pairs:
        assert not is_remote(task.location)
        assert (SAMPLE_MANIFEST.parent / task.location / input_path).is_file(), (task.name, input_path)
    makefiles = [t for t in tasks.values() if t.run_instruction.startswith("make")]
    packages = [t for t in tasks.values() if t.language == "python"]
    assert len(makefiles) >= 5 and len(packages) >= 5
    for task in makefiles:  # several translation units behind one Makefile
        assert len(list((SAMPLE_MANIFEST.parent / task.location).glob("*.cpp"))) >= 2, task.name


def test_the_upstream_manifest_names_public_repositories_pinned_by_commit() -> None:
    pairs = read_manifest(UPSTREAM_MANIFEST)
    assert pairs
    for task, _ in pairs:
        assert task.location.startswith("https://github.com/") and FULL_SHA.match(task.commit)


def test_a_git_location_without_its_full_commit_is_refused_naming_the_line(tmp_path) -> None:
    manifest = tmp_path / "repos.jsonl"
    line = {"name": "x", "location": "https://example.org/x.git", "commit": "abc123", "language": "python"}
    manifest.write_text("\n" + json.dumps({**line, "run_instruction": "python x.py"}) + "\n")
    with pytest.raises(ConfigurationError, match=r"repos.jsonl:2: .*full 40-hex commit"):
        read_manifest(manifest)


@pytest.mark.slow
def test_a_commit_the_remote_lacks_is_ours_nothing_recorded(tmp_path, require_bwrap) -> None:
    require_tool("git")
    url, _ = _stand_in_remote(tmp_path)
    manifest = tmp_path / "manifest.jsonl"
    line = {"name": "wf", "location": url, "commit": "0" * 40, "language": "python"}
    manifest.write_text(
        json.dumps({**line, "run_instruction": "python main.py {input}", "inputs": ["a"]}) + "\n"
    )
    store = Store(tmp_path / "store")
    config = BuildConfig(subset="rl", items=str(manifest), batch_size=1)
    steps.plan_round(store, config, 0, 1)
    counts = steps.build_batch(store, config, 0)
    assert counts["ours:fetch_error"] == 1
    assert f"commit {'0' * 40} of wf is not in" in counts["detail:fetch_error"]
    assert list(outcome_table(store).records()) == []  # the next run tries it again


@pytest.mark.slow
def test_a_git_repository_at_a_commit_one_row_per_input_and_a_broken_instruction_kept_with_its_reason(
    tmp_path, require_bwrap
):
    require_tool("git")
    url, commit = _stand_in_remote(tmp_path)
    manifest = tmp_path / "manifest.jsonl"
    task = {"name": "wf", "location": url, "commit": commit, "language": "python", "task": "text"}
    lines = [
        {**task, "run_instruction": "python main.py {input}", "inputs": ["input/1.txt", "input/2.txt"]},
        {**task, "name": "broken", "run_instruction": "python nope.py", "inputs": ["input/1.txt"]},
    ]
    manifest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    store = Store(tmp_path / "store")
    config = BuildConfig(subset="rl", items=str(manifest), batch_size=3)
    rows = _build(store, config, 3)
    assert [row.gt.splitlines()[0] for row in rows] == ["15 words, 10 distinct", "12 words, 7 distinct"]
    assert all(row.upstream.commit == commit and row.custom_features["metric"] == "exact" for row in rows)
    assert "textstats.py:<start_file>import re" in rows[0].question
    assert rows[0].question.endswith("the lazy dog.\nThe dog sleeps; the fox runs.\n<endfile>")
    assert steps.summary(store, config)["drop_reasons"] == {"runtime_error": 1}


@pytest.mark.slow
def test_the_bundled_sample_repositories_build(tmp_path, require_bwrap):
    require_tool("g++")
    rows = _build(Store(tmp_path), BuildConfig(subset="rl", batch_size=4), 4)
    assert {row.custom_features["metric"] for row in rows} == {"exact", "edit_distance"}
    shapes = next(row for row in rows if row.upstream.key == "shapes:input/1.txt")
    assert shapes.gt == "rectangle 6\ntriangle 10\nunknown shape circle\ntotal 16"
