from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, LanguageSpec, WarmCompiler

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program

OBJECT = re.compile(r"\bobject\s+(\w+)")
MAIN_METHOD = re.compile(r"\bdef\s+main\s*\(")
APP_OBJECT = re.compile(r"\bobject\s+(\w+)\s+extends\s+App\b")
# JVM flags for both scripts (scalac and scala read JAVA_OPTS). The C1 compiler only and one compiler thread,
# as java.py runs its programs: scalac spends its ~5 s of CPU warming up the JIT, and with C1 alone the
# self-test compiled in 2.6 s of CPU instead of 5.5 s (median of 5, Scala 2.11.12 on OpenJDK 17); the serial
# collector and one compiler thread also keep the JVM's threads, which count against the process limit,
# few. Setting JAVA_OPTS replaces the scripts' default (-Xmx256M -Xms32M): the compile keeps that heap,
# the run's heap is sized from its memory limit (heap_flag).
JVM_OPTS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"
# scalac kept warm (warm_servers/WarmScalac.java), started as Debian's scalac script starts the compiler:
# its class path (the compile's own, through -Dscala.usejavacp), scala.home and the compile's heap; both
# JIT tiers, which a server lives long enough to profit from. 2.3 s of CPU a compile cold, 0.45 warm
# after twenty.
SCALA_HOME = "/usr/share/scala-2.11"
SCALA_TOOL_JARS = ("hawtjni-runtime", "jansi", "jline", "scala-actors", "scala-compiler", "scala-library",
                   "scala-parser-combinators", "scala-reflect", "scala-xml", "scalap")  # fmt: skip
WARM_SCALAC = WarmCompiler(
    server=(
        "java",
        "-Xmx256M",
        "-Xms32M",
        "-XX:+UseSerialGC",
        "-XX:-UsePerfData",
        "-classpath",
        ":".join(f"{SCALA_HOME}/lib/{jar}.jar" for jar in SCALA_TOOL_JARS),
        f"-Dscala.home={SCALA_HOME}",
        "-Dscala.usejavacp=true",
        "-Denv.emacs=",
        "{servers}/WarmScalac.java",
    ),
    serves="scalac",
)


def main_object(source: str) -> str:
    """The object to run: the one declaring `def main(`, else one extending App, else `Main`.

    CRUXEval-X names it `Problem`, MultiPL-E too; SURGE-style programs `Main`."""
    main = MAIN_METHOD.search(source)
    if main:
        declared = [m[1] for m in OBJECT.finditer(source, 0, main.start())]
        if declared:
            return declared[-1]
    app = APP_OBJECT.search(source)
    return app[1] if app else "Main"


@dataclass(frozen=True)
class ScalaSpec(LanguageSpec):
    """`scalac -d /app <sources>`, then `scala -cp /app <object>` (the object declaring main)."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        sources = [f"{WORKDIR}/{name}" for name, _ in self.placed_files(program) if name.endswith(".scala")]
        return [self.tool(setting, profile), "-d", WORKDIR, *setting.extra_flags, *sources]

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        scala = profile.toolchains.get("scala", "scala")
        return [scala, "-cp", WORKDIR, main_object(program.entry_file.content), *program.argv]


SPEC = ScalaSpec(
    language=Language("scala"),
    display_name="Scala",
    aliases=(),
    refactor_file="Main.scala",
    entry_hint="`def main(args: Array[String])` in an `object`",
    fence_tags=("scala",),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("scala",),  # Debian's Scala 2.11.12, on the default JRE
    image_family="scala",
    image_packages={"bookworm": ("scala",), "bullseye": ("scala",)},
    source_name="test.scala",
    extensions=(".scala",),
    default_tool="scalac",
    run_tool="scala",
    apt_packages={"scalac": "scala", "scala": "scala"},
    artifacts=("*.class",),
    compile_env={"JAVA_OPTS": f"-Xmx256M -Xms32M {JVM_OPTS}"},
    run_env={"JAVA_OPTS": JVM_OPTS},
    heap_flag="-J-Xmx{}m",  # the scala script hands -J flags to the JVM
    version_flags={"scalac": "-version", "scala": "-version"},
    settings=AcceptedSettings(compilers=("scalac",), extra_flags=True),  # no -O, no language version
    warm_compiler=WARM_SCALAC,
    self_test='object Main {\n  def main(args: Array[String]): Unit = println("surge self-test")\n}\n',
)
