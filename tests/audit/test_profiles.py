"""`--profile all`: every profile on its own backend, skipped with a reason where that backend is absent,
and one summary with each label's best class, the profiles that reproduce it and each subset's best."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sandboxes
from pipeline import cli
from pipeline.audit.profiles import resolve_profiles
from pipeline.errors import SandboxUnavailable
from pipeline.records import RunRequest, Verdict
from sandboxes.profiles import PROFILES
from tests.audit.fakes import FakeBackend


def _absent(*missing: str):  # noqa: ANN202
    return lambda backend: f"{backend} is not here" if backend in missing else None


def test_all_puts_each_profile_on_its_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", _absent())
    chosen = resolve_profiles(["all"])
    assert [p.name for p in chosen.runnable] == list(PROFILES)
    for profile in chosen.runnable:
        assert chosen.backends[profile.name] == ("docker" if profile.image else "bwrap")
    forced = resolve_profiles(["all"], "docker")
    assert set(forced.backends.values()) == {"docker"}


def test_an_absent_backend_skips_its_profiles_under_all_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", _absent("docker"))
    chosen = resolve_profiles(["all"])
    image_bound = sorted(name for name, p in PROFILES.items() if p.image)
    assert sorted(chosen.skipped) == image_bound and all("docker" in r for r in chosen.skipped.values())
    with pytest.raises(SandboxUnavailable, match="needs the docker backend"):
        resolve_profiles([image_bound[0]])
    # --backend bwrap means what it means in every command: image profiles still go to Docker
    with pytest.raises(SandboxUnavailable, match="needs the docker backend"):
        resolve_profiles([image_bound[0]], "bwrap")


def _answer(request: RunRequest) -> tuple[str, Verdict]:
    """cl[1] is reproduced only under the C locale profiles; everything else everywhere."""
    source = request.program.files[0].content
    if "pathSum" in source:
        good = request.profile.locale == "C"
        return ("[[5, 4, 11, 2], [5, 8, 4, 5]]\n" if good else "[]\n"), Verdict.OK
    return ("4\n" if "maximumSum" in source else "[0, 1]\n"), Verdict.OK


def test_one_command_audits_every_profile(
    monkeypatch: pytest.MonkeyPatch, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backends: list[str] = []
    fake = FakeBackend(_answer)

    def open_backend(name: str, **_: object) -> FakeBackend:
        backends.append(name)
        return fake

    monkeypatch.setattr(sandboxes, "open_backend", open_backend)
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", _absent())
    argv = ["audit", str(samples / "surge-released" / "cl.json"), "--profile", "all", "--exhaustive"]
    argv += ["--store", str(tmp_path / "s"), "--report", str(tmp_path / "r.html"), "--json"]
    assert cli.main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(backends) == {"bwrap", "docker"}
    assert summary["profiles"] == sorted(PROFILES)
    cl = summary["by_subset"]["cl"]
    assert (cl["labels"], cl["reproduced"], cl["unexplained"], cl["not_run"], cl["refused"]) == (
        3,
        3,
        0,
        0,
        0,
    )
    c_locale = sorted(name for name, p in PROFILES.items() if p.locale == "C")
    assert summary["reproduced_by"]["cl.json[1]"] == c_locale
    assert cl["best_profile"] in c_locale and summary["best_profile"]["profile"] in c_locale
    page = (tmp_path / "r.html").read_text()
    assert "<th>best class</th><th>reproduced by</th>" in page
