from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import AcceptedSettings, NativeSpec

# The -std values gcc 12, clang 14 and clang 19 all take (c23 only from gcc 14 and clang 18).
C_STANDARDS = tuple(
    f"{dialect}{year}" for dialect in ("c", "gnu") for year in ("89", "90", "99", "11", "17", "18", "2x")
)

# -lm: C programs calling sqrt() need libm on glibc; SURGE's C labels never show a libm link error.
SPEC = NativeSpec(
    language=Language.C,
    display_name="C",
    aliases=(),
    refactor_file="main.c",
    entry_hint="`int main(void)`",
    fence_tags=("c", "h"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("gcc", "clang"),
    image_family="cpp",
    image_packages={
        "bookworm": ("gcc", "gcc-12", "clang", "libc6-dev"),
        "bullseye": ("gcc", "gcc-10", "clang-16", "libc6-dev"),
        "focal": ("gcc-9", "libc6-dev", "patchelf"),
    },
    source_name="test.c",
    extensions=(".c",),
    default_tool="gcc",
    apt_packages={"gcc": "gcc", "clang": "clang"},
    artifacts=("test",),
    link_flags=("-lm",),
    settings=AcceptedSettings.native(compilers=("gcc", "clang"), standards=C_STANDARDS),
    self_test='#include <stdio.h>\nint main(void) { puts("surge self-test"); return 0; }\n',
)
