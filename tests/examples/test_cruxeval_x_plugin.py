"""CRUXEval-X installed as a user installs the CRUXEval plug-in (`pip install --target`, its dist-info on
PYTHONPATH) and driven through `surge` in subprocesses: `surge doctor` lists the subset and its harness
languages with the distribution, and `surge audit FOLDER --subset cruxeval-x --errata DIR` classes each
label per language and writes the errata folder in CRUXEval-X's own format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.examples.cruxeval_x_files import BUNDLED_X, PACKAGE, PASSES, PROSE, VACUOUS, WRONG, entries
from tests.plugin_packages import distribution, installed_site, surge

# languages whose tools a plain `make setup` installs and whose programs run in well under a second each
# (Python, Lua, the shell), and Swift, which has no toolchain here: its labels are not_run
STEMS = ("py", "lua", "sh", "swift")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_site(PACKAGE, tmp_path_factory)


def test_doctor_lists_the_subset_and_its_harness_languages(site: Path, tmp_path: Path) -> None:
    done = surge(["doctor", "--json"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    installed = json.loads(done.stdout)["installed"]
    subsets = {spec["name"]: spec["from"] for spec in installed["surge.subsets"]}
    languages = {spec["name"]: spec["from"] for spec in installed["surge.languages"]}
    assert subsets["cruxeval-x"] == distribution(PACKAGE)
    assert languages["cruxeval-java"] == languages["cruxeval-csharp"] == distribution(PACKAGE)


@pytest.mark.slow
@pytest.mark.usefixtures("require_bwrap")
def test_audit_classes_each_label_per_language_and_writes_the_errata_in_cruxeval_x_format(
    site: Path, tmp_path: Path
) -> None:
    for tool in ("python3", "lua5.4", "bash"):
        if shutil.which(tool) is None:
            pytest.skip(f"needs `{tool}` (install with `make setup`)")
    folder = tmp_path / "cruxeval-x"
    folder.mkdir()
    for stem in STEMS:
        shutil.copy(BUNDLED_X / f"{stem}.json", folder / f"{stem}.json")
    args = ["audit", str(folder), "--subset", "cruxeval-x", "--store", "store", "--repeats", "1"]
    done = surge([*args, "--errata", "errata", "--json"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    by_language = summary["by_language"]
    assert set(by_language) == {"cruxeval-x/python", "cruxeval-x/lua", "cruxeval-x/bash", "cruxeval-x/swift"}
    assert summary["classes"]["vacuous_check"] == 2  # py's and lua's
    assert summary["classes"]["not_a_program"] == 1  # py's prose
    assert summary["classes"]["mismatch"] == 3  # the wrong value, in py, lua and sh

    items = [json.loads(line) for line in (tmp_path / "errata" / "items.jsonl").read_text().splitlines()]
    status = {item["location"]: (item["status"], item["audit_class"]) for item in items}
    assert status["cruxeval-x/py.json[0]"] == ("kept", "reproduced_exact")
    assert status["cruxeval-x/py.json[2]"] == ("flagged", "mismatch")
    assert status["cruxeval-x/swift.json[0]"] == ("kept", "not_run")

    # each language file again, as upstream writes it: a flagged program gains its note, nothing else changes
    for stem in STEMS:
        written = (tmp_path / "errata" / "dataset" / f"{stem}.json").read_text(encoding="utf-8")
        released = entries(stem)
        corrected = json.loads(written)
        assert [{k: v for k, v in e.items() if k != "audit"} for e in corrected] == released
        noted = {e["id"] for e in corrected if "audit" in e}
        expected = {
            "py": {WRONG, PROSE, VACUOUS},
            "lua": {WRONG, VACUOUS},
            "sh": {WRONG},
            "swift": set(),
        }[stem]
        assert noted == expected, (stem, noted)
        if not noted:
            assert written == (folder / f"{stem}.json").read_text(encoding="utf-8")
    python = json.loads((tmp_path / "errata" / "dataset" / "py.json").read_text(encoding="utf-8"))
    note = next(e["audit"] for e in python if e["id"] == WRONG)
    assert note["class"] == "mismatch" and note["status"] == "flagged" and "AssertionError" in note["reason"]
    assert next(e for e in python if e["id"] == PASSES).keys() == {"id", "code"}
