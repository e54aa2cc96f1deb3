"""A build beside SURGE's release (surge build --compare-to, the card): the bundled samples as the release."""

from __future__ import annotations

from pathlib import Path

from pipeline.dataset import DatasetRow, import_released, write_rows
from pipeline.export.card import render_card
from pipeline.export.compare import compare, compare_store, of_record, of_row
from pipeline.store import Store
from sources.surge_release import load_release

SUBSETS = ["sc", "tc", "dr", "bg", "cl"]


def _built_tc(template: DatasetRow, family: str, seconds: float) -> DatasetRow:
    features = {"fid": f"{family}.py", "family": family, "time": f"{seconds:.4f} seconds", "time_bin": "x"}
    return template.model_copy(update={"custom_features": features, "gt": "1" * int(seconds * 10)})


def test_the_release_beside_itself_is_the_same_on_both_sides(samples: Path) -> None:
    records, _ = load_release(samples / "surge-released", set(SUBSETS))
    rows = import_released(records)
    found = compare(map(of_row, rows), map(of_record, records), SUBSETS)
    for name in SUBSETS:
        assert found["subsets"][name]["build"] == found["subsets"][name]["release"], name
    tc = found["subsets"]["tc"]["release"]
    assert tc["rows"] == 3 and tc["families"] == 1 and tc["top_families"] == ["tsp"]
    assert tc["time_bins"] == {"<0.1s": 3} and tc["languages"] == {"python": 3}
    assert found["subsets"]["sc"]["release"]["time_bins"] == {"0.1-1s": 3}  # sc's time is a float
    assert "| families | 1 (tsp) | 1 (tsp) |" in found["_text"]


def test_a_build_with_more_families_and_a_wider_spread_shows_it(samples: Path, tmp_path: Path) -> None:
    records, _ = load_release(samples / "surge-released", {"tc"})
    released = import_released(records)
    built = [
        _built_tc(released[0], "merge_sort", 0.03),
        _built_tc(released[0], "tsp_bruteforce", 14.2),
        _built_tc(released[0], "nqueens_count", 41.0),
    ]
    store = Store(tmp_path)
    write_rows(store, built)
    found = compare_store(tmp_path, samples / "surge-released", ["tc"])
    build, release = found["subsets"]["tc"]["build"], found["subsets"]["tc"]["release"]
    assert build["families"] == 3 and release["families"] == 1
    assert build["time_bins"] == {"<0.1s": 1, "10-30s": 1, ">=30s": 1}
    assert build["label_chars"] == {"median": 142, "max": 410}
    assert "| time bins | <0.1s 1, 10-30s 1, >=30s 1 | <0.1s 3 |" in found["_text"]


def test_the_card_shows_the_comparison_only_when_asked(samples: Path) -> None:
    records, _ = load_release(samples / "surge-released", {"tc", "dr"})
    rows = import_released(records)
    assert "Beside SURGE's release" not in render_card(rows, faithful=False, seed=0)
    card = render_card(rows, faithful=False, seed=0, release=samples / "surge-released")
    assert "## Beside SURGE's release" in card and "dr: the build beside SURGE's release" in card
