from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, NativeSpec, tool_family

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program


@dataclass(frozen=True)
class DSpec(NativeSpec):
    """ldc2 names its output `-of=<file>`, gdc (gcc's driver) `-o <file>`; both take -O levels and flags.

    Extra flags go in before the sources, so a harness can compile a program's `unittest` blocks in
    (`-unittest` for ldc2, `-funittest` for gdc: CRUXEval-X's D programs keep their asserts there).
    """

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        tool = self.tool(setting, profile)
        binary = f"{WORKDIR}/{self.binary}"
        output = ["-o", binary] if tool_family(os.path.basename(tool)) == "gdc" else [f"-of={binary}"]
        optimize = [self.optimization_flag(setting.optimization)] if setting.optimization else []
        return [tool, *optimize, *setting.extra_flags, *self.sources(program, setting), *output]


# ldc2 by default, the faster compiler here (ldc 1.30, gdc 12.2, median of 7 each): the self-test compiled in
# the sandbox in 0.20 s of CPU and 0.52 s of wall time, with gdc in 0.24 s and 0.71 s; on the host 0.23 s
# against 0.37 s, and a 20-line program with std.algorithm and a unittest 0.29 s against 0.35 s.
# ldc2 links through `cc` (package gcc) against the C library's development files, which ldc does not pull in:
# the image pins both. ldc2 leaves the
# object file beside the binary (`test.o`; it has no switch to remove it), so the artifacts keep it too:
# a run from the compile cache then finds /app as the compile left it.
SPEC = DSpec(
    language=Language("d"),
    display_name="D",
    aliases=("dlang",),
    refactor_file="main.d",
    entry_hint="`void main()`",
    fence_tags=("d", "dlang"),
    line_comments=("//",),
    block_comments=(("/*", "*/"), ("/+", "+/")),
    setup_packages=("ldc", "gdc"),
    image_family="d",
    image_packages={
        "bookworm": ("ldc", "gdc", "gdc-12", "gcc", "libc6-dev"),
        "bullseye": ("ldc", "gdc", "gdc-10", "gcc", "libc6-dev"),
    },
    alternative_tools=("gdc",),
    source_name="test.d",
    extensions=(".d",),
    default_tool="ldc2",
    apt_packages={"ldc2": "ldc", "gdc": "gdc"},
    artifacts=("test", "*.o"),
    settings=AcceptedSettings(
        compilers=("ldc2", "gdc"), optimization=True, extra_flags=True, relative_sources=True
    ),
    self_test='import std.stdio;\n\nvoid main() { writeln("surge self-test"); }\n',
)
