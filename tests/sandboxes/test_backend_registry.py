"""The backend registry keeps the run ids of existing runs: the same name and identity as before it."""

from __future__ import annotations

import shutil

import pytest

from pipeline.errors import SandboxUnavailable
from pipeline.records import Program, RunRequest, content_id
from sandboxes.backends import registry
from sandboxes.identity import identify
from sandboxes.languages import spec_for
from sandboxes.profiles import get_profile
from sandboxes.toolchains import tool_version

# Computed before backends became registry specs, with the if-chains they replace.
KNOWN_RUN_IDS = {
    (None, ""): "e206016e8230e3d9",
    ("bwrap", "tools-x"): "e0886cab9783983b",
    ("docker", "image-y"): "de21ed05de0e7bcc",
    ("unsafe-local", "tools-x"): "e240ddbfc030d1db",
}


@pytest.mark.parametrize(("backend", "toolchain_id"), sorted(KNOWN_RUN_IDS, key=str))
def test_known_run_ids_stay_equal(backend: str | None, toolchain_id: str) -> None:
    fields = {} if backend is None else {"backend": backend, "toolchain_id": toolchain_id}
    request = RunRequest(
        program=Program.single("python", "print(1)"), profile=get_profile("default"), **fields
    )
    assert request.run_id == KNOWN_RUN_IDS[backend, toolchain_id]


def test_the_local_identity_is_the_host_tools_as_before() -> None:
    request = RunRequest(program=Program.single("cpp", "int main() {}"), profile=get_profile("default"))
    (identified,) = identify([request], "bwrap")
    tools = spec_for("cpp").tools(request.setting, request.profile)
    assert identified.backend == "bwrap"
    assert identified.toolchain_id == content_id("tools", {t: tool_version(t) or "missing" for t in tools})


def test_unsafe_without_bubblewrap_is_recorded_as_unsafe_local(monkeypatch: pytest.MonkeyPatch) -> None:
    request = RunRequest(program=Program.single("python", "print(1)"), profile=get_profile("default"))
    which = shutil.which  # only bwrap is gone: tool versions are probed once per process and cached
    monkeypatch.setattr(shutil, "which", lambda name, **kw: None if name == "bwrap" else which(name, **kw))
    (bare,) = identify([request], "bwrap", unsafe=True)
    assert bare.backend == "unsafe-local" and registry.spec_for("unsafe-local").name == "bwrap"
    registry.check_available({"unsafe-local"}, unsafe=True)  # allowed: no error
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        registry.check_available({"bwrap"})


def test_image_profiles_go_to_the_image_backend_from_any_other() -> None:
    current = get_profile("current")
    assert registry.backend_for(current, "bwrap") == "docker"
    assert registry.backend_for(current, "docker") == "docker"
    assert registry.backend_for(get_profile("default"), "docker") == "docker"
    assert registry.backend_for(get_profile("default"), "auto") == "bwrap"  # audit's old name
