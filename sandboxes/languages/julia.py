from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# Debian 12 has no julia package: the hint points at the upstream installer.
SPEC = LanguageSpec(
    language=Language.JULIA,
    display_name="Julia",
    aliases=("jl",),
    refactor_file="main.jl",
    entry_hint="top-level code",
    fence_tags=("julia", "jl"),
    line_comments=("#",),
    block_comments=(("#=", "=#"),),
    image_family="julia",
    image_packages={"bullseye": ("julia",)},
    image_suite="bullseye",  # Debian packages Julia up to bullseye only: every profile runs Julia 1.5.3
    source_name="test.jl",
    extensions=(".jl",),
    default_tool="julia",
    apt_packages={"julia": "not in Debian 12: install juliaup from https://julialang.org/downloads/"},
    memory_rlimit="none",
    self_test='println("surge self-test")\n',
)
