from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, LanguageSpec, WarmCompiler

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program

# The one rule for naming a Java file (placement, refactor, released records): javac insists a file is named
# after its top-level public class. Top-level only: a `public static class Node` nested before it must not
# name the file (a top-level class is never static).
PUBLIC_CLASS = re.compile(
    r"^[ \t]*public\s+(?:(?:final|abstract|sealed|strictfp)\s+)*(?:class|enum|record|interface)\s+(\w+)",
    re.MULTILINE,
)
ANY_CLASS = re.compile(r"\b(?:class|enum|record|interface)\s+(\w+)")
MAIN_METHOD = re.compile(r"\bstatic\s+(?:public\s+)?void\s+main\s*\(")
# Serial GC and one compiler thread: fewer JVM threads (they count against the process limit) and a
# faster start; the heap cap keeps the JVM inside the sandbox's memory limit.
JVM_FLAGS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1")
# javac kept warm: javac's own entry point in one JVM for the runner's life (warm_servers/WarmJavac.java),
# with the compile's -J flag; no perf-data file in the programs' /tmp. 0.85 s of CPU a compile cold, 0.05
# warm (CRUXEval-X's Java programs, after the first few).
WARM_JAVAC = WarmCompiler(
    server=("java", "-XX:+UseSerialGC", "-XX:-UsePerfData", "{servers}/WarmJavac.java"), serves="javac"
)


def public_class(source: str) -> str | None:
    match = PUBLIC_CLASS.search(source)
    return match[1] if match else None


def class_file_name(source: str) -> str:
    """The file a Java source must be saved as: its public class's, else its first class's, else Main."""
    match = ANY_CLASS.search(source)
    return f"{public_class(source) or (match[1] if match else 'Main')}.java"


@dataclass(frozen=True)
class JavaSpec(LanguageSpec):
    """The file is named after the public class; the class run is the one that declares main (SURGE bg)."""

    def file_name(self, program: Program, path: str) -> str:
        if len(program.files) == 1 and not path.endswith(".java"):
            return class_file_name(program.files[0].content)
        return path

    def refactor_file_name(self, source: str, default: str | None = None) -> str:
        name = public_class(source)
        return f"{name}.java" if name else default or self.refactor_file

    def main_class(self, program: Program) -> str:
        source = program.entry_file.content
        main = MAIN_METHOD.search(source)
        declared = [m for m in ANY_CLASS.finditer(source) if main is None or m.start() < main.start()]
        return declared[-1][1] if declared else "Main"

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        sources = [f"{WORKDIR}/{name}" for name, _ in self.placed_files(program) if name.endswith(".java")]
        return [
            self.tool(setting, profile),
            "-J-XX:+UseSerialGC",
            "-encoding",
            "UTF-8",
            *setting.extra_flags,
            *sources,
        ]

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        java = profile.toolchains.get("java", "java")
        return [java, *JVM_FLAGS, "-cp", WORKDIR, self.main_class(program), *program.argv]


SPEC = JavaSpec(
    language=Language.JAVA,
    display_name="Java",
    aliases=(),
    refactor_file="Main.java",
    entry_hint="`public static void main(String[] args)` in a public class",
    fence_tags=("java",),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("default-jdk-headless", "default-jre-headless"),  # the jre: a dependency of the jdk
    image_family="java",
    image_packages={"bookworm": ("openjdk-17-jdk-headless",), "bullseye": ("openjdk-17-jdk-headless",)},
    source_name="Main.java",
    extensions=(".java",),
    default_tool="javac",
    run_tool="java",
    apt_packages={"javac": "default-jdk-headless", "java": "default-jre-headless"},
    artifacts=("*.class",),
    heap_flag="-Xmx{}m",
    version_flags={"javac": "-version", "java": "-version"},
    settings=AcceptedSettings(compilers=("javac",), extra_flags=True),  # compile_argv passes no -O or -std
    warm_compiler=WARM_JAVAC,
    self_test=(
        "public class Main {\n"
        '  public static void main(String[] a) { System.out.println("surge self-test"); }\n'
        "}\n"
    ),
)
