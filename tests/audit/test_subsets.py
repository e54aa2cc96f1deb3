"""The subset registry and the one reader agree with each other and with the released samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.records import Program
from pipeline.subsets import REGISTRY, RELEASED, ProgramPlan, release_catalog
from sources.surge_release import load_release

# The paper's numbers (SURGE, Table 1): pinned here, owned by the specs.
PAPER_CATEGORIES = {"ml": 1, "cl": 2, "rl": 3, "sc": 4, "tc": 5, "bg": 6, "dr": 7, "fl": 8}


def test_registry_and_reader_name_the_same_subsets_and_numbers() -> None:
    assert {name: spec.category for name, spec in RELEASED.items()} == PAPER_CATEGORIES
    assert {name: known.category for name, known in release_catalog().items()} == {
        name: spec.category for name, spec in REGISTRY.items()
    }  # the reader asks the specs
    ours = {name: spec.category for name, spec in REGISTRY.items() if name not in RELEASED}
    assert ours and not set(ours.values()) & set(PAPER_CATEGORIES.values())  # no number taken twice


@pytest.mark.parametrize("name", list(RELEASED))
def test_each_spec_matches_its_released_sample(name: str, samples: Path) -> None:
    spec = RELEASED[name]
    records, bad = load_release(samples / "surge-released" / f"{name}.json")
    assert bad == [] and len(records) == 3
    for record in records:
        assert record.subset == name
        assert (record.category, record.category_key) == (spec.released_category, spec.category_key)
        assert set(record.custom_features) <= set(spec.feature_keys)
        plan = spec.to_program(record)
        assert isinstance(plan, ProgramPlan) and plan.program.protocol is spec.protocol
        assert plan.program.origin == {"source": "surge-released", "subset": name, "index": str(record.index)}


def test_a_cl_record_of_a_program_that_reads_stdin_runs_with_its_input_and_standard(tmp_path: Path) -> None:
    """As our export writes a row built from an OJCode solution: its language spelled with its standard,
    its question a ```code``` block and an ```input``` block."""
    from pipeline.questions import program_question
    from sandboxes.languages import parse_language

    built = Program.single(parse_language("C++14"), "#include <cstdio>\nint main(){}\n", stdin="3\n1 2 3\n")
    record = {
        "custom_category": 1,
        "custom_features": {
            "language": "C++14",
            "repo": "OJCode",
            "difficulty": 2,
            "keywords": [],
            "lines": 2,
        },
        "question": program_question(built),
        "gt": "6",
    }
    plain = {
        **record,
        "custom_features": {**record["custom_features"], "language": "CPP"},
        "question": "int main(){}",
    }
    path = tmp_path / "cl.json"
    path.write_text(json.dumps([record, plain]))
    (ojcode, plain_record), bad = load_release(path)
    assert bad == []
    plan = RELEASED["cl"].to_program(ojcode)
    assert (plan.program.entry_file.content, plan.program.stdin) == (built.entry_file.content, built.stdin)
    assert plan.language == "cpp" and plan.setting.standard == "c++14"
    plain_plan = RELEASED["cl"].to_program(plain_record)
    assert (plain_plan.program.entry_file.content, plain_plan.program.stdin) == ("int main(){}", "")
    assert plain_plan.setting.standard is None


def test_one_reader_serves_pull_and_audit(samples: Path) -> None:
    # `surge pull` items and the audit's records come from the same parse: same subset, label, features.
    from sources.surge_release import iter_release_file

    path = samples / "surge-released" / "cl.json"
    records, _ = load_release(path)
    items = [
        r.to_source_item("c0ffee", "dataset/cl.json") for r in iter_release_file(path, "dataset/cl.json")
    ]  # type: ignore[union-attr]
    assert [(i.fields["subset"], i.fields["gt"]) for i in items] == [(r.subset, r.gt) for r in records]
