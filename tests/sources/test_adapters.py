"""Each adapter on its upstream sample, laid out as upstream and pulled through git at a pinned commit."""

from __future__ import annotations

import csv
from pathlib import Path

from pipeline.records import Language, SourceItem
from sandboxes.languages import parse_language
from sources.git import pull_source
from sources.registry import get_source
from sources.surge_release import load_release
from tests.sources.conftest import sample_files


def pull(upstream, tmp_path: Path, name: str, files) -> dict[str, SourceItem]:
    repo = upstream(name)
    pinned = repo.commit(files, "samples")
    repo.commit({"NEWS.md": "a later commit the pin must ignore\n"})
    outcome = pull_source(get_source(name, pinned), tmp_path / "cache", repo.url)
    assert outcome.quarantined == [] and outcome.record.commit == pinned
    assert all(item.upstream_commit == pinned for item in outcome.items)
    return {item.key: item for item in outcome.items}


def test_debugbench_single_and_multi_bug_shards(upstream, samples: Path, tmp_path: Path) -> None:
    items = pull(upstream, tmp_path, "debugbench", sample_files(samples, "debugbench", "benchmark", "*.json"))
    assert len(items) == 3 + 5 + 3 + 3 + 5
    bg0 = items["java_triple[0]"]  # upstream java_triple.json[172], the source of SURGE bg[0]
    assert (bg0.language, bg0.fields["slug"], bg0.fields["bug_count"]) == (
        Language.JAVA,
        "convert-the-temperature",
        3,
    )
    assert bg0.fields["bug_types"] == ["operation error", "indexing error", "statement separation"]
    assert bg0.text == bg0.fields["buggy_code"] and "oracle_code" in bg0.fields
    bg1 = items["cpp_missing colons[0]"]
    assert (
        bg1.upstream_path == "benchmark/cpp_missing colons.json"
        and bg1.fields["slug"] == "prime-arrangements"
    )
    assert (bg1.fields["bug_count"], bg1.fields["bug_types"], bg1.fields["subtype"]) == (
        1,
        ["missing colons"],
        "missing colons",
    )
    assert bg1.fields["examples"][0].startswith("Input: n = 5")
    assert items["python3_double[0]"].language is Language.PYTHON
    assert {item.licence for item in items.values()} == {"Apache-2.0"}


def test_leetcode_write_ups_zh_and_en(upstream, samples: Path, tmp_path: Path) -> None:
    files = sample_files(samples, "azl397985856-leetcode/problems", "problems", "*.md")
    items = pull(upstream, tmp_path, "leetcode", files)
    assert len(items) == 6
    assert {item.licence for item in items.values()} == {"CC-BY-NC-ND-4.0"}  # non-commercial, no derivatives
    two_sum = items["1.two-sum.en"].fields
    assert (two_sum["number"], two_sum["slug"], two_sum["natural_language"]) == (1, "two-sum", "en")
    assert two_sum["title"] == "Two Sum"
    assert two_sum["statement"].startswith("Given an array of integers")
    assert [s["language"] for s in two_sum["solutions"]] == ["javascript", "cpp", "java", "python"]
    single = items["136.single-number"].fields
    assert (single["title"], single["natural_language"]) == ("只出现一次的数字", "zh")
    assert single["statement"].startswith("给定一个非空整数数组")
    assert [s["fence"] for s in single["solutions"]] == ["js", "c", "C++", "java", "python"]
    assert [s["language"] for s in single["solutions"]] == ["javascript", "c", "cpp", "java", "python"]
    # keywords: the write-up's own prerequisites list, a linked topic or a plain one (none in two-sum's)
    assert single["keywords"] == ["位运算"] and two_sum["keywords"] == []
    assert items["1186.maximum-subarray-sum-with-one-deletion"].fields["keywords"] == ["数组", "动态规划"]
    camel = items["1023.camelcase-matching"]  # the true source of SURGE cl[33]
    assert camel.text == files["problems/1023.camelcase-matching.md"].decode()
    assert all(s["code"].strip() and s["line"] > 0 for s in camel.fields["solutions"])


def test_ojcode_judge_from_the_path(upstream, samples: Path, tmp_path: Path) -> None:
    with open(samples / "ojcode" / "manifest.tsv", newline="") as handle:
        paths = [row["path"] for row in csv.DictReader(handle, delimiter="\t")]
    picked = [
        next(p for p in paths if p.startswith(prefix)) for prefix in ("Luogu/", "CodeForces/", "LOJ/", "PAT/")
    ]
    picked += [next(p for p in paths if p.startswith(f"SP UVA AT/{code}")) for code in ("SP", "UVA", "ABC")]
    # The manifest lists paths only (the programs are not copied): stand-in programs at the real paths.
    items = pull(upstream, tmp_path, "ojcode", {path: "int main() { return 0; }\n" for path in picked})
    judges = {item.upstream_path: item.fields["judge"] for item in items.values()}
    assert [judges[path] for path in picked] == [
        "Luogu",
        "CodeForces",
        "LOJ",
        "PAT",
        "SPOJ",
        "UVa",
        "AtCoder",
    ]
    pat = next(item for item in items.values() if item.upstream_path.startswith("PAT/"))
    assert pat.fields["group"] == "19Q4/Advanced" and pat.key == picked[3].removesuffix(".cpp")
    assert {(i.language, i.fields["standard"], i.licence) for i in items.values()} == {
        (Language.CPP, "c++14", "GPL-3.0")
    }
    # a cl row names its language as upstream spells it, and the audit of its export reads that name back
    assert {parse_language(item.upstream_language or "") for item in items.values()} == {Language.CPP}


def test_every_upstream_spelling_a_row_names_is_read_back_as_its_language() -> None:
    """ml's, cl's and bg's rows name their language as upstream spells it (`custom_features.language` in
    an export); an audit of that export parses it back, so each spelling must lead to the item's language.
    OJCode's "C++14" did not: our own exported cl records were refused as an unknown language."""
    from pipeline.build.refactor import sample_items
    from pipeline.subsets import REGISTRY

    named = [spec for spec in REGISTRY.values() if "language" in spec.feature_keys]
    sources = sorted({name for spec in named for name in spec.upstream_sources})
    items = [item for name in sources for item in sample_items(name)]
    # an item in a language nothing runs (McEval's AWK) never becomes a row
    spelled = {
        (item.upstream_language, item.language) for item in items if item.upstream_language and item.language
    }
    assert len(spelled) >= 10  # McEval's seven runnable languages, DebugBench's three
    for spelling, language in spelled:
        assert parse_language(spelling) is language, spelling


def test_goedel_prover_problems(upstream, samples: Path, tmp_path: Path) -> None:
    items = pull(
        upstream, tmp_path, "goedel_prover", sample_files(samples, "goedel-prover", "datasets", "*.jsonl")
    )
    assert len(items) == 6
    problem = items["mathd_algebra_338/mathd_algebra_338"]
    assert problem.language is Language.LEAN4 and problem.text.startswith("import Mathlib\nimport Aesop")
    assert problem.text.endswith(problem.fields["formal_statement"])
    assert items["minif2f/amc12a_2019_p21"].fields["split"] == "valid"


def test_surge_release_labels_and_category_quirks(upstream, samples: Path, tmp_path: Path) -> None:
    items = pull(
        upstream, tmp_path, "surge_release", sample_files(samples, "surge-released", "dataset", "*.json")
    )
    assert len(items) == 8 * 3
    cl0 = items["cl[0]"]
    assert (cl0.fields["gt"], cl0.language, cl0.fields["category_key"]) == (
        "4",
        Language.PYTHON,
        "custom_categoey",
    )
    assert (
        cl0.fields["category"] == 1 and cl0.fields["category_matches_subset"] is False
    )  # cl.json says 1, like ml
    assert items["ml[0]"].fields["category_matches_subset"] is True
    assert (items["bg[0]"].language, items["bg[0]"].fields["custom_features"]["gt0"]) == (
        Language.JAVA,
        "[309.65, 97.7]\n[395.26, 251.798]\n",
    )
    assert (
        items["dr[0]"].language is Language.CPP and items["dr[0]"].fields["category_key"] == "custom_category"
    )
    assert items["fl[0]"].language is Language.LEAN4 and items["fl[0]"].fields["gt"].startswith('{"errors"')


def test_load_release_for_the_audit(samples: Path) -> None:
    records, bad = load_release(samples / "surge-released" / "ml.json")
    assert bad == [] and [r.location for r in records] == ["ml.json[0]", "ml.json[1]", "ml.json[2]"]
    assert (records[0].gt, records[0].language, records[0].upstream_language) == ("DDDBA", Language.C, "C")
    everything, bad = load_release(samples / "surge-released")
    assert bad == [] and len(everything) == 24
    assert sorted({r.subset for r in everything if not r.category_matches_subset}) == ["cl"]
