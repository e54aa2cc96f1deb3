"""`surge refactor` end to end: JSONL items -> Prefect flow -> LLM (replay) -> sandbox -> review queue."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.review.queue import ReviewQueue
from tests.refactor.helpers import mceval_item
from tests.refactor.openai_replay import ReplayServer, Reply, code


def refactor(
    capsys: pytest.CaptureFixture[str], items: Path, db: Path, server: ReplayServer, *extra: str
) -> tuple[dict, str]:
    """`surge refactor --json`: its summary, and its stderr (not a terminal: the bar's plain lines)."""
    argv = [
        "refactor",
        str(items),
        "--db",
        str(db),
        "--unsafe",
        "--llm-base-url",
        server.base_url,
        "--llm-model",
        "replay-1",
        "--llm-cache",
        str(db.parent / "cache"),
        "--batch-size",
        "1",
        "--json",
        *extra,
    ]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_refactor_queues_candidates_keeps_failures_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SURGE_LLM_API_KEY", "sk-test-not-secret")
    good, stubborn = mceval_item(1), mceval_item(2)
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(item.model_dump_json() for item in (good, stubborn)) + "\n")
    db = tmp_path / "review.db"
    replies = [
        Reply(code("python", "def add1(a, b):\n    return a + b\n\nprint(add1(2, 3))"), match="def add1"),
        Reply("Sorry, I can't.", match="def add2"),
        Reply("Still no.", match="def add2"),
    ]
    with ReplayServer(replies) as server:
        first, progress = refactor(capsys, items, db, server, "--max-rounds", "2")
        # items refactored (a candidate or failed) of those asked, one batch of one item at a time
        assert re.fullmatch(r"refactor \[#{24}\] items 2/2, \d+ s elapsed, ETA 0 s\n", progress), progress
        assert (first["candidates"], first["failed"], first["already_queued"]) == (1, 1, 0)
        assert first["llm"]["requests"] == 3 and first["llm"]["prompt_tokens"] == 300
        queue = ReviewQueue(db)
        assert queue.get(stubborn.item_id).state.value == "failed"
        assert "no_code" in queue.get(stubborn.item_id).failure
        queue.approve(good.item_id, "ada")

        # Rerun with one more round: the approved item is skipped; the failed one replays its two cached
        # rounds for free and gets a third, fresh answer.
        server.add(
            Reply(code("python", "def add2(a, b):\n    return a + b\n\nprint(add2(4, 4))"), match="def add2")
        )
        second, progress = refactor(capsys, items, db, server, "--max-rounds", "3")
        assert "] items 1/1, " in progress  # the queued item is not asked again
    assert (second["already_queued"], second["refactored"], second["candidates"]) == (1, 1, 1)
    assert second["llm"]["cache_hits"] == 2 and second["llm"]["requests"] == 1
    assert queue.get(good.item_id).state.value == "approved"
    retried = queue.get(stubborn.item_id)
    assert retried.run is not None and retried.run.stdout == "8\n"
    assert [r["attempt"] for r in queue.rounds(stubborn.item_id)] == [1, 1, 2, 2, 2]
    assert set(server.authorizations) == {"Bearer sk-test-not-secret"}
