"""A plug-in package of a folder (its pyproject.toml and src/) installed as a user installs it: `pip install
--target SITE`, its dist-info beside it, so that `surge` started with SITE on PYTHONPATH reads its entry
points; and `surge` started so. The CRUXEval example and the test plug-ins install through here alike."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.surge_process import COMMAND_TIMEOUT_S, REPO_ROOT, SURGE

PACKAGE_DATA = (".py", ".json", ".jsonl", ".txt")  # what the example plug-ins ship: code and their data files
PIP = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target"]


def distribution(package: Path) -> str:
    """``NAME VERSION`` of the package, as `surge doctor` names a plug-in's origin."""
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    return f"{project['name']} {project['version']}"


def install(package: Path, site: Path, wheels: Path) -> None:
    """pip builds the package with setuptools where this interpreter has setuptools and wheel; else pip
    installs a wheel written here from the package's pyproject.toml and files (what a build backend
    writes), so the test needs neither a build backend nor an index."""
    backend = all(importlib.util.find_spec(name) for name in ("setuptools", "wheel"))
    if backend:  # setuptools builds in the source folder (build/, *.egg-info): a copy keeps ours clean
        copy = shutil.copytree(package, wheels / "source", ignore=shutil.ignore_patterns("__pycache__"))
        target = ["--no-build-isolation", str(copy)]
    else:
        target = [str(written_wheel(package, wheels))]
    done = subprocess.run([*PIP, str(site), *target], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"pip cannot install {package.name} offline: {done.stderr.strip().splitlines()[-1:]}")


def installed_site(package: Path, factory: pytest.TempPathFactory) -> Path:
    """A fresh folder with ``package`` installed in it (its ``site``), for a module's tests to share."""
    root = factory.mktemp(package.name)
    install(package, root / "site", root / "wheels")
    return root / "site"


def written_wheel(package: Path, folder: Path) -> Path:
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    files = {
        path.relative_to(package / "src").as_posix(): path.read_text()
        for path in sorted((package / "src").rglob("*"))
        if path.is_file() and path.suffix in PACKAGE_DATA and "__pycache__" not in path.parts
    }
    return wheel_of(project["name"], project["version"], files, project["entry-points"], folder)


def wheel_of(
    distribution: str,
    version: str,
    files: dict[str, str],
    entry_points: dict[str, dict[str, str]],
    folder: Path,
) -> Path:
    """A pure-Python wheel of ``files`` (path in the wheel -> text) with its dist-info: what a build
    backend writes, written here so that a test needs neither a build backend nor an index."""
    name = distribution.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    points = "".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in named.items())
        for group, named in entry_points.items()
    )
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": points,
    }
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def install_wheel(wheel: Path, site: Path) -> None:
    """`pip install --target SITE` of one wheel: pip writes its dist-info there, which importlib.metadata
    reads from the path as from any site-packages."""
    subprocess.run([*PIP, str(site), str(wheel)], check=True, capture_output=True, timeout=300)


def surge(args: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`surge ARGS` started as a user starts it, with the installed package on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(site)])}
    env |= {"PREFECT_HOME": str(cwd / "prefect")}
    env.pop("SURGE_DEBUG", None)
    return subprocess.run(
        [*SURGE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S
    )
