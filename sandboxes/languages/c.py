from pipeline.records import Language
from sandboxes.languages.base import NativeSpec

# -lm: C programs calling sqrt() need libm on glibc; SURGE's C labels never show a libm link error.
SPEC = NativeSpec(
    language=Language.C,
    source_name="test.c",
    extensions=(".c",),
    default_tool="gcc",
    apt_packages={"gcc": "gcc", "clang": "clang"},
    artifacts=("test",),
    link_flags=("-lm",),
    self_test='#include <stdio.h>\nint main(void) { puts("surge self-test"); return 0; }\n',
)
