"""SURGE's fl label: every bundled sample parses, re-serialises to the same text, and is reproduced."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandboxes.lean.result import axiom_audit, complete, fl_label, parse_fl_label, shifted_messages
from sandboxes.lean.source import split_source
from tests.conftest import SAMPLES

FL = json.loads((SAMPLES / "surge-released" / "fl.json").read_text())


@pytest.mark.parametrize("record", FL, ids=lambda r: str(FL.index(r)))
def test_every_sample_label_round_trips(record: dict[str, Any]) -> None:
    messages, passed, complete_ = parse_fl_label(record["gt"])
    assert passed is (not messages) and complete_ is passed
    sorries = 0 if complete_ or not passed else 1
    assert fl_label(messages, sorries) == record["gt"]


@pytest.mark.parametrize("record", FL, ids=lambda r: str(FL.index(r)))
def test_repl_answer_for_the_body_becomes_the_release_label(record: dict[str, Any]) -> None:
    """What the REPL prints for the body (its own line numbers, keys sorted) shifts to the file's lines."""
    offset = split_source(record["question"]).body_line_offset
    gt = json.loads(record["gt"])
    repl_messages = [
        dict(sorted({**e, "pos": _up(e["pos"], offset), "endPos": _up(e["endPos"], offset)}.items()))
        for e in gt["errors"]
    ]
    repl_messages.append(
        {"severity": "info", "pos": {"line": 1, "column": 0}, "endPos": None, "data": "note"}
    )
    assert fl_label(shifted_messages(repl_messages, offset), 0) == record["gt"]


def _up(pos: dict[str, int] | None, offset: int) -> dict[str, int] | None:
    return None if pos is None else {"line": pos["line"] - offset, "column": pos["column"]}


def test_malformed_label_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_fl_label('{"errors": [], "pass": true}')


def _msg(severity: str, data: str) -> dict[str, Any]:
    return {"severity": severity, "pos": {"line": 1, "column": 0}, "endPos": None, "data": data}


def test_complete_as_goedel_prover_defines_it() -> None:
    clean = shifted_messages([_msg("info", "ok")], 0)
    assert complete(clean, 0)
    assert not complete(clean, 1)  # a sorry
    assert not complete(shifted_messages([_msg("warning", "declaration uses 'sorry'")], 0), 0)
    assert not complete(shifted_messages([_msg("warning", "linarith failed to find a contradiction")], 0), 0)
    assert complete(shifted_messages([_msg("warning", "unused variable `h`")], 0), 0)
    assert not complete(shifted_messages([_msg("error", "x")], 0), 0)


def test_label_keeps_only_errors_and_escapes_like_the_release() -> None:
    messages = shifted_messages([_msg("warning", "w"), _msg("error", "⊢ x✝")], 6)
    label = fl_label(messages, 0)
    assert label == (
        '{"errors": [{"severity": "error", "pos": {"line": 7, "column": 0}, "endPos": null, '
        '"data": "\\u22a2 x\\u271d"}], "pass": false, "complete": false}'
    )


def test_axiom_audit_reads_print_axioms() -> None:
    printed = [
        _msg("info", "'a' depends on axioms: [propext, sorryAx]"),
        _msg("info", "'b' depends on axioms: [Classical.choice,\n Lean.ofReduceBool, cheat]"),
        _msg("info", "'c' does not depend on any axioms"),
    ]
    audit = axiom_audit(["a", "b", "c", "d"], printed, ["cheat"], [], 0)
    assert audit.uses_sorry_ax and audit.uses_native_decide
    assert audit.nonstandard_axioms == ["cheat"] and audit.user_axioms == ["cheat"]
    assert audit.axioms_by_declaration["c"] == [] and audit.unaudited == ["d"]
