from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, NativeSpec

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program


@dataclass(frozen=True)
class SwiftSpec(NativeSpec):
    """`swiftc [-O] [flags] <sources> -o /app/test`: swiftc spells its optimisation levels -Onone, -O and
    -Osize, and takes no -std (its language mode, `-swift-version 5`, can come as extra flags)."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        optimize = [self.optimization_flag(setting.optimization)] if setting.optimization else []
        sources = self.sources(program, setting)
        return [
            self.tool(setting, profile),
            *optimize,
            *setting.extra_flags,
            *sources,
            "-o",
            f"{WORKDIR}/test",
        ]

    def optimization_flag(self, level: str) -> str:
        return {"O0": "-Onone", "Os": "-Osize"}.get(level, "-O")


# Debian's package named `swift` is OpenStack's object store. The language is `swiftlang`, packaged from
# Debian 13 (trixie: Swift 6.0.3; sid has 6.2) and in no earlier suite (checked bullseye, bookworm,
# bookworm-backports, trixie and sid). So this machine (Debian 12) has no swiftc and `make setup` installs
# none: a run on bwrap is `toolchain_missing` with the hint below. Docker runs every profile's Swift in
# surge/swift:trixie, built from trixie's base by the shared recipe (dockerfiles/language/Dockerfile).
# No -O by default: at -O Swift drops `assert` (CRUXEval-X's programs assert). A program importing
# Foundation compiled in 2.9 s of wall time there against 0.6 s for the self-test: clang's module cache
# lives in the job's fresh HOME, so every program builds it again.
SPEC = SwiftSpec(
    language=Language("swift"),
    display_name="Swift",
    aliases=(),
    refactor_file="main.swift",
    entry_hint="top-level code in main.swift",
    fence_tags=("swift",),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    image_family="swift",
    # swiftlang pulls gcc but not the C library's development files its linker needs (Scrt1.o, crti.o)
    image_packages={"trixie": ("swiftlang", "libc6-dev")},
    image_suite="trixie",
    source_name="test.swift",
    extensions=(".swift",),
    default_tool="swiftc",
    apt_packages={
        "swiftc": "not in Debian 12: Debian 13 (trixie) packages it as swiftlang; run Swift in its image "
        "(--backend docker; build it with `bash dockerfiles/build.sh trixie swift`)"
    },
    artifacts=("test",),
    settings=AcceptedSettings(
        compilers=("swiftc",), optimization=True, extra_flags=True, relative_sources=True
    ),
    self_test='print("surge self-test")\n',
)
