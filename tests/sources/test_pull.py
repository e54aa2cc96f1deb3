"""The real gitpython path: clone from a file:// mirror or a local path, pinned commits, cache reuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import SourceError
from pipeline.records import Language
from pipeline.store import Store
from sources.git import pull_source
from sources.registry import get_source
from sources.store import items_table, pulls_table, write_outcome
from tests.sources.conftest import sample_files

MCEVAL_SAMPLE_ITEMS = 38  # 5 lines x 7 languages, + C/20, + 2 AWK lines


@pytest.fixture
def mceval_upstream(upstream, samples: Path):
    """McEval laid out as upstream (data/<Language>.jsonl), with a second commit adding one task."""
    repo = upstream("McEval")
    first = repo.commit(sample_files(samples, "mceval", "data", "*.jsonl"), "samples")
    extra = (samples / "mceval" / "C.jsonl").read_text().splitlines()[0].replace('"C/1"', '"C/999"')
    c_lines = (samples / "mceval" / "C.jsonl").read_text() + extra + "\n"
    second = repo.commit({"data/C.jsonl": c_lines}, "one more C task")
    return repo, first, second


def test_pinned_commit_through_file_mirror(mceval_upstream, tmp_path: Path) -> None:
    repo, first, second = mceval_upstream
    outcome = pull_source(get_source("mceval", first), tmp_path / "cache", repo.url)

    assert outcome.record.commit == first and outcome.record.url == repo.url
    assert (outcome.record.items, outcome.record.quarantined) == (MCEVAL_SAMPLE_ITEMS, 0)
    by_key = {item.key: item for item in outcome.items}
    assert "C/999" not in by_key  # only in the second commit
    ml0 = by_key["C/20"]  # the source of SURGE ml[0]
    assert ml0.language is Language.C and ml0.upstream_path == "data/C.jsonl" and ml0.upstream_locator == "6"
    assert ml0.text == ml0.fields["prompt"] + ml0.fields["canonical_solution"] + ml0.fields["test"]
    assert ml0.upstream_commit == first and ml0.licence == "CC-BY-SA-4.0"
    assert by_key["C#/1"].language is Language.CSHARP and by_key["CPP/1"].language is Language.CPP
    awk = by_key["AWK/1"]  # reduced schema, no sandbox language: kept
    assert awk.language is None and awk.upstream_language == "AWK" and "test" not in awk.fields
    assert awk.text == awk.fields["prompt"] + awk.fields["canonical_solution"]


def test_cache_moves_between_commits_and_local_path_mirror(mceval_upstream, tmp_path: Path) -> None:
    repo, first, second = mceval_upstream
    cache = tmp_path / "cache"
    newer = pull_source(get_source("mceval", second[:12]), cache, repo.url)
    assert newer.record.commit == second and newer.record.items == MCEVAL_SAMPLE_ITEMS + 1
    (cache / "mceval" / "data" / "Stray.jsonl").write_text('{"task_id": "Stray/1"}\n')  # not upstream
    older = pull_source(get_source("mceval", first), cache, str(repo.folder))  # a plain path works too
    assert older.record.commit == first and older.record.items == MCEVAL_SAMPLE_ITEMS
    assert older.record.quarantined == 0  # the stray file was cleaned away, not quarantined


def test_missing_commit_and_missing_mirror_say_what_to_do(mceval_upstream, tmp_path: Path) -> None:
    repo, _, _ = mceval_upstream
    with pytest.raises(SourceError, match="is not in") as error:
        pull_source(get_source("mceval"), tmp_path / "cache", repo.url)  # upstream's real pin is absent here
    assert "09dec129dd5756447227239b3e5b47e543c2e0fd" in error.value.hint
    with pytest.raises(SourceError, match="does not exist"):
        pull_source(get_source("mceval"), tmp_path / "cache", tmp_path / "no-such-mirror")


def test_store_tables_and_repull_appends_nothing(mceval_upstream, tmp_path: Path) -> None:
    repo, first, _ = mceval_upstream
    store = Store(tmp_path / "store")
    outcome = pull_source(get_source("mceval", first), tmp_path / "cache", repo.url)
    assert write_outcome(store, outcome) == MCEVAL_SAMPLE_ITEMS
    again = pull_source(get_source("mceval", first), tmp_path / "cache", repo.url)
    assert write_outcome(store, again) == 0
    assert items_table(store).count() == MCEVAL_SAMPLE_ITEMS
    stored = {item.key: item for item in items_table(store).records()}
    assert stored["C/20"] == next(i for i in outcome.items if i.key == "C/20")  # round-trips exactly
    assert [p.commit for p in pulls_table(store).records()] == [first, first]


def test_unpinned_source_records_the_head_it_checked_out(upstream, samples: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    repo = upstream("Lean-workbook-proofs")
    table = pa.table(
        {"problem_id": ["lean_workbook_1"], "full_proof": ["theorem lean_workbook_1 : True := trivial"]}
    )
    pq.write_table(table, tmp_path / "train.parquet")
    head = repo.commit({"data/train-00000-of-00001.parquet": (tmp_path / "train.parquet").read_bytes()})
    outcome = pull_source(get_source("lean_workbook_proofs"), tmp_path / "cache", repo.url)
    assert outcome.record.requested_commit is None and outcome.record.commit == head
    assert [(i.key, i.language) for i in outcome.items] == [("lean_workbook_1", Language.LEAN4)]
