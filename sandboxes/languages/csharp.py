from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, LanguageSpec

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program


@dataclass(frozen=True)
class MonoSpec(LanguageSpec):
    """`mcs /app/test.cs -out:/app/test.exe`, then `mono /app/test.exe` (SURGE's ml C# labels match Mono)."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        sources = [f"{WORKDIR}/{name}" for name, _ in self.placed_files(program) if name.endswith(".cs")]
        optimize = ["-optimize+"] if setting.optimization not in (None, "O0") else []
        return [
            self.tool(setting, profile),
            *optimize,
            *setting.extra_flags,
            *sources,
            f"-out:{WORKDIR}/test.exe",
        ]

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        return [profile.toolchains.get("mono", "mono"), f"{WORKDIR}/test.exe", *program.argv]


SPEC = MonoSpec(
    language=Language.CSHARP,
    display_name="C#",
    aliases=("c#", "cs"),
    refactor_file="Program.cs",
    entry_hint="`static void Main()`",
    fence_tags=("csharp", "cs", "c#"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("mono-mcs", "mono-runtime"),
    image_family="csharp",
    image_packages={"bookworm": ("mono-mcs", "mono-runtime"), "bullseye": ("mono-mcs", "mono-runtime")},
    source_name="test.cs",
    extensions=(".cs",),
    default_tool="mcs",
    run_tool="mono",
    apt_packages={"mcs": "mono-mcs", "mono": "mono-runtime"},
    artifacts=("*.exe",),
    # an -O level above O0 is mcs's -optimize+; no language version is passed
    settings=AcceptedSettings(compilers=("mcs",), optimization=True, extra_flags=True),
    self_test='class P { static void Main() { System.Console.WriteLine("surge self-test"); } }\n',
)
