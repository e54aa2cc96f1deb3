"""A Backend for tests of pipeline logic: Python only, run with the host interpreter (no isolation).

It keeps the real Backend contract (context manager, run_batch yielding RunResults in order) and splits the
work into a compile phase (py_compile, so a syntax error is a COMPILE_ERROR as for compiled languages) and a
run phase with a wall-time limit.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pipeline.records import PhaseResult, Provenance, RunRequest, RunResult, Verdict


class FakePythonBackend:
    name = "fake-python"

    def __init__(self) -> None:
        self.requests: list[RunRequest] = []

    def __enter__(self) -> FakePythonBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        for request in requests:
            self.requests.append(request)
            yield self._run(request)

    def _run(self, request: RunRequest) -> RunResult:
        program = request.program
        with tempfile.TemporaryDirectory() as folder:
            for f in program.files:
                (Path(folder) / f.path).write_text(f.content)
            entry = str(Path(folder) / program.entry_file.path)
            build = _phase([sys.executable, "-m", "py_compile", entry], "", 10.0, folder, compile_phase=True)
            run = None
            if build.verdict is Verdict.OK:
                run = _phase([sys.executable, entry], program.stdin, request.limits.run.wall_s, folder)
        verdict = run.verdict if run else build.verdict
        return RunResult(
            run_id=request.run_id,
            program_id=program.program_id,
            setting_id=request.setting.setting_id,
            profile_id=request.profile.profile_id,
            language=program.language,
            setting=request.setting,
            compile=build,
            run=run,
            verdict=verdict,
            protocol=program.protocol,
            origin=dict(program.origin),
            provenance=Provenance(
                backend=self.name,
                profile=request.profile.name,
                limits=request.limits,
                host="test",
                started_at=datetime.now(UTC),
                pipeline_version="test",
            ),
        )


def _phase(
    command: list[str], stdin: str, wall_s: float, folder: str, compile_phase: bool = False
) -> PhaseResult:
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=wall_s)
    except subprocess.TimeoutExpired:
        return PhaseResult(command=tuple(command), verdict=Verdict.WALL_TIME_LIMIT, detail=f"over {wall_s} s")
    if done.returncode == 0:
        verdict = Verdict.OK
    else:
        verdict = Verdict.COMPILE_ERROR if compile_phase else Verdict.RUNTIME_ERROR
    # Like the real sandboxes, files appear under /app: evidence sent to the LLM must not vary between runs.
    stderr = done.stderr.replace(folder, "/app")
    return PhaseResult(
        command=tuple(command), stdout=done.stdout, stderr=stderr, exit_code=done.returncode, verdict=verdict
    )
