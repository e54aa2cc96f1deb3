"""The review queue through `surge review`: decisions, $EDITOR edits re-executed, finality, ledger."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.ledger import check_ledger, item_sha256, read_ledger
from pipeline.programs import load_program_file
from pipeline.review.queue import ReviewQueue
from tests.review.helpers import candidate, filled_queue


def surge(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() else {})


def state_in_db(db: Path, entry_id: str) -> tuple:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT state, reviewer, reason FROM entries WHERE entry_id = ?", (entry_id,)
        ).fetchone()


def editor(tmp_path: Path, sed_expression: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\nsed -i '{sed_expression}' \"$1\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_list_approve_reject_and_decisions_are_final(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "review.db"
    _, items = filled_queue(db)
    first, second = items[0].item_id, items[1].item_id
    code, listed = surge(capsys, "review", "list", "--db", str(db), "--state", "pending")
    assert code == 0 and {e["id"] for e in listed["entries"]} == {i.item_id for i in items}

    assert surge(capsys, "review", "approve", first[:8], "--db", str(db), "--reviewer", "ada")[0] == 0
    assert state_in_db(db, first) == ("approved", "ada", None)
    assert main(["review", "reject", second, "--db", str(db)]) == 2  # no reason given
    assert "needs a reason" in capsys.readouterr().err
    surge(
        capsys,
        "review",
        "reject",
        second,
        "--db",
        str(db),
        "--reviewer",
        "bo",
        "--reason",
        "prints nothing useful",
    )
    assert state_in_db(db, second) == ("rejected", "bo", "prints nothing useful")

    assert main(["review", "reject", first, "--db", str(db), "--reason", "changed my mind"]) == 2
    assert "decisions are final" in capsys.readouterr().err
    code, shown = surge(capsys, "review", "show", first, "--db", str(db))
    assert shown["state"] == "approved" and len(shown["rounds"]) == 1


def test_a_rerun_never_touches_a_decided_entry(tmp_path: Path) -> None:
    queue, items = filled_queue(tmp_path / "review.db", count=1)
    queue.approve(items[0].item_id, "ada")
    item, outcome = candidate(1)
    rewritten = outcome.model_copy(update={"status": "failed", "program": None})
    assert queue.add_outcome(item, rewritten) is False
    assert queue.get(item.item_id).state.value == "approved" and queue.done_item_ids() == {item.item_id}


def test_edit_in_editor_is_re_executed_then_accepted_with_a_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "review.db"
    _, items = filled_queue(db, count=2)
    monkeypatch.setenv("EDITOR", editor(tmp_path, "s/add1(2, 3)/add1(20, 3)/"))
    monkeypatch.delenv("VISUAL", raising=False)
    code, edited = surge(
        capsys, "review", "edit", items[0].item_id, "--db", str(db), "--unsafe", "--reviewer", "cy"
    )
    assert code == 0 and edited["state"] == "edited" and edited["verdict"] == "ok"
    code, shown = surge(capsys, "review", "show", items[0].item_id, "--db", str(db))
    assert shown["run"]["stdout"] == "23\n" and "+print(add1(20, 3))" in shown["diff"]
    assert shown["llm_program"]["files"][0]["content"] != shown["program"]["files"][0]["content"]


def test_an_edit_that_breaks_the_program_stays_pending_and_cannot_be_approved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "review.db"
    _, items = filled_queue(db, count=1)
    entry_id = items[0].item_id
    monkeypatch.setenv("EDITOR", editor(tmp_path, "s/return a + b/return a +/"))
    code, edited = surge(capsys, "review", "edit", entry_id, "--db", str(db), "--unsafe")
    assert code == 1 and edited["state"] == "pending" and "does not run" in edited["note"]
    assert main(["review", "approve", entry_id, "--db", str(db)]) == 2
    assert "cannot be approved" in capsys.readouterr().err
    assert state_in_db(db, entry_id)[0] == "pending"


def test_ledger_exports_approved_programs_and_detects_a_changed_upstream_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, ledger, programs = tmp_path / "review.db", tmp_path / "ledger.jsonl", tmp_path / "programs.jsonl"
    queue, items = filled_queue(db)
    queue.approve(items[0].item_id, "ada")
    queue.approve(items[1].item_id, "ada")
    queue.reject(items[2].item_id, "ada", "leaks")
    code, summary = surge(
        capsys, "review", "export", "--db", str(db), "--ledger", str(ledger), "--programs", str(programs)
    )
    assert code == 0 and summary["approved_programs"] == 2
    lines = read_ledger(ledger)
    assert {line.key for line in lines} == {items[0].key, items[1].key}
    assert lines[0].item_sha256 == item_sha256(items[0]) and lines[0].label == "5\n"
    entries, bad = load_program_file(programs)  # regeneration needs no LLM: `surge run` reads this file
    assert not bad and {e.program.program_id for e in entries} == {line.program_id for line in lines}

    changed = items[1].model_copy(update={"fields": {**items[1].fields, "test": "assert add2(1, 1) == 2"}})
    report = check_ledger(lines, [items[0], changed])
    assert report == {
        "unchanged": [f"mceval/{items[0].key}"],
        "changed": [f"mceval/{items[1].key}"],
        "missing": [],
    }
    items_file = tmp_path / "items.jsonl"
    items_file.write_text("\n".join(i.model_dump_json() for i in (items[0], changed)) + "\n")
    code, verified = surge(capsys, "review", "verify", str(items_file), "--ledger", str(ledger))
    assert code == 1 and verified["changed"] == [f"mceval/{items[1].key}"]


def test_a_hand_edited_ledger_is_refused(tmp_path: Path) -> None:
    db, ledger = tmp_path / "review.db", tmp_path / "ledger.jsonl"
    queue, items = filled_queue(db, count=1)
    queue.approve(items[0].item_id, "ada")
    from pipeline.ledger import export_ledger

    export_ledger(queue, ledger)
    ledger.write_text(ledger.read_text().replace("a + b", "a - b"))
    with pytest.raises(Exception, match="hash mismatch"):
        read_ledger(ledger)
    assert os.path.getsize(ledger) > 0


def rated_queue(db: Path, proposals: list[int | None]) -> list[str]:
    """Entries of a rated method (like cl), each with the LLM's proposed difficulty."""
    queue = ReviewQueue(db)
    ids = []
    for number, proposal in enumerate(proposals, start=1):
        item, outcome = candidate(number)
        outcome.extra = {"difficulty": proposal}
        assert queue.add_outcome(item, outcome)
        ids.append(item.item_id)
    return ids


def test_a_rated_item_is_approved_with_a_confirmed_difficulty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "review.db"
    kept, changed, unrated = rated_queue(db, [3, 4, None])
    code, decided = surge(capsys, "review", "approve", kept, "--db", str(db))
    assert code == 0 and decided["difficulty"] == 3
    code, decided = surge(capsys, "review", "approve", changed, "--db", str(db), "--difficulty", "2")
    assert code == 0 and decided["difficulty"] == 2
    assert ReviewQueue(db).get(changed).extra == {"difficulty": 2, "difficulty_proposed": 4}
    # The LLM gave no rating: the reviewer must, and only 1-5 is a difficulty
    assert main(["review", "approve", unrated, "--db", str(db)]) == 2
    assert "needs a difficulty from 1 to 5" in capsys.readouterr().err
    assert main(["review", "approve", unrated, "--db", str(db), "--difficulty", "9"]) == 2
    capsys.readouterr()
    assert state_in_db(db, unrated)[0] == "pending"
    assert surge(capsys, "review", "approve", unrated, "--db", str(db), "--difficulty", "5")[0] == 0
    with sqlite3.connect(db) as connection:
        notes = [row[0] for row in connection.execute("SELECT note FROM events WHERE action = 'approved'")]
    assert sorted(notes) == ["difficulty 2", "difficulty 3", "difficulty 5"]


def test_an_unrated_item_refuses_a_difficulty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "review.db"
    _, items = filled_queue(db, count=1)
    assert main(["review", "approve", items[0].item_id, "--db", str(db), "--difficulty", "3"]) == 2
    assert "has no difficulty" in capsys.readouterr().err


def test_list_without_a_queue_is_refused_and_creates_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --db and no queue at the default place: one line naming the place and the fix, nothing created
    (it used to open an empty queue elsewhere than the one `surge build` filled)."""
    monkeypatch.chdir(tmp_path)
    code = main(["review", "list"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "no review queue at .surge/store/review.db" in err and "--db" in err
    assert not (tmp_path / ".surge").exists()


def test_list_reads_the_queue_build_fills_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`surge build --auto-approve` writes STORE/review.db; `surge review list` without --db reads the
    default store's, as a table with counts per state (not a Python dict)."""
    monkeypatch.chdir(tmp_path)
    filled_queue(tmp_path / ".surge" / "store" / "review.db", count=2)  # where build leaves it by default
    code = main(["review", "list"])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[0].split() == ["id", "state", "verdict", "leaks", "item"]
    assert out.splitlines()[-1] == "2 entries; by state: 2 pending" and "{" not in out
