"""Compose a label from the recorded phases, in SURGE's conventions (shared/notes/surge-ground-truth.md).

The phases are kept apart in RunResult; the label is derived from them, never captured interleaved.
"""

from __future__ import annotations

from pipeline.records import LabelProtocol, PhaseResult, Verdict

COMPILE_ERROR_PREFIX = "Compilation Error: "


def compose_label(protocol: LabelProtocol, compile: PhaseResult | None, run: PhaseResult | None) -> str:
    """stdout: the run's stdout. compile_then_run (dr): compiler output, then the run's stdout.
    combined_with_prefix (bg): 'Compilation Error: ' + compiler stderr when compiling failed, else the
    run's stdout then stderr. A signal never adds shell text such as 'Segmentation fault'."""
    compile_failed = compile is not None and compile.verdict is not Verdict.OK
    if protocol is LabelProtocol.COMBINED_WITH_PREFIX:
        if compile_failed and compile is not None:
            return COMPILE_ERROR_PREFIX + compile.stderr
        return (run.stdout + run.stderr) if run else ""
    if protocol is LabelProtocol.COMPILE_THEN_RUN:
        diagnostics = (compile.stdout + compile.stderr) if compile else ""
        return diagnostics + (run.stdout if run else "")
    return run.stdout if run else ""
