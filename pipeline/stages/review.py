"""The review actions: the human review queue of refactored programs — list, show, approve, reject, edit
(in $EDITOR, then re-executed), serve a local page, export the ledger of approved programs, and verify a
ledger against the items upstream holds today."""

from __future__ import annotations

import getpass
import os
import secrets
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.errors import ConfigurationError, InputError
from pipeline.observe import Observer, tell
from pipeline.review import DEFAULT_REVIEW_DB
from pipeline.review.queue import Entry, ReviewQueue
from pipeline.stage_results import StageResult
from pipeline.stages.options import ReviewOptions

OLD_DEFAULT_DB = Path(".surge/review.db")  # the default before it became the default store's queue
TOKEN_BYTES = 24  # 192 random bits, 32 URL-safe characters
CHANGED_EXIT_CODE = 1  # verify: the ledger no longer matches upstream; edit: the program is still pending


class EntryLine(BaseModel):
    """One entry of a listing."""

    id: str
    state: str
    source: str
    key: str
    verdict: str
    leaks: int
    failure: str


class QueueListing(StageResult):
    """`review list`: the entries (of one state, if asked) and the count of every state."""

    entries: list[EntryLine]
    counts: dict[str, int]


class EntryShown(StageResult, Entry):
    """`review show`: one entry whole, with the LLM's rounds as stored."""

    model_config = ConfigDict(frozen=False)

    rounds: list[dict[str, Any]] = Field(description="each round as the queue stored it (its own JSON)")


class Decision(StageResult):
    """`review approve`, `reject` and `edit`: the entry's new state, and who decided."""

    id: str
    state: str
    reviewer: str | None
    difficulty: int | None
    verdict: str | None = Field(default=None, description="edit: the edited program's verdict")
    note: str | None = Field(default=None, description="edit: why the entry is still pending")


class LedgerWritten(StageResult):
    """`review export`: the ledger of approved programs (and a `surge run` input, if asked)."""

    ledger: str
    approved_programs: int
    programs: str | None = None


class LedgerChecked(StageResult):
    """`review verify`: the ledger's programs whose upstream items are unchanged, changed or missing."""

    unchanged: list[str]
    changed: list[str]
    missing: list[str]


class Served(StageResult):
    """`review serve`: the page was served until interrupted; the counts when it stopped."""

    served: bool
    counts: dict[str, int]


ReviewResult = QueueListing | EntryShown | Decision | LedgerWritten | LedgerChecked | Served


def review(options: ReviewOptions, *, observer: Observer | None = None) -> ReviewResult:
    """One action on the review queue (`surge review ACTION`)."""
    if options.action == "verify":
        return verify(options)
    queue = open_queue(options.db)
    action = options.action
    if action in {"show", "approve", "reject", "edit"} and not options.entry:
        raise ConfigurationError(f"`surge review {action}` needs an entry id", hint="see `surge review list`")
    entry = options.entry or ""
    if action == "list":
        return listing(queue, options.state)
    if action == "show":
        return shown(queue, entry)
    if action == "approve":
        return decided(queue.approve(entry, reviewer_of(options), options.difficulty))
    if action == "reject":
        return decided(queue.reject(entry, reviewer_of(options), options.reason))
    if action == "edit":
        return edit(queue, options)
    if action == "serve":
        return serve(queue, options, observer)
    return export_ledger(queue, options)


def open_queue(db: Path) -> ReviewQueue:
    """The queue at ``db``; a path with none is refused (opening one would create it)."""
    if not db.is_file():
        # A mistyped or default path would read as "0 entries" and leave an empty queue beside the real one.
        old = OLD_DEFAULT_DB.is_file() and db == DEFAULT_REVIEW_DB
        raise ConfigurationError(
            f"no review queue at {db}",
            hint=f"pass --db {OLD_DEFAULT_DB}, the queue at the old default place"
            if old
            else "pass --db STORE/review.db, the queue `surge build` or `surge refactor` filled",
        )
    return ReviewQueue(db)


def reviewer_of(options: ReviewOptions) -> str:
    return options.reviewer or os.environ.get("USER") or getpass.getuser() or "reviewer"


def listing(queue: ReviewQueue, state: str | None) -> QueueListing:
    entries = [EntryLine.model_validate(entry.summary()) for entry in queue.entries(state)]
    return QueueListing(entries=entries, counts=queue.counts())


def shown(queue: ReviewQueue, entry_id: str) -> EntryShown:
    entry = queue.get(entry_id)
    fields = {name: getattr(entry, name) for name in Entry.model_fields}
    return EntryShown(**fields, rounds=queue.rounds(entry.entry_id))


def decided(entry: Entry) -> Decision:
    return Decision(
        id=entry.entry_id,
        state=entry.state.value,
        reviewer=entry.reviewer,
        difficulty=entry.extra.get("difficulty"),
    )


def edit(queue: ReviewQueue, options: ReviewOptions) -> Decision:
    """The entry's program edited in $EDITOR, re-executed, and approved if it runs (else still pending)."""
    from pipeline.review.runner import sandbox_runner

    entry = queue.get(options.entry or "")
    if entry.program is None:
        raise InputError(f"entry {entry.entry_id} has no program to edit", hint="reject it instead")
    suffix = ".txt" if entry.method == "ojcode" else Path(entry.program.entry_file.path).suffix
    text = edit_in_editor(entry.editable_text, suffix)
    runner = sandbox_runner(options.backend, options.unsafe)
    edited = queue.edit(entry.entry_id, reviewer_of(options), text, runner, options.difficulty)
    decision = decided(edited)
    decision.verdict = edited.run.verdict if edited.run else None
    if edited.note:
        decision.note = edited.note
        decision.exit_code = CHANGED_EXIT_CODE
    return decision


def edit_in_editor(text: str, suffix: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise ConfigurationError(
            "no editor", hint="set $EDITOR (e.g. EDITOR=nano), or edit in `surge review serve`"
        )
    with tempfile.TemporaryDirectory(prefix="surge-review-") as folder:
        path = Path(folder) / f"program{suffix}"
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([*shlex.split(editor), str(path)])
        if done.returncode != 0:
            raise InputError(f"the editor exited with {done.returncode}; nothing changed", hint="edit again")
        return path.read_text(encoding="utf-8")


def serve(queue: ReviewQueue, options: ReviewOptions, observer: Observer | None) -> Served:
    """Serve the review page until interrupted; its address (and a warning beyond loopback) are told to
    the observer as notices a person must read."""
    from pipeline.review.runner import sandbox_runner
    from pipeline.review.server import is_loopback, make_server, url_host

    token = options.token or (None if is_loopback(options.host) else secrets.token_urlsafe(TOKEN_BYTES))
    runner = sandbox_runner(options.backend, options.unsafe)
    server = make_server(queue, runner, reviewer_of(options), options.host, options.port, token)
    if not is_loopback(options.host):
        warning = (
            f"the page listens on {options.host}, beyond this machine, over plain HTTP: anyone who reaches "
            "it with the token can read and decide entries (safer: bind 127.0.0.1 and forward the port "
            "over SSH)"
        )
        tell(observer, "review", "warning", warning, notice=True)
    address = f"http://{url_host(options.host)}:{server.server_port}/" + (f"?token={token}" if token else "")
    tell(observer, "review", "listening", address, notice=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return Served(served=True, counts=queue.counts())


def export_ledger(queue: ReviewQueue, options: ReviewOptions) -> LedgerWritten:
    from pipeline.ledger import export_ledger as write_ledger
    from pipeline.ledger import read_ledger, write_programs

    if options.ledger is None:
        raise ConfigurationError(
            "export needs --ledger PATH", hint="e.g. surge review export --ledger ledger.jsonl"
        )
    count = write_ledger(queue, options.ledger)
    if options.programs:
        write_programs(read_ledger(options.ledger), options.programs)
    return LedgerWritten(
        ledger=str(options.ledger),
        approved_programs=count,
        programs=str(options.programs) if options.programs else None,
    )


def verify(options: ReviewOptions) -> LedgerChecked:
    from pipeline.ledger import check_ledger, read_ledger
    from pipeline.refactor.items import load_items

    if options.ledger is None or not options.entry:
        raise ConfigurationError(
            "verify needs --ledger PATH and an items JSONL or store folder",
            hint="e.g. surge review verify items.jsonl --ledger ledger.jsonl",
        )
    items, _ = load_items(Path(options.entry))
    report = check_ledger(read_ledger(options.ledger), items)
    changed = bool(report["changed"] or report["missing"])
    return LedgerChecked(
        unchanged=report["unchanged"],
        changed=report["changed"],
        missing=report["missing"],
        exit_code=CHANGED_EXIT_CODE if changed else 0,
    )
