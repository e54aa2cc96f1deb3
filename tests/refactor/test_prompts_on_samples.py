"""Every method's prompt, filled from REAL upstream samples read by the source adapters."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.records import Language, SourceItem
from pipeline.refactor.methods import METHODS, method_for, swap_in
from pipeline.refactor.prompts import load_prompt

# sample folder -> (adapter module, folder inside the upstream checkout)
SAMPLES = {
    "mceval": ("sources.mceval", "data"),
    "debugbench": ("sources.debugbench", "benchmark"),
    "azl397985856-leetcode/problems": ("sources.leetcode", "problems"),
}


def sample_items(samples: Path, tmp_path: Path, folder: str) -> list[SourceItem]:
    module_name, inner = SAMPLES[folder]
    adapter = pytest.importorskip(module_name, reason=f"needs the {module_name} adapter")
    checkout = tmp_path / folder.replace("/", "_")
    shutil.copytree(samples / folder, checkout / inner, ignore=shutil.ignore_patterns("README.txt"))
    return [loaded for loaded in adapter.read(checkout, "0" * 40) if isinstance(loaded, SourceItem)]


@pytest.mark.parametrize("folder", sorted(SAMPLES))
def test_prompts_fill_from_real_items(samples: Path, tmp_path: Path, folder: str) -> None:
    items = sample_items(samples, tmp_path, folder)
    assert items
    for item in items:
        if item.language is None and item.source == "mceval":
            continue  # McEval AWK/Julia-like items without a sandbox language are not refactored
        method = method_for(item)
        prompt = load_prompt(method.prompt)
        text = "\n".join(m["content"] for m in prompt.messages(**method.values(item, method.language(item))))
        assert "```\n\n```" not in text  # no empty code section
        if method.name == "mceval":
            assert item.fields["canonical_solution"].strip()[:40] in text and "no assert" in text
        if method.name == "debugbench":
            oracle = item.fields["oracle_code"]
            assert oracle.strip()[:60] in text
            harness = oracle + "\n\nprint('harness')\n"
            assert swap_in(harness, oracle, item.fields["buggy_code"]) is not None
        if method.name == "leetcode":
            assert method.language(item) in (
                Language.PYTHON,
                Language.CPP,
                Language.JAVASCRIPT,
                Language.JAVA,
            )


def test_every_method_has_a_prompt_file_with_its_version() -> None:
    for method in METHODS.values():
        prompt = load_prompt(method.prompt)
        assert prompt.tag == f"{method.prompt}.v{prompt.version}" and prompt.user
    assert load_prompt("repair").tag == "repair.v1" and load_prompt("difficulty", 1).answer == "number"
