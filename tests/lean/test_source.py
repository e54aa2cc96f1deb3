"""The header/body split keeps every line where it was."""

from __future__ import annotations

import json

from sandboxes.lean.source import split_source
from tests.conftest import SAMPLES
from tests.lean.conftest import HEADER


def test_surge_header_is_split_off_and_lines_are_counted_over_the_file() -> None:
    for record in json.loads((SAMPLES / "surge-released" / "fl.json").read_text()):
        source = split_source(record["question"])
        assert source.header == HEADER
        assert source.body_line_offset == 6
        lines = record["question"].split("\n")
        assert source.body.split("\n") == lines[6:]  # body line n is file line n + 6


def test_goedel_header_field_matches_the_split() -> None:
    for line in (SAMPLES / "goedel-prover" / "minif2f.jsonl").read_text().splitlines():
        item = json.loads(line)
        text = item["header"] + item["informal_prefix"] + item["formal_statement"] + "  sorry\n"
        source = split_source(text)
        assert source.header == item["header"].rstrip("\n")
        assert source.body.startswith("\n/--")


def test_scoped_open_and_set_option_stay_with_their_command() -> None:
    source = split_source("import Mathlib\nopen Real in\ntheorem t : True := trivial")
    assert (source.header, source.body_line_offset) == ("import Mathlib", 1)
    source = split_source("import Mathlib\nset_option maxRecDepth 1000 in\nexample : True := trivial")
    assert source.body.startswith("set_option maxRecDepth 1000 in")


def test_a_preamble_command_continued_on_the_next_line_is_not_cut() -> None:
    source = split_source("import Mathlib\nopen Nat\n  Real\ntheorem t : True := trivial")
    assert source.header == "import Mathlib"
    assert source.body.startswith("open Nat\n  Real")


def test_no_header() -> None:
    source = split_source("theorem t : True := trivial")
    assert (source.header, source.body, source.body_line_offset) == ("", "theorem t : True := trivial", 0)


def test_declarations_and_user_axioms_skip_comments() -> None:
    source = split_source(
        "import Mathlib\n/- theorem fake : True -/\n-- lemma nope\ntheorem a : True := trivial\n"
        "axiom cheat : False\nprivate lemma b : True := trivial\nnoncomputable def c : ℕ := 1"
    )
    assert source.declarations == ["a", "cheat", "b", "c"]
    assert source.user_axioms == ["cheat"]


def test_comments_before_and_between_imports_belong_to_the_header() -> None:
    text = (
        "/- licence\n  text -/\n-- note\nimport Mathlib\n-- between\nopen Real\n-- about t\ntheorem t : True"
    )
    source = split_source(text)
    assert source.body_line_offset == 6 and source.body.startswith("-- about t")
    docstring = split_source("import Mathlib\n/-- doc -/\ntheorem t : True := trivial")
    assert docstring.body.startswith("/-- doc -/")
