"""The local sandbox's hostile-program tests (tests/sandboxes/test_hostile.py, golden cases in
tests/programs/) run unchanged on the Docker backend: same programs, same expected verdicts, same checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandboxes.profiles import get_profile
from tests.docker.conftest import ensure_image, language_marks
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


@pytest.fixture(scope="module")
def backend(docker_backend: Any) -> Any:
    return docker_backend


def case_param(case: Path) -> Any:
    """A case, marked `language_images` where its language's image is beyond the core set."""
    program, _ = shared.load(case)
    return pytest.param(case, marks=language_marks(program.language), id=case.name)


@pytest.mark.parametrize("case", [case_param(case) for case in shared.CASES])
def test_hostile_program_is_contained(backend: Any, case: Path) -> None:
    from sandboxes.backends.docker import image_for

    program, _ = shared.load(case)
    ensure_image(image_for(program.language, get_profile("default")))  # built here when missing
    shared.test_hostile_program_is_contained(backend, case)
