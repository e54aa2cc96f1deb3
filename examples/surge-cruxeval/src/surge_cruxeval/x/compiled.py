"""The harness languages of CRUXEval-X's D and Go programs, for the ``surge.languages`` entry points (beside
harness.py's Java and C#): each is its core spec with the commands its harness needs.

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
from sandboxes.languages import WORKDIR, d, go, tool_family
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


D = derived(DHarness, d.SPEC, "cruxeval-d", "CRUXEval-X: unittests")
GO = derived(GoHarness, go.SPEC, "cruxeval-go", "CRUXEval-X: go test")
