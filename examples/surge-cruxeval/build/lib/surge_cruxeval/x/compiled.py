"""The harness languages of CRUXEval-X's C++, D and Go programs, for the ``surge.languages`` entry points
(beside harness.py's Java and C#): each is its core spec with the commands its harness needs, or with a
compile that starts from a seed made once per runner (sandboxes/inner/warm.py).

- C++'s programs all begin by including bits/stdc++.h, precompiled once per runner (``CPP_SEED``).

- D's asserts sit in ``unittest`` blocks, which run only in a build with unittests (ldc2's ``-unittest``,
  gdc's ``-funittest``); the runtime then runs them before ``main`` and ends with status 1 on a failure.
- Go's checks are ``TestF`` in a ``_test.go`` file, run by ``go test``: the test binary is built with
  ``go test -c`` in the module folder (/app, with the program's go.mod), offline as the core spec builds,
  and run as the program. A compile error is then the compile phase's, not a failed test.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pipeline.records import EnvironmentProfile, ExecutionSetting, Program
from sandboxes.languages import WORKDIR, cpp, d, go, tool_family
from sandboxes.languages.base import NativeSpec, SeededCache
from surge_cruxeval.x.harness import derived

UNITTEST_FLAGS = {"gdc": "-funittest", "ldc2": "-unittest"}


@dataclass(frozen=True)
class DHarness(d.DSpec):
    """The core D build with the program's unittest blocks compiled in."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        family = tool_family(os.path.basename(self.tool(setting, profile)))
        flag = UNITTEST_FLAGS.get(family, "-unittest")
        with_tests = setting.model_copy(update={"extra_flags": (flag, *setting.extra_flags)})
        return super().compile_argv(program, with_tests, profile)


@dataclass(frozen=True)
class GoHarness(go.GoSpec):
    """`go test -c` of the module in /app into /app/test, which runs the program's TestF."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        binary = f"{WORKDIR}/{self.binary}"
        return [self.tool(setting, profile), "test", "-c", "-o", binary, *setting.extra_flags]


# The standard library packages a test binary and CRUXEval-X's programs need, compiled once per runner
# into a build cache every compile starts from (Go's cache is content-addressed: the same objects, the same
# binary, as a build from an empty cache). Without it each `go test -c` rebuilt ~50 of them: Debian's
# precompiled library is built with cgo, the harness builds without (2.0 s of CPU a program; 0.15 from the
# seeded cache). A package the seed lacks is compiled by the program's own build, as before.
SEED_PACKAGES = ("bytes", "errors", "fmt", "math", "math/big", "reflect", "regexp", "sort", "strconv",
                 "strings", "testing", "unicode", "unicode/utf8")  # fmt: skip
SEED_TEST = "package seed_test\n\nimport (\n{}\n)\n".format(
    "\n".join(f'\t_ "{package}"' for package in SEED_PACKAGES)
)
GO_SEED = SeededCache(
    serves="go",
    files=(("go.mod", "module seed\n\ngo 1.19\n"), ("seed_test.go", SEED_TEST)),
    argv=("go", "test", "-c", "-o", "seed.test"),
    cache_env="GOCACHE",
)

# Every C++ program of CRUXEval-X begins with these two lines, and parsing bits/stdc++.h is most of its
# compile (1.7 s of CPU a program, 0.35 with the header precompiled). g++ uses a precompiled header only
# for a file's first include, so the seeded compile forces the header in front of the program
# (`-include`) from a folder holding it precompiled (with the core spec's standard) beside a link to the
# real header, which the program's own include then finds; a program that begins otherwise, or a
# compile with another standard or compiler, compiles as it is. The binaries of the bundled records are
# byte-identical either way (and the runner checks its first seeded compile against a cold one).
CPP_PROLOGUE = "#include<assert.h>\n#include<bits/stdc++.h>\n"
CPP_STD = cpp.SPEC.default_standard
CPP_PCH_SCRIPT = (
    f"header=$(printf '#include <bits/stdc++.h>\\n' | g++ -std={CPP_STD} -x c++ -H -E -o /dev/null - 2>&1 "
    "| head -n 1 | cut -d' ' -f2) && mkdir bits && ln -s \"$header\" bits/stdc++.h && "
    f"g++ -std={CPP_STD} -x c++-header bits/stdc++.h -o bits/stdc++.h.gch"
)
CPP_SEED = SeededCache(
    serves="g++",
    files=(),
    argv=("sh", "-c", CPP_PCH_SCRIPT),
    with_seed=("-I{seed}", "-include", "bits/stdc++.h"),
    prologue=CPP_PROLOGUE,
)

CPP = derived(
    NativeSpec, cpp.SPEC, "cruxeval-cpp", "CRUXEval-X: precompiled bits/stdc++.h", seeded_cache=CPP_SEED
)
D = derived(DHarness, d.SPEC, "cruxeval-d", "CRUXEval-X: unittests")
GO = derived(GoHarness, go.SPEC, "cruxeval-go", "CRUXEval-X: go test", seeded_cache=GO_SEED)
