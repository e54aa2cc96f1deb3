"""The review queue: one SQLite file (stdlib sqlite3), a row per upstream item, every round and decision kept.

States::

    failed ──(rerun)──> pending ──> approved     (the LLM's program, as it was)
                                ├─> edited       (a reviewer's fix, re-executed before it was accepted)
                                └─> rejected     (with the reason)

Approved, edited and rejected entries are final: no rerun and no command changes them ("nothing
already approved is touched"). A failed refactor is kept with its reason and retried by the next run.

Competition items (cl) carry the LLM's proposed difficulty (1-5, ``extra["difficulty"]``): accepting one
confirms a difficulty, the proposal or the reviewer's own (``--difficulty N``), and keeps both
(``difficulty_proposed``, ``difficulty``) so a row can say who decided it.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pipeline.errors import InputError
from pipeline.records import LabelProtocol, Program, ProgramFile, RunResult, SourceItem, Verdict
from pipeline.refactor.outcome import ExecutionFacts, Outcome

MIN_ID_PREFIX_CHARS = 4
DIFFICULTIES = range(1, 6)


class State(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    EDITED = "edited"
    REJECTED = "rejected"
    FAILED = "failed"


FINAL_STATES = frozenset({State.APPROVED, State.EDITED, State.REJECTED})
ACCEPTED_STATES = frozenset({State.APPROVED, State.EDITED})

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    entry_id TEXT PRIMARY KEY,          -- the upstream item's content id
    source TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, prompt TEXT NOT NULL,
    state TEXT NOT NULL,
    item_json TEXT NOT NULL,
    llm_program_json TEXT,              -- what the LLM produced (never changed after creation)
    program_json TEXT,                  -- the current program (the reviewer's edit, if any)
    run_json TEXT,                      -- the current program's execution
    leaks_json TEXT NOT NULL DEFAULT '[]',
    extra_json TEXT NOT NULL DEFAULT '{}',
    failure TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',      -- e.g. why an edit could not be accepted yet
    reviewer TEXT, reviewed_at TEXT, reason TEXT, diff TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_state ON entries(state);
CREATE TABLE IF NOT EXISTS rounds (
    entry_id TEXT NOT NULL, attempt INTEGER NOT NULL, round INTEGER NOT NULL, round_json TEXT NOT NULL,
    PRIMARY KEY (entry_id, attempt, round)
);
CREATE TABLE IF NOT EXISTS events (
    entry_id TEXT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
    from_state TEXT, to_state TEXT NOT NULL, note TEXT NOT NULL DEFAULT ''
);
"""

Runner = Callable[[Program], RunResult]


class Entry(BaseModel):
    entry_id: str
    source: str
    key: str
    method: str
    prompt: str
    state: State
    item: SourceItem
    llm_program: Program | None = None
    program: Program | None = None
    run: ExecutionFacts | None = None
    leaks: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    failure: str = ""
    note: str = ""
    reviewer: str | None = None
    reviewed_at: str | None = None
    reason: str | None = None
    diff: str | None = None
    created_at: str
    updated_at: str

    @property
    def editable_text(self) -> str:
        """What a reviewer edits: the stdin input for input-writing methods, else the program's source."""
        return _editable(self.method, self.program)

    @property
    def run_is_acceptable(self) -> bool:
        return acceptable(self.program, self.run)

    def summary(self) -> dict[str, Any]:
        """One line of a listing (CLI and page)."""
        return {
            "id": self.entry_id,
            "state": self.state.value,
            "source": self.source,
            "key": self.key,
            "verdict": self.run.verdict if self.run else "",
            "leaks": len(self.leaks),
            "failure": self.failure[:80],
        }


def acceptable(program: Program | None, run: ExecutionFacts | None) -> bool:
    """Approvable only if the latest run works (a bg program may fail: that failure is its label)."""
    if program is None or run is None or run.verdict in (Verdict.SANDBOX_ERROR, Verdict.TOOLCHAIN_MISSING):
        return False
    if program.protocol is LabelProtocol.COMBINED_WITH_PREFIX:
        return True
    return run.verdict == Verdict.OK and bool(run.stdout.strip())


def confirmed_extra(entry: Entry, difficulty: int | None) -> dict[str, Any]:
    """The entry's extra with its difficulty confirmed: the reviewer's, else the LLM's proposal.

    Only rated items (their extra has a ``difficulty`` key) take one; a rating the LLM could not give
    must come from the reviewer."""
    if "difficulty" not in entry.extra:
        if difficulty is not None:
            raise InputError(
                f"entry {entry.entry_id} ({entry.method}) has no difficulty", hint="drop --difficulty"
            )
        return entry.extra
    proposed = entry.extra.get("difficulty_proposed", entry.extra["difficulty"])
    chosen = proposed if difficulty is None else difficulty
    if chosen not in DIFFICULTIES:
        raise InputError(
            f"entry {entry.entry_id} needs a difficulty from 1 to 5 (proposed: {proposed})",
            hint="pass --difficulty N (1 trivial ... 5 very hard to trace)",
        )
    return {**entry.extra, "difficulty_proposed": proposed, "difficulty": chosen}


def _editable(method: str, program: Program | None) -> str:
    if program is None:
        return ""
    return program.stdin if method == "ojcode" else program.entry_file.content


def _with_text(method: str, program: Program, text: str) -> Program:
    if method == "ojcode":
        return program.model_copy(update={"stdin": text})
    files = tuple(
        ProgramFile(path=f.path, content=text) if f.path == program.entry_file.path else f
        for f in program.files
    )
    return program.model_copy(update={"files": files})


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ReviewQueue:
    def __init__(self, path: Path | str) -> None:  # a store's: queue_of(store_root)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        # One short-lived connection per operation: safe across threads (review server) and processes.
        connection = sqlite3.connect(self.path, timeout=30)
        connection.row_factory = sqlite3.Row
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            with connection:
                yield connection
        finally:
            connection.close()

    # -- filling the queue (refactor runs) ------------------------------------------------------

    def done_item_ids(self) -> set[str]:
        """Items a rerun must skip: everything except failed refactors."""
        with self._db() as db:
            rows = db.execute("SELECT entry_id FROM entries WHERE state != ?", (State.FAILED,)).fetchall()
        return {row[0] for row in rows}

    def add_outcome(self, item: SourceItem, outcome: Outcome) -> bool:
        """Record a refactor outcome; False (and nothing written) if the item already has a live entry."""
        state = State.PENDING if outcome.status == "candidate" else State.FAILED
        program = outcome.program.model_dump_json() if outcome.program else None
        with self._db() as db:
            row = db.execute("SELECT state FROM entries WHERE entry_id = ?", (item.item_id,)).fetchone()
            if row is not None and row["state"] != State.FAILED:
                return False
            attempt = (
                1
                + (
                    db.execute(
                        "SELECT COALESCE(MAX(attempt), 0) FROM rounds WHERE entry_id = ?", (item.item_id,)
                    ).fetchone()[0]
                )
            )
            stamp = now()
            db.execute("DELETE FROM entries WHERE entry_id = ?", (item.item_id,))
            db.execute(
                "INSERT INTO entries (entry_id, source, key, method, prompt, state, item_json,"
                " llm_program_json,"
                " program_json, run_json, leaks_json, extra_json, failure, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    item.item_id,
                    item.source,
                    item.key,
                    outcome.method,
                    outcome.prompt,
                    state,
                    item.model_dump_json(exclude={"item_id"}),
                    program,
                    program,
                    outcome.run.model_dump_json() if outcome.run else None,
                    json.dumps(outcome.leaks),
                    json.dumps(outcome.extra, default=str),
                    outcome.reason,
                    stamp,
                    stamp,
                ),
            )
            db.executemany(
                "INSERT INTO rounds (entry_id, attempt, round, round_json) VALUES (?, ?, ?, ?)",
                [(item.item_id, attempt, r.index, r.model_dump_json()) for r in outcome.rounds],
            )
            self._event(
                db, item.item_id, "refactor", "refactor", row["state"] if row else None, state, outcome.reason
            )
        return True

    # -- reading -----------------------------------------------------------------------------------

    def resolve(self, id_or_prefix: str) -> str:
        if len(id_or_prefix) < MIN_ID_PREFIX_CHARS:
            raise InputError(
                f"entry id {id_or_prefix!r} is too short",
                hint=f"give at least {MIN_ID_PREFIX_CHARS} characters (see `surge review list`)",
            )
        with self._db() as db:
            rows = db.execute(
                "SELECT entry_id FROM entries WHERE entry_id LIKE ? LIMIT 2", (id_or_prefix + "%",)
            ).fetchall()
        if len(rows) != 1:
            problem = "no entry" if not rows else "more than one entry"
            raise InputError(
                f"{problem} matches {id_or_prefix!r}", hint="see `surge review list` for the ids"
            )
        return str(rows[0][0])

    def get(self, id_or_prefix: str) -> Entry:
        entry_id = self.resolve(id_or_prefix)
        with self._db() as db:
            row = db.execute("SELECT * FROM entries WHERE entry_id = ?", (entry_id,)).fetchone()
        return _entry(row)

    def entries(self, state: State | str | None = None) -> list[Entry]:
        query = "SELECT * FROM entries"
        args: tuple[str, ...] = ()
        if state:
            query, args = query + " WHERE state = ?", (str(state),)
        with self._db() as db:
            rows = db.execute(query + " ORDER BY source, key", args).fetchall()
        return [_entry(row) for row in rows]

    def rounds(self, id_or_prefix: str) -> list[dict[str, Any]]:
        entry_id = self.resolve(id_or_prefix)
        with self._db() as db:
            rows = db.execute(
                "SELECT attempt, round_json FROM rounds WHERE entry_id = ? ORDER BY attempt, round",
                (entry_id,),
            ).fetchall()
        return [{"attempt": row[0], **json.loads(row[1])} for row in rows]

    def counts(self) -> dict[str, int]:
        with self._db() as db:
            rows = db.execute("SELECT state, COUNT(*) FROM entries GROUP BY state").fetchall()
        return {row[0]: row[1] for row in rows}

    # -- decisions -----------------------------------------------------------------------------------

    def approve(self, id_or_prefix: str, reviewer: str, difficulty: int | None = None) -> Entry:
        """Accept the program as it is; a rated item's difficulty is confirmed (``difficulty`` overrides)."""
        entry = self._pending(id_or_prefix)
        if not entry.run_is_acceptable:
            raise InputError(
                f"entry {entry.entry_id} cannot be approved: its program's last run is "
                f"{entry.run.verdict if entry.run else 'missing'}",
                hint="edit it until it runs (`surge review edit ID`), or reject it",
            )
        extra = confirmed_extra(entry, difficulty)
        diff = self._diff(entry)
        state = State.EDITED if diff else State.APPROVED
        self._decide(entry, state, reviewer, reason=None, diff=diff, extra=extra)
        return self.get(entry.entry_id)

    def reject(self, id_or_prefix: str, reviewer: str, reason: str) -> Entry:
        if not reason.strip():
            raise InputError("a rejection needs a reason", hint="pass --reason 'why the program is unusable'")
        entry = self._pending(id_or_prefix)
        self._decide(entry, State.REJECTED, reviewer, reason=reason, diff=None)
        return self.get(entry.entry_id)

    def edit(
        self, id_or_prefix: str, reviewer: str, text: str, runner: Runner, difficulty: int | None = None
    ) -> Entry:
        """Replace the program's text, re-execute it, and accept it as 'edited' only if the new run works."""
        entry = self._pending(id_or_prefix)
        extra = confirmed_extra(entry, difficulty)  # refuse a missing difficulty before running anything
        if entry.program is None:
            raise InputError(f"entry {entry.entry_id} has no program to edit", hint="reject it instead")
        if text == entry.editable_text:
            raise InputError(
                "the edit changes nothing", hint="approve the entry as it is, or change the program"
            )
        program = _with_text(entry.method, entry.program, text)
        run = ExecutionFacts.of(runner(program))
        ok = acceptable(program, run)
        note = "" if ok else f"edited program does not run yet ({run.verdict}); edit again or reject"
        with self._db() as db:
            db.execute(
                "UPDATE entries SET program_json = ?, run_json = ?, note = ?, updated_at = ?"
                " WHERE entry_id = ?",
                (program.model_dump_json(), run.model_dump_json(), note, now(), entry.entry_id),
            )
            self._event(db, entry.entry_id, reviewer, "edit", entry.state, entry.state, note or run.verdict)
        edited = self.get(entry.entry_id)
        if ok:
            self._decide(edited, State.EDITED, reviewer, reason=None, diff=self._diff(edited), extra=extra)
        return self.get(entry.entry_id)

    def _pending(self, id_or_prefix: str) -> Entry:
        entry = self.get(id_or_prefix)
        if entry.state is not State.PENDING:
            raise InputError(
                f"entry {entry.entry_id} is {entry.state.value}, not pending: decisions are final",
                hint="a failed item is retried by `surge refactor`; decided entries never change",
            )
        return entry

    def _decide(
        self,
        entry: Entry,
        state: State,
        reviewer: str,
        reason: str | None,
        diff: str | None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        extra = entry.extra if extra is None else extra
        with self._db() as db:
            changed = db.execute(
                "UPDATE entries SET state = ?, reviewer = ?, reviewed_at = ?, reason = ?, diff = ?,"
                " note = '', extra_json = ?,"
                " updated_at = ? WHERE entry_id = ? AND state = ?",
                (
                    state,
                    reviewer,
                    now(),
                    reason,
                    diff or None,
                    json.dumps(extra, ensure_ascii=False),
                    now(),
                    entry.entry_id,
                    State.PENDING,
                ),
            ).rowcount
            if changed != 1:  # someone else decided in between (two reviewers, one page each)
                raise InputError(
                    f"entry {entry.entry_id} was decided meanwhile", hint="reload and check its state"
                )
            note = reason or (f"difficulty {extra['difficulty']}" if "difficulty_proposed" in extra else "")
            self._event(db, entry.entry_id, reviewer, state.value, State.PENDING, state, note)

    @staticmethod
    def _diff(entry: Entry) -> str:
        before = _editable(entry.method, entry.llm_program)
        after = entry.editable_text
        if before == after:
            return ""
        lines = difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile="llm",
            tofile="approved",
        )
        return "".join(lines)

    @staticmethod
    def _event(
        db: sqlite3.Connection,
        entry_id: str,
        actor: str,
        action: str,
        from_state: str | None,
        to_state: str,
        note: str,
    ) -> None:
        db.execute(
            "INSERT INTO events (entry_id, at, actor, action, from_state, to_state, note)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (entry_id, now(), actor, action, from_state, to_state, note),
        )


def _entry(row: sqlite3.Row) -> Entry:
    def load(column: str) -> Any:
        return json.loads(row[column]) if row[column] else None

    return Entry(
        entry_id=row["entry_id"],
        source=row["source"],
        key=row["key"],
        method=row["method"],
        prompt=row["prompt"],
        state=State(row["state"]),
        item=SourceItem.model_validate(load("item_json")),
        llm_program=_program(load("llm_program_json")),
        program=_program(load("program_json")),
        run=ExecutionFacts.model_validate(load("run_json")) if row["run_json"] else None,
        leaks=load("leaks_json") or [],
        extra=load("extra_json") or {},
        failure=row["failure"],
        note=row["note"],
        reviewer=row["reviewer"],
        reviewed_at=row["reviewed_at"],
        reason=row["reason"],
        diff=row["diff"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _program(data: dict[str, Any] | None) -> Program | None:
    if data is None:
        return None
    data.pop("program_id", None)  # computed field: recomputed on load
    return Program.model_validate(data)
