"""Against real Lean + Mathlib (the Lean image, docs/lean.md); skipped, naming what is missing, elsewhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.records import Verdict
from sandboxes.lean.backend import LeanBackend, missing_toolchain
from sandboxes.lean.settings import LeanSettings
from tests.conftest import SAMPLES
from tests.lean.conftest import HEADER, check_all

SETTINGS = LeanSettings()
pytestmark = pytest.mark.skipif(
    missing_toolchain(SETTINGS) is not None,
    reason=f"needs `lake` and the `repl` with Mathlib: {missing_toolchain(SETTINGS)}",
)


@pytest.fixture(scope="module")
def lean() -> Iterator[LeanBackend]:
    with LeanBackend(SETTINGS, workers=1) as backend:
        yield backend


def test_bundled_fl_labels_are_reproduced(lean: LeanBackend) -> None:
    records = json.loads((SAMPLES / "surge-released" / "fl.json").read_text())
    results = check_all(lean, *[r["question"] for r in records])
    for record, result in zip(records, results, strict=True):
        assert result.verdict in (Verdict.OK, Verdict.COMPILE_ERROR), result.compile
        assert result.label == record["gt"]


def test_sorry_and_native_decide_show_in_the_audit(lean: LeanBackend) -> None:
    sorry, native = check_all(
        lean,
        f"{HEADER}\n\ntheorem s : (2 : ℕ) + 2 = 4 := by\n  sorry",
        f"{HEADER}\n\ntheorem n : (2 : ℕ) + 2 = 4 := by\n  native_decide",
    )
    assert json.loads(sorry.label) == {"errors": [], "pass": True, "complete": False}
    audit: dict[str, Any] = json.loads(sorry.compile.detail if sorry.compile else "{}")["audit"]
    assert audit["uses_sorry_ax"]
    audit = json.loads(native.compile.detail if native.compile else "{}")["audit"]
    assert audit["uses_native_decide"] and json.loads(native.label)["complete"]
