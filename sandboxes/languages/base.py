"""What a language spec is: names, file layout, compile and run commands, comment syntax, packages.

A spec is declarative data plus a few small methods; odd toolchains (Java's class names) override one.
Paths are absolute under /app because compiler diagnostics quote them and SURGE's labels show
`/app/test.cpp:3:5: error: ...` (see shared/notes/surge-ground-truth.md, "bg: the run protocol").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pipeline.vocabulary import Language
from sandboxes.backends.base import Backend

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program

WORKDIR = "/app"

# A versioned compiler ("clang++-19", "gcc-12") is one of its family's ("clang++", "gcc").
_VERSION_SUFFIX = re.compile(r"-\d+(?:\.\d+)*$")


def tool_family(tool: str) -> str:
    """The family of a versioned tool ("clang++-19" -> "clang++", "gdc-12" -> "gdc"); others as they are."""
    return _VERSION_SUFFIX.sub("", tool)


@dataclass(frozen=True)
class AcceptedSettings:
    """Which parts of an ExecutionSetting a language's toolchain takes: a setting is a fact of a toolchain.

    A setting asking for anything else is refused, never run: g++ never builds a Python file, and no row
    records an -O2 that javac ignored. The empty default is an interpreted language's: it takes nothing.
    """

    compilers: tuple[str, ...] = ()  # compiler families; a versioned name ("clang++-19") is its family's
    standards: tuple[str, ...] = ()  # the -std values (editions for rustc) the compilers take
    optimization: bool = False  # whether an -O level reaches the compile command
    extra_flags: bool = False  # whether extra flags reach the compile command
    relative_sources: bool = False  # whether sources can be named relative to /app (dr's diagnostics)

    @classmethod
    def native(cls, compilers: tuple[str, ...], standards: tuple[str, ...]) -> AcceptedSettings:
        """A NativeSpec's: its compile_argv passes any -O level and extra flags, and names sources relative
        to /app when asked."""
        return cls(compilers, standards, optimization=True, extra_flags=True, relative_sources=True)

    def takes_compiler(self, compiler: str) -> bool:
        return tool_family(compiler) in self.compilers

    def refusal(self, setting: ExecutionSetting, name: str) -> str | None:
        """Why language `name` cannot take `setting`, or None when it can."""
        if setting.compiler is not None and not self.takes_compiler(setting.compiler):
            takes = self._takes(name, self.compilers, "compiler")
            return f"{name} cannot be built by {setting.compiler!r} ({takes})"
        if setting.standard is not None and setting.standard not in self.standards:
            takes = self._takes(name, self.standards, "standard")
            return f"{name} has no standard {setting.standard!r} ({takes})"
        if setting.optimization is not None and not self.optimization:
            return f"{name} takes no optimisation level ({setting.optimization!r})"
        if setting.extra_flags and not self.extra_flags:
            return f"{name} takes no compiler flags ({' '.join(setting.extra_flags)!r})"
        if setting.source_paths == "relative" and not self.relative_sources:
            return f"{name} names its sources by absolute path only (source_paths 'relative')"
        return None

    @staticmethod
    def _takes(name: str, values: tuple[str, ...], what: str) -> str:
        return f"{name} takes {', '.join(values)}" if values else f"{name} takes no {what} setting"


class Checker(Protocol):
    """How a proof language's programs are checked by a tool of their own (Lean's REPL with Mathlib), on
    whichever backend the batch runs: a backend never sees them."""

    def open(self) -> Backend:
        """A backend for one batch's programs of the language (it may be ``Closeable``)."""
        ...

    def identity(self) -> str:
        """The toolchain identity run ids record for its checks: a new toolchain, new runs."""
        ...


@dataclass(frozen=True)
class WarmCompiler:
    """A compiler server the in-sandbox runner keeps running across its programs, so the compiler's start
    and warm-up are paid once per runner (sandboxes/inner/warm.py says when it may answer a compile and
    what keeps it a cold compile's equal; sandboxes/warm_compile.py hands it to the runner)."""

    server: tuple[str, ...]  # the command that starts it; "{servers}" is sandboxes/inner/warm_servers
    serves: str  # the compile command's tool it answers for; a compile by any other tool runs cold


@dataclass(frozen=True)
class SeededCache:
    """What a seed program's compile leaves, made once per runner and used by every compile after it
    (sandboxes/inner/warm.py, SeededCaches): a copy of a compiler's content-addressed cache (Go's
    GOCACHE), or arguments that read it (g++'s precompiled header)."""

    serves: str  # the compile command's tool it is for; a compile by any other tool runs as it is
    files: tuple[tuple[str, str], ...]  # the seed program: (path, text)
    argv: tuple[str, ...]  # its compile, in the seed's folder
    cache_env: str = ""  # the compile environment's variable naming the cache folder to copy it to
    with_seed: tuple[str, ...] = ()  # or: arguments after the tool ("{seed}": the seed's folder)
    prologue: str = ""  # ... only for programs whose every file begins with this


@dataclass(frozen=True)
class LanguageSpec:
    """Everything about one language; every per-language table elsewhere is derived from these fields.

    ``aliases``, ``setup_packages``, ``image_family`` and ``image_packages`` must be written as literals:
    ``manifest.py`` reads them from the source with ``ast`` for ``make setup``, which runs before the
    virtualenv (and pydantic) exists.
    """

    language: Language
    display_name: str  # how prompts and reports name it: "C++", "C#"
    aliases: tuple[str, ...]  # upstream spellings besides its own name, lower case: McEval, DebugBench, SURGE
    source_name: str  # a one-file program's file name when its own name has no extension we know
    extensions: tuple[str, ...]
    default_tool: str  # the compiler (compiled languages) or the interpreter
    apt_packages: dict[str, str]  # tool -> Debian package that installs it (the install hint)
    # The refactor: the file a refactored program is saved as ("main.rs"), the tags models put on a code
    # block (lower case; the first is the one prompts ask for).
    refactor_file: str
    fence_tags: tuple[str, ...]
    # Comment syntax, for the leak detector (pipeline/leakage.py): line-comment prefixes.
    line_comments: tuple[str, ...]
    # The Docker image family: dockerfiles/<family>/Dockerfile; languages sharing a toolchain share one.
    image_family: str
    block_comments: tuple[tuple[str, str], ...] = ()  # (opening, closing) delimiters
    entry_hint: str = ""  # where the program starts, for the refactor prompt: "`fn main()`"
    setup_packages: tuple[str, ...] = ()  # scripts/setup-system.sh installs these (empty: not in Debian)
    # The image's Debian packages per suite, by name; dockerfiles/pins/<suite>.txt pins their versions
    # (tests/sandboxes/test_manifest.py keeps the two in step). A suite not named here has no image.
    image_packages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    image_suite: str | None = None  # the one Debian suite every profile's image uses (Julia: bullseye)
    alternative_tools: tuple[str, ...] = ()  # other compilers a setting may name (`surge doctor` probes them)
    run_tool: str | None = None  # the runtime a compiled program needs (java, mono); None: runs itself
    artifacts: tuple[str, ...] = ()  # globs under /app the compile produces (cached, hashed, shared)
    memory_rlimit: str = "data"  # see sandboxes/inner/runner.py: "data" | "as" | "none"
    run_env: dict[str, str] = field(default_factory=dict)
    compile_env: dict[str, str] = field(
        default_factory=dict
    )  # added to the compile phase's (a profile's wins)
    # tool -> the argument that makes it print its version, where that is not `--version` (`go version`,
    # `javac -version`): the version line keys the compile cache and is recorded with every run
    version_flags: dict[str, str] = field(default_factory=dict)
    heap_flag: str | None = None  # e.g. "-Xmx{}m": a managed heap sized to half the run's memory limit
    self_test: str = ""  # a tiny program printing SELF_TEST_OUTPUT (tests run every installed language)
    settings: AcceptedSettings = AcceptedSettings()  # which settings its toolchain takes (default: none)
    # Upstream spellings that name the language with one of its standards, lower case, each itself a
    # standard of ``settings`` (OJCode's "C++14"): each parses as the language, and a row so spelled was
    # built under that standard, so it is compiled under it (``spelled_standard``).
    standard_spellings: tuple[str, ...] = ()
    # A proof language's checker: its programs go to it instead of the batch's backend (`Sandbox`).
    checker: Checker | None = None
    warm_compiler: WarmCompiler | None = None  # a compiler kept warm across a runner's programs
    seeded_cache: SeededCache | None = None  # a compiler cache filled once per runner
    # The environment variable that pins the runtime's own per-run seed from outside (Python's string
    # hash salt: PYTHONHASHSEED), so that an output that follows it (a set's iteration order) repeats.
    # None: the runtime has none (Go's map order, Rust's RandomState: no variable reaches them). The audit
    # reruns a program whose repeats disagreed with it pinned (pipeline/audit/seeds.py).
    seed_environment: str | None = None
    seed_test: str = ""  # a program whose output follows that seed (tests pin it and see it repeat)

    @property
    def fence_name(self) -> str:
        """The fence tag prompts ask for."""
        return self.fence_tags[0]

    def refactor_file_name(self, source: str, default: str | None = None) -> str:
        """The file a refactored program is saved as (Java overrides: javac wants the public class)."""
        return default or self.refactor_file

    @property
    def compiled(self) -> bool:
        return bool(self.artifacts)

    def setting_refusal(self, setting: ExecutionSetting) -> str | None:
        """Why this language cannot take `setting` (its toolchain does not), or None when it can."""
        return self.settings.refusal(setting, self.display_name)

    # -- layout --------------------------------------------------------------------------------

    def file_name(self, program: Program, path: str) -> str:
        """Where a program file goes under /app: its own name if it has our extension, else ours."""
        if len(program.files) == 1 and not path.endswith(self.extensions):
            return self.source_name
        return path

    def placed_files(self, program: Program) -> list[tuple[str, str]]:
        return [(self.file_name(program, f.path), f.content) for f in program.files]

    def entry_path(self, program: Program) -> str:
        return f"{WORKDIR}/{self.file_name(program, program.entry_file.path)}"

    # -- tools ---------------------------------------------------------------------------------

    def tool(self, setting: ExecutionSetting, profile: EnvironmentProfile) -> str:
        """The compiler or interpreter: the setting's, else the profile's, else ours (profiles may remap)."""
        chosen = setting.compiler or profile.toolchains.get(self.language.value) or self.default_tool
        return profile.toolchains.get(chosen, chosen)

    def tools(self, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        needed = [self.tool(setting, profile)]
        if self.run_tool:
            needed.append(profile.toolchains.get(self.run_tool, self.run_tool))
        return needed

    def install_hint(self, tool: str) -> str:
        package = self.apt_packages.get(tool)
        if package is None and tool.startswith("clang++-"):
            package = "clang-" + tool.removeprefix("clang++-")  # Debian: clang++-19 comes with clang-19
        package = (
            package or self.apt_packages.get(tool.split("-")[0]) or next(iter(self.apt_packages.values()))
        )
        if " " in package:  # not packaged by Debian: the spec says where it comes from
            return package
        if package in self.setup_packages:
            return f"apt-get install {package} (or `make setup`)"
        return f"apt-get install {package}"

    # -- commands ------------------------------------------------------------------------------

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        raise NotImplementedError(f"{self.language.value} is not compiled")

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        return [self.tool(setting, profile), self.entry_path(program), *program.argv]


@dataclass(frozen=True)
class NativeSpec(LanguageSpec):
    """gcc/clang/rustc style: sources in, one executable `/app/test` out, run directly."""

    binary: str = "test"
    std_flag: str = "-std={}"
    default_standard: str | None = None
    link_flags: tuple[str, ...] = ()

    def sources(self, program: Program, setting: ExecutionSetting) -> list[str]:
        placed = [name for name, _ in self.placed_files(program) if name.endswith(self.extensions)]
        if setting.source_paths == "relative":  # the compile runs in /app
            return placed or [self.file_name(program, program.entry_file.path)]
        return [f"{WORKDIR}/{name}" for name in placed] or [self.entry_path(program)]

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        standard = (
            setting.standard or profile.toolchains.get(f"{self.language.value}-std") or self.default_standard
        )
        argv = [self.tool(setting, profile)]
        if standard:
            argv.append(self.std_flag.format(standard))
        if setting.optimization:
            argv.append(self.optimization_flag(setting.optimization))
        argv += [
            *setting.extra_flags,
            *self.sources(program, setting),
            "-o",
            f"{WORKDIR}/{self.binary}",
            *self.link_flags,
        ]
        return argv

    def optimization_flag(self, level: str) -> str:
        return f"-{level}"

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        return [f"{WORKDIR}/{self.binary}", *program.argv]
