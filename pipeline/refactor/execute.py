"""Running candidates: one open sandbox backend, one program at a time, with the limits of a refactor run."""

from __future__ import annotations

from pipeline.programs import method_setting_for
from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Limits,
    PhaseLimits,
    Program,
    RunRequest,
    RunResult,
)
from sandboxes.backends.base import Backend
from sandboxes.profiles import get_profile

# A candidate that needs more than this is not the small program a benchmark item should be.
REFACTOR_LIMITS = Limits(run=PhaseLimits(cpu_s=5.0, wall_s=10.0, memory_mib=1024))


class Executor:
    def __init__(
        self, backend: Backend, profile: EnvironmentProfile | None = None, limits: Limits = REFACTOR_LIMITS
    ) -> None:
        self.backend = backend
        self.profile = profile or get_profile("default")
        self.limits = limits

    def run(self, program: Program, setting: ExecutionSetting | None = None) -> RunResult:
        request = RunRequest(
            program=program,
            setting=method_setting_for(program, setting),
            profile=self.profile,
            limits=self.limits,
        )
        return next(iter(self.backend.run_batch([request])))
