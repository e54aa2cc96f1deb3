from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, LanguageSpec, WarmCompiler

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program

# The --target values tsc 4.8 (Debian 12) takes; a setting's "standard" is the target.
TS_TARGETS = ("es3", "es5", "es6", *(f"es{year}" for year in range(2015, 2023)), "esnext")


@dataclass(frozen=True)
class TypeScriptSpec(LanguageSpec):
    """`tsc --target esnext --module commonjs --skipLibCheck <sources>` emits test.js beside test.ts; `node`
    runs it.

    esnext as MultiPL-E (whose harness CRUXEval-X reuses) compiles: the programs use ES2017+ library calls
    (`includes`, `Object.entries`), which tsc's own default target (ES3) rejects. CommonJS, so a program with
    an `import` still runs as node's default script type. --skipLibCheck: tsc no longer type-checks its own
    library declarations (the program is checked as before), which halved its CPU on the self-test (3.5 ->
    1.6 s, median of 5, tsc 4.8). tsc exits 2 on a type error (having emitted the JS anyway): a
    compile_error, as MultiPL-E counts it.
    """

    default_standard: str = "esnext"

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        sources = [f"{WORKDIR}/{name}" for name, _ in self.placed_files(program) if name.endswith(".ts")]
        target = setting.standard or profile.toolchains.get("typescript-std") or self.default_standard
        tool = self.tool(setting, profile)
        flags = ["--target", target, "--module", "commonjs", "--skipLibCheck"]
        return [tool, *flags, *setting.extra_flags, *sources]

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        node = profile.toolchains.get("node", "node")
        return [node, self.entry_path(program).removesuffix(".ts") + ".js", *program.argv]


# tsc kept warm (warm_servers/warm-tsc.js): Debian's tsc script loaded once in one node process, its
# command-line entry run per compile. 1.0 s of CPU a compile cold, 0.2 warm.
WARM_TSC = WarmCompiler(server=("node", "{servers}/warm-tsc.js", "/usr/bin/tsc"), serves="tsc")

# bookworm's image for every profile: bullseye's Node 12 cannot parse what tsc's esnext target leaves as
# written (optional chaining `a?.b`, Node 14 and later).
SPEC = TypeScriptSpec(
    language=Language("typescript"),
    display_name="TypeScript",
    aliases=("ts",),
    refactor_file="main.ts",
    entry_hint="top-level code run by node after tsc",
    fence_tags=("typescript", "ts"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("node-typescript",),
    image_family="typescript",
    image_packages={"bookworm": ("node-typescript", "nodejs")},
    image_suite="bookworm",
    source_name="test.ts",
    extensions=(".ts",),
    default_tool="tsc",
    run_tool="node",
    apt_packages={"tsc": "node-typescript", "node": "nodejs"},
    artifacts=("*.js",),
    memory_rlimit="none",  # tsc and the program both run on V8, whose heap cage RLIMIT_DATA refuses
    settings=AcceptedSettings(compilers=("tsc",), standards=TS_TARGETS, extra_flags=True),
    warm_compiler=WARM_TSC,
    self_test='const greeting: string = "surge self-test";\nconsole.log(greeting);\n',
)
