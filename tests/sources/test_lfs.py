"""Hugging Face-style repositories keep data in Git LFS: fetch it, or stop with the command to run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.errors import SourceError
from pipeline.records import Language
from sources import git as source_git
from sources.git import pull_source
from sources.registry import get_source
from tests.conftest import require_tool

WORKBOOK = [
    {
        "natural_language_statement": "Prove that 1 + 1 = 2.",
        "answer": "",
        "tags": ["arith"],
        "formal_statement": "theorem lean_workbook_18 : (1 : ℕ) + 1 = 2 := by sorry",
        "split": "lean_workbook",
        "proof": ["norm_num"],
    },
    {
        "formal_statement": "theorem lean_workbook_plus_2 (x : ℝ) : x ^ 2 ≥ 0 := by sorry",
        "split": "lean_workbook_plus",
    },
]
POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize 123\n".format("cd" * 32)


def lfs_upstream(upstream):
    """An upstream whose lean_workbook.json is a real Git LFS object (stored in the upstream's .git/lfs)."""
    repo = upstream("Lean-Workbook")
    repo.repo.git.lfs("install", "--local")
    repo.repo.git.lfs("track", "*.json")
    return repo, repo.commit({"lean_workbook.json": json.dumps(WORKBOOK, ensure_ascii=False)})


def test_lfs_files_are_fetched_with_git_lfs(upstream, tmp_path: Path) -> None:
    require_tool("git-lfs")
    repo, pinned = lfs_upstream(upstream)
    assert repo.repo.git.show(f"{pinned}:lean_workbook.json").startswith("version https://git-lfs")
    outcome = pull_source(get_source("lean_workbook", pinned), tmp_path / "cache", repo.url)
    assert outcome.record.lfs_files == 1 and outcome.quarantined == []
    assert [(i.key, i.language) for i in outcome.items] == [
        ("lean_workbook_18", Language.LEAN4),
        ("lean_workbook_plus_2", Language.LEAN4),
    ]
    assert outcome.items[0].fields["proof"] == ["norm_num"] and outcome.items[0].licence == "Apache-2.0"


def test_without_git_lfs_the_error_names_the_command(upstream, tmp_path: Path, monkeypatch) -> None:
    repo = upstream("Lean-Workbook")
    pinned = repo.commit({"lean_workbook.json": POINTER})  # a pointer, as a clone without LFS shows it
    monkeypatch.setattr(source_git.shutil, "which", lambda name: None)
    with pytest.raises(SourceError, match="Git LFS pointers") as error:
        pull_source(get_source("lean_workbook", pinned), tmp_path / "cache", repo.url)
    checkout = tmp_path / "cache" / "lean_workbook"
    assert f'git -C {checkout} lfs pull --include="lean_workbook.json"' in error.value.hint


def test_a_pointer_whose_object_is_missing_is_never_parsed(upstream, tmp_path: Path) -> None:
    require_tool("git-lfs")
    repo = upstream("Lean-Workbook")
    pinned = repo.commit({"lean_workbook.json": POINTER})  # the remote has no such LFS object
    with pytest.raises(SourceError, match="git lfs pull failed|still LFS pointers") as error:
        pull_source(get_source("lean_workbook", pinned), tmp_path / "cache", repo.url)
    assert "lfs pull" in error.value.hint
