"""`surge pull` checks out only the paths a source reads: a mirror lacking the other blobs (a
partial copy, as organisations keep them) still pulls, large files elsewhere are never fetched, and the
pinned commit is still verified."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import git
import pytest

from pipeline.errors import SourceError
from sources.git import pull_source, sparse_patterns
from sources.registry import get_source
from tests.sources.conftest import sample_files

LARGE_BYTES = 8 << 20


def git_run(*argv: str | Path) -> str:
    return subprocess.run(["git", *map(str, argv)], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def partial_mirror(upstream, samples: Path, tmp_path: Path) -> tuple[Path, str]:
    """McEval with a large image and an archive beside data/, mirrored without those blobs."""
    repo = upstream("McEval")
    files = sample_files(samples, "mceval", "data", "*.jsonl")
    files["images/logo.png"] = b"\x89PNG" + bytes(range(256)) * (LARGE_BYTES // 256)
    files["archives/all.zip"] = b"PK\x03\x04 not read by the adapter"
    commit = repo.commit(files, "data, an image and an archive")
    mirror = tmp_path / "mirror.git"
    git_run("-C", repo.folder, "config", "uploadpack.allowFilter", "true")
    git_run("clone", "--quiet", "--bare", "--filter=blob:none", repo.url, mirror)
    for path in files:  # the mirror holds what the source reads, nothing else
        if path.startswith("data/"):
            git_run("-C", mirror, "cat-file", "-e", f"{commit}:{path}")  # fetches that blob on demand
    shutil.rmtree(repo.folder)  # no promisor left: a missing blob can never arrive
    return mirror, commit


def test_a_mirror_without_the_unread_blobs_still_pulls(partial_mirror, tmp_path: Path) -> None:
    mirror, commit = partial_mirror
    with pytest.raises(subprocess.CalledProcessError):  # the image really is missing from the mirror
        git_run("-C", mirror, "cat-file", "-e", f"{commit}:images/logo.png")
    cache = tmp_path / "cache"
    outcome = pull_source(get_source("mceval", commit), cache, str(mirror))
    assert outcome.record.commit == commit and outcome.record.items > 0
    checkout = cache / "mceval"
    assert sorted(p.name for p in checkout.iterdir() if p.name != ".git") == ["data"]
    assert git_run("-C", checkout, "rev-parse", "HEAD").strip() == commit


def test_large_files_outside_the_paths_are_never_fetched(upstream, samples: Path, tmp_path: Path) -> None:
    repo = upstream("McEval")
    files = sample_files(samples, "mceval", "data", "*.jsonl")
    files["images/big.bin"] = bytes(LARGE_BYTES)
    commit = repo.commit(files, "data and a large file")
    git_run("-C", repo.folder, "config", "uploadpack.allowFilter", "true")
    cache = tmp_path / "cache"
    pull_source(get_source("mceval", commit), cache, repo.url)  # file://: the filter is honoured
    big = repo.repo.commit(commit).tree / "images" / "big.bin"
    assert not (cache / "mceval" / "images").exists()
    checkout = git.Repo(cache / "mceval")
    missing = checkout.git.rev_list("--objects", "--missing=print", commit)
    assert f"?{big.hexsha}" in missing.splitlines()  # the large blob stayed on the server


def test_the_pinned_commit_is_still_verified(partial_mirror, tmp_path: Path) -> None:
    mirror, _ = partial_mirror
    with pytest.raises(SourceError, match="is not in"):
        pull_source(get_source("mceval", "0" * 40), tmp_path / "cache", str(mirror))


def test_patterns_are_anchored_at_the_root() -> None:
    assert sparse_patterns(("data/*.jsonl", "**/*.cpp")) == ["/data/*.jsonl", "**/*.cpp"]
