"""Re-executing an edited program: the same sandbox and limits the refactor run used."""

from __future__ import annotations

from pipeline.records import Program, RunResult, default_backend
from pipeline.refactor.methods import METHODS


def sandbox_runner(backend: str | None = None, unsafe: bool = False):  # -> Callable[[Program], RunResult]
    """backend: a registered one (None: the default)."""

    def run(program: Program) -> RunResult:
        from pipeline.refactor.execute import Executor
        from sandboxes import open_backend

        method = METHODS.get(program.origin.get("method", ""))
        with open_backend(backend or default_backend(), unsafe=unsafe) as sandbox:
            return Executor(sandbox).run(program, method.setting if method else None)

    return run
