"""The source spec, and the small readers every adapter shares.

A source is declared, not programmed: a ``Source`` names the upstream repository, the pinned commit,
the licence, the files it reads, and one ``read(checkout, commit)`` function that turns those files
into ``SourceItem``s. Whatever a reader cannot use becomes a ``QuarantinedRecord`` with its
``file:line`` or ``file[index]`` and the reason, and the rest keeps loading.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, computed_field

from pipeline.records import Frozen, Language, QuarantinedRecord, SourceItem, content_id, lone_surrogate

Loaded = SourceItem | QuarantinedRecord
Reader = Callable[[Path, str], Iterator[Loaded]]

DEFAULT_CACHE = Path(".surge/sources")  # where `surge pull` keeps its checkouts
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
RAW_KEPT_CHARS = 4096  # enough to see what went wrong, small enough for a quarantine row


@dataclass(frozen=True)
class Source:
    """One upstream data set at one pinned revision."""

    name: str
    url: str  # where `surge pull` clones from unless --mirror says otherwise
    commit: str | None  # pinned revision (full or abbreviated sha); None: the branch head, recorded at pull
    licence: str  # SPDX id or upstream licence name; copied into every item
    kind: Literal["git", "hf"]
    paths: tuple[str, ...]  # globs, relative to the repository root, of the files `read` uses
    read: Reader
    description: str = ""
    # The bundled sample (sources/samples/<samples>) standing in for the folder of the first path
    # (mceval: samples/mceval is the repository's data/); "" if no sample has records to read.
    samples: str = ""

    @property
    def upstream_repo(self) -> str:
        """'github.com/MCEVAL/McEval' or 'huggingface.co/datasets/internlm/Lean-Workbook'."""
        return self.url.removeprefix("https://").removeprefix("http://").removesuffix(".git")

    def files(self, checkout: Path) -> Iterator[tuple[Path, str]]:
        """(path, path relative to the checkout) of every file this source reads, in a stable order."""
        for path in matching_files(checkout, self.paths):
            yield path, path.relative_to(checkout).as_posix()

    def item(
        self,
        *,
        key: str,
        commit: str,
        path: str,
        text: str,
        locator: str | int = "",
        language: Language | None = None,
        upstream_language: str | None = None,
        fields: dict[str, Any] | None = None,
    ) -> SourceItem:
        """One item of this source read at ``commit`` from ``path``; repository and licence filled in."""
        return SourceItem(
            source=self.name,
            key=key,
            language=language,
            upstream_language=upstream_language,
            upstream_repo=self.upstream_repo,
            upstream_commit=commit,
            upstream_path=path,
            upstream_locator=str(locator),
            licence=self.licence,
            text=text,
            fields=fields or {},
        )


class PullRecord(Frozen):
    """What one `surge pull` of one source fetched: kept in the store's ``pulls`` table."""

    source: str
    url: str = Field(description="the URL or path actually cloned from (a mirror, if one was given)")
    requested_commit: str | None = Field(description="the pinned revision of the source spec")
    commit: str = Field(description="the full sha checked out")
    items: int
    quarantined: int
    lfs_files: int = Field(default=0, description="Git LFS files fetched with `git lfs pull`")
    checkout: str = Field(description="the cache folder holding the checkout")
    pulled_at: datetime
    duration_s: float = Field(default=0.0, description="checkout, LFS fetch and read, wall seconds")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pull_id(self) -> str:
        return content_id("pull", self.source, self.url, self.commit, self.pulled_at)


# ---------------------------------------------------------------------------------------------
# Shared readers: each yields parsed values, or QuarantinedRecords for what it cannot parse
# ---------------------------------------------------------------------------------------------


def quarantine(source: str, location: str, reason: str, raw: str | bytes = "") -> QuarantinedRecord:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    return QuarantinedRecord(
        stage="pull", source=source, location=location, reason=reason, raw=raw[:RAW_KEPT_CHARS]
    )


def is_lfs_pointer(head: bytes) -> bool:
    return head.startswith(LFS_POINTER_PREFIX)


def is_lfs_pointer_file(path: Path) -> bool:
    """Whether the file is an LFS pointer, reading only its first bytes."""
    with open(path, "rb") as handle:
        return is_lfs_pointer(handle.read(len(LFS_POINTER_PREFIX)))


def matching_files(checkout: Path, globs: tuple[str, ...]) -> list[Path]:
    """Files under ``checkout`` matching any glob, sorted by relative path (stable item order)."""
    found = {path for pattern in globs for path in checkout.glob(pattern) if path.is_file()}
    return sorted(found, key=lambda path: path.relative_to(checkout).as_posix())


def read_text(source: str, path: Path, location: str) -> str | QuarantinedRecord:
    """A whole file as UTF-8 text; an LFS pointer or undecodable bytes are quarantined, never parsed."""
    data = path.read_bytes()
    if is_lfs_pointer(data):
        return quarantine(source, location, "Git LFS pointer, not data (run `git lfs pull`)", data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return quarantine(source, location, f"not UTF-8: {error}", data[:RAW_KEPT_CHARS])


def parse_json(source: str, where: str, text: str, raw: str | bytes) -> Any:
    """The JSON value of ``text``, or a QuarantinedRecord if it is malformed."""
    try:
        return json.loads(text)
    except RecursionError:  # deep nesting exhausts the parser's stack: malformed for us, not a crash
        return quarantine(source, where, "malformed JSON: nested too deeply to read", raw)
    except ValueError as error:  # JSONDecodeError, and an integer too long to convert
        return quarantine(source, where, f"malformed JSON: {error}", raw)


def checked_object(
    source: str, where: str, value: Any, raw: str | bytes, required: tuple[str, ...]
) -> dict[str, Any] | QuarantinedRecord:
    """``value`` if it is a JSON object with every required field, else a QuarantinedRecord saying why."""
    if not isinstance(value, dict):
        return quarantine(source, where, f"expected a JSON object, got {type(value).__name__}", raw)
    missing = missing_fields(value, required)
    if missing:
        return quarantine(source, where, f"missing fields: {', '.join(missing)}", raw_json(value))
    if surrogate := lone_surrogate(value):
        return quarantine(source, where, f"not Unicode text: {surrogate}", raw)
    return value


def read_jsonl(
    source: str, path: Path, location: str, required: tuple[str, ...] = ()
) -> Iterator[tuple[int, dict[str, Any]] | QuarantinedRecord]:
    """(line number, object) per line; a bad line, or one lacking a required field, is quarantined."""
    data = path.read_bytes()
    if is_lfs_pointer(data):
        yield quarantine(source, location, "Git LFS pointer, not data (run `git lfs pull`)", data)
        return
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{location}:{number}"
        try:
            value = parse_json(source, where, raw.decode("utf-8"), raw)
        except UnicodeDecodeError as error:
            yield quarantine(source, where, f"not UTF-8: {error}", raw)
            continue
        if not isinstance(value, QuarantinedRecord):
            value = checked_object(source, where, value, raw, required)
        yield value if isinstance(value, QuarantinedRecord) else (number, value)


def read_json_list(
    source: str, path: Path, location: str, required: tuple[str, ...] = ()
) -> Iterator[tuple[int, dict[str, Any]] | QuarantinedRecord]:
    """(index, object) per element of a JSON list file; a file that is not one is quarantined whole,
    an element that is not an object or lacks a required field on its own."""
    text = read_text(source, path, location)
    if isinstance(text, QuarantinedRecord):
        yield text
        return
    value = parse_json(source, location, text, text)
    if not isinstance(value, (list, QuarantinedRecord)):
        value = quarantine(source, location, f"expected a JSON list, got {type(value).__name__}", text)
    if isinstance(value, QuarantinedRecord):
        yield value
        return
    for index, element in enumerate(value):
        checked = checked_object(source, f"{location}[{index}]", element, repr(element), required)
        yield checked if isinstance(checked, QuarantinedRecord) else (index, checked)


def missing_fields(record: dict[str, Any], required: tuple[str, ...]) -> list[str]:
    """Required keys that are absent or not strings (every required upstream field here is text)."""
    return [name for name in required if not isinstance(record.get(name), str)]


def raw_json(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, default=str)
