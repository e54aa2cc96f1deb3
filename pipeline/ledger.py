"""The ledger: approved programs with the upstream item they came from, so SURGE regenerates without an LLM.

One JSONL line per approved (or edited) entry. ``item_sha256`` hashes what the item is upstream (its text and
fields); ``program_sha256`` hashes the program as it runs. Checking a ledger against freshly pulled items
tells
which items changed upstream (their programs need review again) and which disappeared.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pipeline.errors import InputError
from pipeline.records import Program, SourceItem
from pipeline.review.queue import ACCEPTED_STATES, ReviewQueue

LEDGER_VERSION = 1


def sha256_json(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def item_sha256(item: SourceItem) -> str:
    return sha256_json({"source": item.source, "key": item.key, "text": item.text, "fields": item.fields})


def program_sha256(program: Program) -> str:
    return sha256_json(program.model_dump(mode="json", exclude={"origin", "program_id"}))


class LedgerLine(BaseModel):
    ledger_version: int = LEDGER_VERSION
    source: str
    key: str
    item_id: str
    item_sha256: str
    upstream_repo: str
    upstream_commit: str
    upstream_path: str
    upstream_locator: str
    licence: str
    method: str
    prompt: str
    state: str
    reviewer: str | None
    reviewed_at: str | None
    program: Program
    program_id: str
    program_sha256: str
    label: str
    extra: dict[str, Any] = {}


def export_ledger(queue: ReviewQueue, path: Path) -> int:
    """Write every approved/edited entry (sorted by source and key: the file diffs well); return the count."""
    lines = []
    for entry in queue.entries():
        if entry.state not in ACCEPTED_STATES or entry.program is None:
            continue
        item = entry.item
        lines.append(
            LedgerLine(
                source=item.source,
                key=item.key,
                item_id=item.item_id,
                item_sha256=item_sha256(item),
                upstream_repo=item.upstream_repo,
                upstream_commit=item.upstream_commit,
                upstream_path=item.upstream_path,
                upstream_locator=item.upstream_locator,
                licence=item.licence,
                method=entry.method,
                prompt=entry.prompt,
                state=entry.state.value,
                reviewer=entry.reviewer,
                reviewed_at=entry.reviewed_at,
                program=entry.program,
                program_id=entry.program.program_id,
                program_sha256=program_sha256(entry.program),
                label=entry.run.label if entry.run else "",
                extra=entry.extra,
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(line.model_dump_json(exclude={"program": {"program_id"}}) + "\n")
    return len(lines)


def read_ledger(path: Path) -> list[LedgerLine]:
    if not path.is_file():
        raise InputError(f"no ledger at {path}", hint="write one with `surge review export --ledger PATH`")
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            data.get("program", {}).pop("program_id", None)
            line = LedgerLine.model_validate(data)
        except ValueError as error:
            raise InputError(
                f"{path}:{number}: not a ledger line ({error})", hint="re-export the ledger"
            ) from None
        if program_sha256(line.program) != line.program_sha256:
            raise InputError(
                f"{path}:{number}: program hash mismatch (the ledger was edited by hand?)",
                hint="re-export the ledger from the review queue",
            )
        lines.append(line)
    return lines


def check_ledger(lines: list[LedgerLine], items: list[SourceItem]) -> dict[str, list[str]]:
    """Compare a ledger with current upstream items: unchanged, changed (same key, new content), missing."""
    current = {(item.source, item.key): item for item in items}
    report: dict[str, list[str]] = {"unchanged": [], "changed": [], "missing": []}
    for line in lines:
        item = current.get((line.source, line.key))
        name = f"{line.source}/{line.key}"
        if item is None:
            report["missing"].append(name)
        elif item_sha256(item) != line.item_sha256:
            report["changed"].append(name)
        else:
            report["unchanged"].append(name)
    return report


def write_programs(lines: list[LedgerLine], path: Path) -> int:
    """The ledger's programs as a `surge run` input (one Program JSON per line): no LLM needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            program = line.program.model_copy(
                update={"origin": {**line.program.origin, "ledger_key": line.key}}
            )
            out.write(program.model_dump_json(exclude={"program_id"}) + "\n")
    return len(lines)
