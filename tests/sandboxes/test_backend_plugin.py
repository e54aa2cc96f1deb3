"""A sandbox backend from a user's own package: tests/sandboxes/plugins/surge-relaybox (bubblewrap's sandbox
under the name 'relaybox') installed as a wheel as the CRUXEval example is, and driven through `surge` in
subprocesses. `surge doctor` lists it with its distribution, `surge run --backend relaybox` runs programs
through it and their provenance names it, and a backend plug-in whose entry point names a missing
attribute is refused in one line (exit 2), never a traceback. Nothing of surge's is edited or registered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin_packages import distribution, install, installed_site, surge

PLUGINS = Path(__file__).resolve().parent / "plugins"
PACKAGE = PLUGINS / "surge-relaybox"
BROKEN = PLUGINS / "surge-relaybox-broken"
NAME = "relaybox"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_site(PACKAGE, tmp_path_factory)


def test_doctor_lists_the_backend_with_its_distribution(site: Path, tmp_path: Path) -> None:
    done = surge(["doctor", "--json"], site, tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    backends = {spec["name"]: spec["from"] for spec in report["installed"]["surge.backends"]}
    assert backends[NAME] == distribution(PACKAGE) == "surge-relaybox 0.2.0"
    assert backends["bwrap"] == "built-in"
    # its own status, asked of its spec
    assert report["backends"][NAME]["summary"].startswith("bubblewrap relayed")
    text = surge(["doctor"], site, tmp_path).stdout
    assert f"{NAME} (from surge-relaybox 0.2.0)" in text and f"sandbox {NAME}" in text


@pytest.mark.usefixtures("require_bwrap")
def test_run_goes_through_the_backend_and_the_provenance_names_it(site: Path, tmp_path: Path) -> None:
    programs = tmp_path / "programs.jsonl"
    lines = [{"language": "python", "source": f"print({n} * 7)"} for n in (1, 2)]
    programs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    argv = ["run", str(programs), "--backend", NAME, "--store", "store", "--workers", "1", "--json"]
    done = surge(argv, site, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["written"] == 2 and summary["verdicts"] == {"ok": 2}, summary
    shown = surge(["show", "--last", "--store", "store", "--json"], site, tmp_path)
    assert shown.returncode == 0, shown.stderr
    run = json.loads(shown.stdout)
    assert run["provenance"]["backend"] == NAME and run["label"] in ("7\n", "14\n")
    # The same programs on bwrap are other runs: the backend's name is part of the run id.
    bwrap = surge([*argv[:3], "bwrap", *argv[4:]], site, tmp_path)
    assert bwrap.returncode == 0, bwrap.stderr
    assert json.loads(bwrap.stdout)["already_stored"] == 0


def test_a_backend_plugin_naming_a_missing_attribute_is_one_line(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(BROKEN, site, tmp_path / "wheels")
    programs = tmp_path / "programs.jsonl"
    programs.write_text(json.dumps({"language": "python", "source": "print(1)"}) + "\n")
    for command in (["doctor"], ["run", str(programs), "--backend", NAME, "--store", "store"]):
        done = surge(command, site, tmp_path)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert "Traceback" not in done.stderr
        assert f"{NAME} = surge_relaybox_broken:NO_SUCH_SPEC" in lines[0] and "NO_SUCH_SPEC" in lines[0]
        assert "surge-relaybox-broken 0.2.0" in lines[0] and "pip uninstall surge-relaybox-broken" in lines[0]
