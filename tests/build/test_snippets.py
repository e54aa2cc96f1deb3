"""dr's snippet library: one file per program with its note and holes; SURGE's dr programs as snippets."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.build import dr
from pipeline.build.plan import snippet_templates
from pipeline.build.records import BuildConfig
from pipeline.build.rows import upstream
from pipeline.build.steps import plan_items
from pipeline.subsets import subset_spec
from pipeline.templates import instance_rng, library_snippets
from pipeline.templates.snippet_files import parse_snippet, released_snippets
from sources.surge_release import load_release

ROOT = Path(__file__).parents[2]
CONTROLS = Path(__file__).parent / "snippets"  # programs the dr filters must drop


def test_the_library_has_at_least_surge_s_variety_each_with_a_note() -> None:
    snippets = library_snippets()
    assert len(snippets) >= 105  # SURGE's release: 200 dr rows from 105 distinct programs
    assert len({s.name for s in snippets}) == len(snippets)
    for snippet in snippets:
        assert len(snippet.note) > 20, snippet.name
        text = snippet.render(instance_rng(1, "dr", 0))
        assert "@@" not in text and "// note:" not in text and "int main" in text, snippet.name


def test_the_header_is_cut_from_the_program_and_holes_are_drawn() -> None:
    snippet = parse_snippet(
        "demo", "// note: why\n// holes: A=3..3 W=x|x\nint main() { return @@A@@; } // @@W@@\n"
    )
    assert snippet.note == "why"
    assert snippet.render(instance_rng(0, "dr", 0)) == "int main() { return 3; } // x\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("int main() {}\n", "first line must be"),
        ("// note: n\n// holes: A=1..2\nint main() {}\n", "declared but not used"),
        ("// note: n\n// holes: A\nint main() { @@A@@; }\n", "is not NAME=LOW..HIGH"),
    ],
)
def test_a_bad_header_names_the_file_and_the_fault(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as caught:
        parse_snippet("bad", text)
    assert str(caught.value).startswith("bad: ")


def test_surge_s_dr_programs_become_snippets_without_holes(samples) -> None:
    records, _ = load_release(samples / "surge-released", {"dr"})
    snippets = released_snippets(records + records)  # a program seen twice is one snippet
    assert len(snippets) == len({r.question for r in records}) == 3
    assert all(s.origin == "surge-release" and not s.holes for s in snippets)
    assert snippets[0].render(instance_rng(0, "dr", 0)) == records[0].question


def test_templates_path_plans_surge_s_programs_round_robin(samples) -> None:
    config = BuildConfig(subset="dr", seed=3, templates=str(samples / "surge-released"))
    assert len(snippet_templates(subset_spec("dr"), config)) == 3
    items = plan_items(config, 0, 6)
    assert [i.template for i in items[:3]] == [i.template for i in items[3:]]
    assert {i.template_origin for i in items} == {"surge-release"}


def test_a_program_gives_at_most_two_rows_drawn_by_seed_in_matrix_order() -> None:
    labels = {f"label {k}": key for k, key in enumerate(dr.KEYS[:5])}
    draws = [dr.chosen_labels(labels, 7, str(i)) for i in range(200)]
    assert draws == [dr.chosen_labels(labels, 7, str(i)) for i in range(200)]
    widths = [len(chosen) for chosen in draws]
    assert set(widths) == {1, 2} and 1.85 <= sum(widths) / len(widths) <= 1.95  # SURGE's 200 rows / 105
    for chosen in draws:
        assert [dr.KEYS.index(key) for _, key in chosen] == sorted(dr.KEYS.index(key) for _, key in chosen)
    assert len({tuple(chosen) for chosen in draws}) > 5  # not always the first labels


def test_later_rounds_of_a_program_without_holes_take_the_labels_left() -> None:
    labels = {f"label {k}": key for k, key in enumerate(dr.KEYS[:5])}
    for name in ("surge-dr-x", "surge-dr-y", "surge-dr-z"):
        rounds = [dr.chosen_labels(labels, 7, name, r) for r in range(4)]
        taken = [pair for r in rounds for pair in r]
        assert len(taken) == len(set(taken)) and rounds[3] == []  # never the same label twice


def test_a_program_without_holes_knows_its_round(samples) -> None:
    config = BuildConfig(subset="dr", seed=3, templates=str(samples / "surge-released"))
    rounds = [item.program().origin.get("round") for item in plan_items(config, 0, 7)]
    assert rounds == ["0", "0", "0", "1", "1", "1", "2"]
    library = plan_items(BuildConfig(subset="dr", seed=3), 0, 2)
    assert all("round" not in item.program().origin for item in library)


def test_controls_are_test_data_not_library_programs() -> None:
    names = {s.name for s in library_snippets()}
    controls = {s.name for s in library_snippets(CONTROLS)}
    assert controls == {"plain_sum", "pointer_value"} and not controls & names


def test_a_row_names_its_snippet_file_under_the_spec_s_folder_or_the_released_program(samples) -> None:
    library = plan_items(BuildConfig(subset="dr", seed=3), 0, 1)[0]
    path = upstream(subset_spec("dr"), library, 3).path
    assert path == f"{subset_spec('dr').template_folder}/{library.template}" and (ROOT / path).is_file()
    released = plan_items(BuildConfig(subset="dr", seed=3, templates=str(samples / "surge-released")), 0, 1)
    assert upstream(subset_spec("dr"), released[0], 3).path == f"dr.json:{released[0].template}"
