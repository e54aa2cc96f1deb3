"""On-disk response cache: one JSON file per request, named by sha256(model + messages + params).

A rerun of the same prompts costs nothing. Files are written under a temporary name and renamed, so
concurrent writers and interrupted runs never leave half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def request_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    blob = json.dumps(
        {"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # absent or damaged: a miss; the fresh answer overwrites it
            return None

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".partial")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(value, out, ensure_ascii=False)
        os.replace(temporary, path)
