"""Small real upstream repositories, built from the shared samples and laid out as upstream."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import git
import pytest

FileMap = dict[str, bytes | str]


class Upstream:
    """A git repository in tmp_path standing in for an upstream (reached as a file:// mirror)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.repo = git.Repo.init(folder)
        with self.repo.config_writer() as config:
            config.set_value("user", "name", "test")
            config.set_value("user", "email", "test@example.invalid")

    @property
    def url(self) -> str:
        return self.folder.as_uri()

    def commit(self, files: FileMap, message: str = "update") -> str:
        for relative, content in files.items():
            path = self.folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        self.repo.git.add("--all")
        self.repo.index.commit(message)
        return self.repo.head.commit.hexsha


@pytest.fixture
def upstream(tmp_path: Path) -> Callable[[str], Upstream]:
    def make(name: str) -> Upstream:
        return Upstream(tmp_path / "upstreams" / name)

    return make


def sample_files(samples: Path, folder: str, into: str, pattern: str = "*") -> FileMap:
    """Sample files of one source, keyed by their upstream path (e.g. data/C.jsonl)."""
    return {f"{into}/{path.name}": path.read_bytes() for path in sorted((samples / folder).glob(pattern))}


def copy_samples(samples: Path, folder: str, into: Path, pattern: str = "*") -> None:
    into.mkdir(parents=True, exist_ok=True)
    for path in (samples / folder).glob(pattern):
        shutil.copy(path, into / path.name)
