"""The Hugging Face export as the Hub's tools read it: the card's metadata on the Hub's schema, every config
loading with `datasets` without a warning, rows that keep their subset and provenance in a union, only the
licences of the upstreams used, and `--push` to a local stand-in that speaks the Hub's HTTP API."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import warnings
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from pipeline.cli import main
from pipeline.dataset import DatasetRow, write_rows
from pipeline.export.card import render_card
from pipeline.export.metadata import licence_fields, metadata_problems
from pipeline.store import Store
from sources import SAMPLES
from sources.surge_release import SOURCE
from tests.export.hub_standin import HubStandIn
from tests.export.test_built_rows import ROWS as BUILT
from tests.surge_process import run_surge

RELEASED = SAMPLES / "surge-released"
SUBSETS = ("ml", "cl", "rl", "sc", "tc", "bg", "dr", "fl")


def hf_export(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "hf"
    argv = ["export", str(tmp_path / "store"), str(out), "--format", "hf", "--import-release", str(RELEASED)]
    assert main([*argv, *extra]) == 0
    return out


def front_matter(readme: Path) -> dict[str, object]:
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_each_config_loads_without_warnings_and_a_union_keeps_subset_and_provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    datasets = pytest.importorskip("datasets", reason="needs the `datasets` package (pip install -e .[dev])")
    out = hf_export(tmp_path)
    loaded = {}
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        for subset in SUBSETS:
            loaded[subset] = datasets.load_dataset(str(out), subset, split="test")
    assert [str(w.message) for w in caught] == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    for subset, rows in loaded.items():
        assert set(rows["subset"]) == {subset}
        assert "custom_categoey" not in rows.column_names and "custom_category" in rows.column_names
        assert set(rows["upstream_commit"]) == {SOURCE.commit}
        assert set(rows["upstream_source"]) == {"surge_release"} and set(rows["label_origin"]) == {"released"}
        assert rows["upstream_key"] == [f"{subset}[{i}]" for i in range(3)]
        # released labels: no run of ours behind them
        assert rows["run_id"] == rows["profile"] == rows["toolchain_versions"] == [None] * 3
    # custom_features differs per subset (a struct of its keys): the rest of every config has one schema
    union = datasets.concatenate_datasets(
        [rows.remove_columns("custom_features") for rows in loaded.values()]
    )
    assert sorted(set(union["subset"])) == sorted(SUBSETS) and len(union) == 24
    assert sorted(set(union["custom_category"])) == [1, 3, 4, 5, 6, 7, 8]  # cl writes 1, as released


def test_card_metadata_is_on_the_hubs_schema_with_only_the_upstreams_used(tmp_path: Path) -> None:
    out = hf_export(tmp_path, "--subset", "ml", "--subset", "dr")
    huggingface_hub = pytest.importorskip("huggingface_hub", reason="needs huggingface_hub")
    card = huggingface_hub.DatasetCard.load(out / "README.md")
    metadata = card.data.to_dict()
    assert metadata == front_matter(out / "README.md")
    assert metadata_problems(metadata, out) == []
    # The release states no licence: `other`, named, linked to a file of the export that says so.
    assert metadata["license"] == "other" and metadata["license_name"] == "no-licence-stated-upstream"
    assert (out / str(metadata["license_link"])).read_text().count("| https://github.com/") == 1
    assert metadata["pretty_name"] and metadata["size_categories"] == ["n<1K"]
    assert metadata["task_categories"] == ["text-generation", "question-answering"]
    assert [(c["config_name"], c["data_files"][0]["path"]) for c in metadata["configs"]] == [
        ("ml", "ml/test-*"),
        ("dr", "dr/test-*"),
    ]
    licences = card.text.split("## Licences of the upstreams used", 1)[1].split("##", 1)[0]
    assert "Imbernoulli/SURGE" in licences
    assert not any(name in licences for name in ("McEval", "DebugBench", "leetcode", "OJCode", "Goedel"))


def with_licence(row: DatasetRow, licence: str) -> DatasetRow:
    return row.model_copy(update={"upstream": row.upstream.model_copy(update={"licence": licence})})


def test_the_licence_field_follows_the_upstreams_of_the_rows() -> None:
    ml = [row for row in BUILT if row.subset == "ml"]
    assert licence_fields([with_licence(ml[0], "Apache-2.0")]) == {"license": "apache-2.0"}
    both = [with_licence(ml[0], "Apache-2.0"), with_licence(ml[1], "CC-BY-NC-ND-4.0")]
    assert licence_fields(both) == {"license": ["apache-2.0", "cc-by-nc-nd-4.0"]}
    assert licence_fields([with_licence(ml[0], "project")]) == {"license": "mit"}  # our own templates
    mixed = [*both, with_licence(ml[2], "see dataset card (Goedel-LM/Lean-workbook-proofs)")]
    fields = licence_fields(mixed)
    assert fields == {
        "license": "other",
        "license_name": "surge-upstream-licences",
        "license_link": "LICENSE.md",
    }
    for case in (both, mixed):
        assert not [p for p in metadata_problems(licence_fields(case)) if "licen" in p]
    assert metadata_problems({"license": "other"})[:2] == [
        "license: other needs a license_name like my-license-1.0",
        "license: other needs a license_link",
    ]


def test_one_example_and_no_defects_read_as_english(tmp_path: Path) -> None:
    dr = [row for row in BUILT if row.subset == "dr"][:2]  # a pool of two: each row gets one example
    write_rows(Store(tmp_path / "store"), dr)
    assert main(["export", str(tmp_path / "store"), str(tmp_path / "out")]) == 0
    prompt = json.loads((tmp_path / "out" / "dataset" / "dr.json").read_text())[0]["sys_3shot"]
    assert "Following is 1 example: " in prompt and "1 examples" not in prompt
    card = render_card([row for row in BUILT if row.subset in ("ml", "sc")], faithful=False, seed=0)
    prompts = card.split("## Prompts", 1)[1].split("## Caveats", 1)[0]
    assert "Prompt defects" not in prompts and "ml, sc have no known defects" in prompts


def surge(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`surge` as its own process: huggingface_hub reads its settings (HF_HUB_OFFLINE, the token's folder)
    once, at import, so a push is tested in a process whose environment is the test's."""
    return run_surge(args, cwd, env)


def hub_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING_FACE"))}
    env.update(HF_HOME=str(tmp_path / "hf-home"), PREFECT_HOME=str(tmp_path / "prefect"), **extra)
    return env


def test_push_commits_the_export_to_a_branch_of_a_hub_repository(tmp_path: Path) -> None:
    pytest.importorskip("huggingface_hub", reason="needs huggingface_hub")
    store = tmp_path / "store"
    assert main(["export", str(store), str(tmp_path / "seed"), "--import-release", str(RELEASED)]) == 0
    with HubStandIn(token="hf_standin") as hub:
        env = hub_env(tmp_path, HF_ENDPOINT=hub.url, HF_TOKEN="hf_standin")
        out = tmp_path / "hf"
        push = ["export", str(store), str(out), "--format", "hf", "--push", "me/surge", "--json"]
        done = surge([*push, "--revision", "build-7"], env, tmp_path)
        assert done.returncode == 0, done.stderr
        pushed = json.loads(done.stdout)["pushed"]
        repo = hub.repos["me/surge"]
        assert repo.kind == "dataset" and pushed["revision"] == "build-7"
        assert repo.branches["build-7"] == pushed["commit"]
        assert repo.files("main") == {".gitattributes": repo.files("main")[".gitattributes"]}  # untouched
        local = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        remote = repo.files("build-7")
        assert {k: v for k, v in remote.items() if k != ".gitattributes"} == local
        assert "ml/test-00000-of-00001.parquet" in local and "LICENSE.md" in local
        assert repo.commits[pushed["commit"]].message.startswith("surge export: 24 rows")
        assert ("POST", "/api/validate-yaml") in hub.requests  # the card was checked before the upload

        # A second push of one subset replaces the branch's content whole: no stale subset stays.
        again = surge([*push, "--revision", "build-7", "--subset", "ml", "--overwrite"], env, tmp_path)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["pushed"]["deleted"] == len(local) - 3  # all but README, LICENSE, ml
        assert sorted(repo.files("build-7")) == [
            ".gitattributes",
            "LICENSE.md",
            "README.md",
            "ml/test-00000-of-00001.parquet",
        ]

        wrong = surge(
            [*push, "--overwrite"], hub_env(tmp_path, HF_ENDPOINT=hub.url, HF_TOKEN="bad"), tmp_path
        )
        assert wrong.returncode == 1 and wrong.stderr.count("\n") == 1
        assert "pushing" in wrong.stderr and "fix:" in wrong.stderr and "Traceback" not in wrong.stderr


def test_push_without_a_token_is_refused_before_any_work(tmp_path: Path) -> None:
    pytest.importorskip("huggingface_hub", reason="needs huggingface_hub")
    out = tmp_path / "hf"
    argv = ["export", str(tmp_path / "store"), str(out), "--format", "hf", "--push", "me/surge"]
    refused = surge([*argv, "--import-release", str(RELEASED)], hub_env(tmp_path), tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "needs a Hugging Face token" in refused.stderr and "HF_TOKEN" in refused.stderr
    assert not out.exists() and not (tmp_path / "store").exists()
    offline = surge(argv, hub_env(tmp_path, HF_TOKEN="hf_x", HF_HUB_OFFLINE="1"), tmp_path)
    assert offline.returncode == 2 and "unset HF_HUB_OFFLINE" in offline.stderr and not out.exists()


def test_a_hub_that_cannot_be_reached_is_a_failure_of_ours_not_a_crash(tmp_path: Path) -> None:
    pytest.importorskip("huggingface_hub", reason="needs huggingface_hub")
    with socket.socket() as unused:  # a port nothing listens on once closed
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    env = hub_env(tmp_path, HF_TOKEN="hf_x", HF_ENDPOINT=f"http://127.0.0.1:{port}")
    argv = ["export", str(tmp_path / "store"), str(tmp_path / "hf"), "--format", "hf", "--push", "me/surge"]
    failed = surge([*argv, "--import-release", str(RELEASED)], env, tmp_path)
    assert failed.returncode == 1 and failed.stderr.count("\n") == 1, failed.stderr
    assert "pushing" in failed.stderr and "--overwrite --push" in failed.stderr
    assert (tmp_path / "hf" / "README.md").is_file()  # the export itself is done and kept
