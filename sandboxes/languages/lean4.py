from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec
from sandboxes.lean.checker import LEAN_REPL

# SURGE's fl proofs are checked, not run: every batch's lean4 requests go to the checker, a warm REPL pool
# with Mathlib (sandboxes/lean/, docs/lean.md), whose label is the REPL's JSON in SURGE's fl format. The
# plain `lean` fields below (no Mathlib) serve a backend's own runs: the self-test and one-off files.
SPEC = LanguageSpec(
    language=Language.LEAN4,
    display_name="Lean 4",
    aliases=("lean",),
    refactor_file="Main.lean",
    fence_tags=("lean", "lean4"),
    line_comments=("--",),
    block_comments=(("/-", "-/"),),
    image_family="lean4",
    # the image downloads elan and its toolchain (dockerfiles/lean4/Dockerfile)
    image_packages={
        "bookworm": ("curl", "git", "ca-certificates"),
        "bullseye": ("curl", "git", "ca-certificates"),
    },
    source_name="test.lean",
    extensions=(".lean",),
    default_tool="lean",
    apt_packages={
        "lean": "not in Debian 12: use the Lean image (dockerfiles/lean4, docs/lean.md) or elan from "
        "https://github.com/leanprover/elan"
    },
    memory_rlimit="none",
    self_test='def main : IO Unit := IO.println "surge self-test"\n#eval main\n',
    checker=LEAN_REPL,
)
