from pipeline.records import Language
from sandboxes.languages.base import NativeSpec

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
    },
    source_name="test.c",
    extensions=(".c",),
    default_tool="gcc",
    apt_packages={"gcc": "gcc", "clang": "clang"},
    artifacts=("test",),
    link_flags=("-lm",),
    self_test='#include <stdio.h>\nint main(void) { puts("surge self-test"); return 0; }\n',
)
