"""Compile cache and shared runs (DMOJ's binary cache, content-addressed).

- A compile is keyed by sha256(source files + toolchain version + full compile argv + environment): the
  compile phase's facts (diagnostics included, they are part of dr labels) and its artifacts are kept on
  disk, artifacts as blobs named by their own sha256.
- Identical artifacts (same digest) from different settings run once: RunMemo keeps run results by
  (artifact digest + run command, stdin, environment, limits, repeats) for the life of a backend, so a dr
  snippet's 40 settings cost a handful of runs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, cast

from sandboxes.inner.protocol import Artifacts, CachedCompile, RawRun

DEFAULT_CACHE_DIR = Path(".surge/cache/compile")
CACHE_DIR_ENV = "SURGE_COMPILE_CACHE"


def cache_key(*parts: Any) -> str:
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CompileCache:
    """On-disk cache: <root>/entries/<key>.json and <root>/blobs/<sha256>. Safe for concurrent writers."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root or os.environ.get(CACHE_DIR_ENV) or DEFAULT_CACHE_DIR)

    def get(self, key: str) -> CachedCompile | None:
        """The cached compile run and its artifacts (with bytes as base64), or None."""
        entry_path = self.root / "entries" / f"{key}.json"
        try:
            entry = json.loads(entry_path.read_text(encoding="utf-8"))
            for artifact in entry["artifacts"]["files"]:
                data = (self.root / "blobs" / artifact["sha256"]).read_bytes()
                artifact["b64"] = base64.b64encode(data).decode("ascii")
        except (OSError, ValueError, KeyError):
            return None
        return cast(CachedCompile, entry)  # what ``put`` wrote

    def put(self, key: str, compile_run: RawRun, artifacts: Artifacts, exports: Path | None = None) -> None:
        """Keep a compile: its artifacts' bytes come as base64, or as files in ``exports`` (the runner's
        export folder) named by their sha256. A file whose bytes do not hash to its name, or that never
        arrived, leaves the compile uncached."""
        files = []
        for artifact in artifacts.get("files", []):
            if "b64" in artifact:
                data: bytes | None = base64.b64decode(artifact["b64"])
            else:
                data = taken_export(exports, artifact["sha256"]) if artifact.get("exported") else None
            if data is None:
                return
            self._write(self.root / "blobs" / artifact["sha256"], data)
            files.append({k: v for k, v in artifact.items() if k not in ("b64", "exported")})
        entry = {"compile": compile_run, "artifacts": {"digest": artifacts.get("digest"), "files": files}}
        self._write(self.root / "entries" / f"{key}.json", json.dumps(entry).encode("utf-8"))

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        if path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        temporary.write_bytes(data)
        os.replace(temporary, path)  # atomic: readers never see half a file


def taken_export(exports: Path | None, sha256: str) -> bytes | None:
    """An exported artifact's bytes, read once and removed from the export folder; None unless they hash
    to its name. The blob is written from these very bytes: a program that shares the runner's uid (no
    uid of its own: bwrap run by a user) could write the folder while we read, never what we store."""
    if exports is None:
        return None
    path = exports / sha256
    try:
        data = path.read_bytes()
        path.unlink()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha256 else None


class RunMemo:
    """Run results of identical binaries, shared across settings within one backend; it also knows
    which sources its binaries came from (a source it has not seen compiles and runs in one job)."""

    def __init__(self) -> None:
        self._runs: dict[str, list[RawRun]] = {}
        self._sources: set[str] = set()
        self._lock = threading.Lock()

    def get(self, key: str) -> list[RawRun] | None:
        with self._lock:
            return self._runs.get(key)

    def put(self, key: str, runs: list[RawRun], source: str) -> None:
        with self._lock:
            self._runs.setdefault(key, runs)
            self._sources.add(source)

    def has_source(self, source: str) -> bool:
        with self._lock:
            return source in self._sources
