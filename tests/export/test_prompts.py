"""The prompt templates against the released prompts, character by character."""

from __future__ import annotations

import pytest

from pipeline.dataset import DatasetRow, import_released
from pipeline.export.prompts import choose_examples, example_of, load_template, parse_examples, render
from sources import SAMPLES
from sources.surge_release import load_release

ROWS = import_released(load_release(SAMPLES / "surge-released")[0])


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.upstream.key)
def test_faithful_templates_rebuild_every_released_prompt(row: DatasetRow) -> None:
    # The released examples come from the full release (not in the samples), so they are read back out
    # of sys_3shot; everything around them (task line, format, CoT line, intro, example format,
    # separators, count, closing line, run command, domain) is the template's.
    released = row.released_prompts
    examples = parse_examples(row, released["sys_3shot"])
    assert len(examples) == {"bg": 4, "dr": 6}.get(row.subset, 3)
    prompts = render(row, examples, faithful=True)
    assert prompts.sys_0shot == released["sys_0shot"]
    assert prompts.sys_cot == released["sys_cot"]
    assert prompts.sys_3shot == released["sys_3shot"]


def test_corrected_prompts_fix_each_defect_and_nothing_else() -> None:
    dr = next(row for row in ROWS if row.subset == "dr")
    corrected = render(dr, parse_examples(dr, dr.released_prompts["sys_3shot"]), faithful=False)
    assert "-std=c++C++11 O1" in dr.released_prompts["sys_0shot"]
    assert "clang++ -std=c++11 -O1 test.cpp" in corrected.sys_0shot
    assert (
        corrected.sys_0shot.replace("-std=c++11 -O1", "-std=c++C++11 O1") == dr.released_prompts["sys_0shot"]
    )
    rl = next(row for row in ROWS if row.subset == "rl")
    fixed = render(rl, parse_examples(rl, rl.released_prompts["sys_3shot"]), faithful=False).sys_3shot
    assert "Gasolineoutput:" in rl.released_prompts["sys_3shot"] and "Gasoline\noutput:" in fixed
    bg = next(row for row in ROWS if row.subset == "bg")
    assert "\\{class_name\\}" not in render(bg, [], faithful=False).sys_0shot
    fl = next(row for row in ROWS if row.subset == "fl")
    assert '[{"severity": "error"' in render(fl, [], faithful=False).sys_0shot
    for subset in ("ml", "cl", "sc", "tc"):
        row = next(row for row in ROWS if row.subset == subset)
        assert render(row, [], faithful=False) == render(row, [], faithful=True)  # no defect there
    assert all(load_template(s).defects for s in ("bg", "dr", "fl", "rl"))


def test_examples_are_seeded_from_the_same_pool_and_never_the_item() -> None:
    chosen = choose_examples(ROWS, seed=7)
    assert chosen == choose_examples(ROWS, seed=7)
    ml = [row for row in ROWS if row.subset == "ml"]
    assert any(chosen[ml[0].row_id] != choose_examples(ROWS, seed)[ml[0].row_id] for seed in range(8, 16))
    for row in ROWS:
        assert row.row_id not in {other.row_id for other in chosen[row.row_id]}
        assert {other.subset for other in chosen[row.row_id]} <= {row.subset}
        assert len(chosen[row.row_id]) == 2  # 3 samples per subset: the two others
    sc = next(row for row in ROWS if row.subset == "sc")
    assert example_of(sc, load_template("sc")).input.startswith("python heat_eq_x.py --L 93")
    rl = next(row for row in ROWS if row.subset == "rl")
    assert (
        example_of(rl, load_template("rl")).input
        == "5\n2 4 Electric\n0 4 Diesel\n1 2 Magic\n1 3 Hybrid\n2 4 Gasoline"
    )
