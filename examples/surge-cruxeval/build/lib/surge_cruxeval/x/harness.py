"""The harness languages CRUXEval-X needs beside the core specs, for the ``surge.languages`` entry points.

Run as their core languages run, three of CRUXEval-X's harnesses cannot fail a check, and every label of
theirs would "reproduce" whatever its expected value says:

- Java's ``assert`` is off unless the JVM runs with ``-ea``; the programs also import ``org.javatuples``
  (Debian's libjavatuples-java, a jar in /usr/share/java), which javac and java must find;
- C#'s ``Debug.Assert`` is compiled away unless ``DEBUG`` is defined, and even then mono only prints a
  failed assert (to stderr with ``MONO_TRACE_LISTENER=Console.Error``) and exits 0;
- D's asserts sit in ``unittest`` blocks, which run only in a build with unittests.

Each is its core spec with the commands changed and a name of its own (``cruxeval-java``), in the core's
image family, so a Docker profile runs it in the same image. Nothing else of the core spec changes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from pipeline.records import EnvironmentProfile, ExecutionSetting, Language, Program
from sandboxes.languages import WORKDIR, csharp, java
from sandboxes.languages.base import LanguageSpec
from sandboxes.languages.csharp import MonoSpec
from sandboxes.languages.java import JVM_FLAGS, JavaSpec

JAVATUPLES_JAR = "/usr/share/java/javatuples.jar"
S = TypeVar("S", bound=LanguageSpec)


def derived(kind: type[S], core: LanguageSpec, name: str, why: str, **changes: Any) -> S:
    """A harness spec: the core spec's fields in a subclass, under its own name (no aliases or fence tags
    of the core's: those name the core language)."""
    values = {f.name: getattr(core, f.name) for f in fields(core)}
    values |= {
        "language": Language(name),
        "display_name": f"{core.display_name} ({why})",
        "aliases": (),
        "fence_tags": (name,),
        "setup_packages": (),  # the core's packages, installed for the core; ours: debian-packages.txt
    }
    return kind(**(values | changes))


@dataclass(frozen=True)
class JavaHarness(JavaSpec):
    """javac and java with the javatuples jar on the class path; java with assertions enabled."""

    classpath: str = f"{WORKDIR}:{JAVATUPLES_JAR}"

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        tool, *rest = super().compile_argv(program, setting, profile)
        return [tool, "-cp", self.classpath, *rest]

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        java = profile.toolchains.get("java", "java")
        return [java, *JVM_FLAGS, "-ea", "-cp", self.classpath, self.main_class(program), *program.argv]


@dataclass(frozen=True)
class CSharpHarness(MonoSpec):
    """mcs with DEBUG defined (Debug.Assert is compiled in) and System.Numerics referenced (the programs'
    `using System.Numerics`); mono writes a failed assert to stderr (run_env)."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        tool, *rest = super().compile_argv(program, setting, profile)
        return [tool, "-d:DEBUG", "-r:System.Numerics.dll", *rest]


JAVA = derived(JavaHarness, java.SPEC, "cruxeval-java", "CRUXEval-X: -ea, javatuples")
CSHARP = derived(
    CSharpHarness,
    csharp.SPEC,
    "cruxeval-csharp",
    "CRUXEval-X: DEBUG",
    run_env={**csharp.SPEC.run_env, "MONO_TRACE_LISTENER": "Console.Error"},
)
