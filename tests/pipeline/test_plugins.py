"""Plug-ins from the user's own package: a real distribution, a wheel `pip install`ed into a temporary
folder, adds a language and a source through entry points; `surge doctor` lists them with their
distribution, `surge run` runs the plug-in language in the sandbox, and a broken plug-in is refused in one
line naming its entry point and distribution (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin_packages import install_wheel, surge, wheel_of

LANGUAGE_MODULE = """\
from pipeline.records import Language
from sandboxes.languages.base import LanguageSpec

SPEC = LanguageSpec(
    language=Language("plugsh"),
    display_name="PlugSh",
    aliases=("psh",),
    source_name="main.psh",
    extensions=(".psh",),
    default_tool="sh",
    apt_packages={"sh": "dash"},
    refactor_file="main.psh",
    entry_hint="top-level commands",
    fence_tags=("plugsh",),
    line_comments=("#",),
    setup_packages=("dash",),
    image_family="plugsh",
    image_packages={"bookworm": ("dash",)},
    self_test='echo "surge self-test"\\n',
)
"""

SOURCE_MODULE = """\
from sources.base import Source


def read(path, relative):
    return iter(())


SOURCE = Source(
    name="plugsource", url="https://example.org/plug.git", commit=None, licence="MIT", kind="git",
    paths=("*.jsonl",), read=read,
)
"""


def install(site: Path, wheels: Path, name: str, modules: dict[str, str], points: dict) -> None:
    """The distribution ``name`` of ``modules`` (a package named after it), installed into ``site``."""
    package = name.replace("-", "_")
    files = {
        f"{package}/__init__.py": "",
        **{f"{package}/{module}.py": text for module, text in modules.items()},
    }
    install_wheel(wheel_of(name, "0.3.1", files, points, wheels), site)


@pytest.fixture(scope="module")
def good_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugins")
    site = root / "site"
    points = {
        "surge.languages": {"plugsh": "surge_plug_demo.plugsh:SPEC"},
        "surge.sources": {"plugsource": "surge_plug_demo.plugsource:SOURCE"},
    }
    modules = {"plugsh": LANGUAGE_MODULE, "plugsource": SOURCE_MODULE}
    install(site, root / "wheels", "surge-plug-demo", modules, points)
    return site


def test_doctor_lists_plugins_with_their_distribution(good_site: Path, tmp_path: Path) -> None:
    done = surge(["doctor", "--json"], good_site, tmp_path)
    assert done.returncode == 0, done.stderr
    installed = json.loads(done.stdout)["installed"]
    languages = {spec["name"]: spec["from"] for spec in installed["surge.languages"]}
    sources = {spec["name"]: spec["from"] for spec in installed["surge.sources"]}
    assert languages["plugsh"] == "surge-plug-demo 0.3.1" and languages["python"] == "built-in"
    assert sources["plugsource"] == "surge-plug-demo 0.3.1" and sources["mceval"] == "built-in"
    assert set(installed) == {"surge.subsets", "surge.languages", "surge.sources", "surge.backends"}
    text = surge(["doctor"], good_site, tmp_path).stdout
    assert "plugsh (from surge-plug-demo 0.3.1)" in text


@pytest.mark.usefixtures("require_bwrap")
def test_a_plugin_language_runs_in_the_sandbox(good_site: Path, tmp_path: Path) -> None:
    programs = tmp_path / "programs.jsonl"
    programs.write_text(json.dumps({"language": "plugsh", "source": "echo from a plug-in"}) + "\n")
    done = surge(["run", str(programs), "--store", str(tmp_path / "store"), "--json"], good_site, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdicts"] == {"ok": 1}


BROKEN = {
    "an import error": ({"broken": "import surge_no_such_module\n"}, "surge_plug_broken.broken:SPEC"),
    "the wrong type": ({"broken": "SPEC = 'a string'\n"}, "surge_plug_broken.broken:SPEC"),
    "a built-in's name": ({"broken": "from sandboxes.languages.python import SPEC\n"}, None),
}


@pytest.mark.parametrize("fault", list(BROKEN))
def test_a_broken_plugin_is_one_line_naming_it(fault: str, tmp_path: Path) -> None:
    modules, value = BROKEN[fault]
    value = value or "surge_plug_broken.broken:SPEC"
    site = tmp_path / "site"
    points = {"surge.languages": {"brokenlang": value}}
    install(site, tmp_path / "wheels", "surge-plug-broken", modules, points)
    programs = tmp_path / "programs.jsonl"
    programs.write_text(json.dumps({"language": "python", "source": "print(1)"}) + "\n")
    for command in (["doctor"], ["run", str(programs), "--store", str(tmp_path / "store")]):
        done = surge(command, site, tmp_path)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert "Traceback" not in done.stderr
        assert f"brokenlang = {value}" in lines[0] and "surge-plug-broken 0.3.1" in lines[0]
        assert "pip uninstall surge-plug-broken" in lines[0]
