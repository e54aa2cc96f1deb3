"""The local sandbox's hostile-program tests (tests/sandboxes/test_hostile.py, golden cases in
tests/programs/) run unchanged on the Docker backend: same programs, same expected verdicts, same checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandboxes.profiles import get_profile
from tests.docker.conftest import ensure_image, language_param
from tests.sandboxes import test_hostile as shared

# Collected here with the docker `backend` fixture below (a renamed test upstream is simply not shared).
SHARED_TESTS = (
    "test_runs_cannot_read_each_others_files",
    "test_system_v_ipc_does_not_outlive_its_program",
    "test_huge_argv_and_stdin",
    "test_peak_memory_is_the_programs_own",
)
for _name in SHARED_TESTS:
    if hasattr(shared, _name):
        globals()[_name] = getattr(shared, _name)


@pytest.mark.parametrize(
    "case",
    [language_param(shared.load(case)[0].language, case) for case in shared.CASES],
    ids=lambda p: p.name,
)
def test_hostile_program_is_contained(backend: Any, case: Path) -> None:
    """The shared cases, each language's in its own image (built on demand: marked `language_images`
    beyond the core languages)."""
    from sandboxes.backends.docker import image_for

    ensure_image(image_for(shared.load(case)[0].language, get_profile("default")))
    shared.test_hostile_program_is_contained(backend, case)


@pytest.fixture(scope="module")
def backend(docker_backend: Any) -> Any:
    return docker_backend
