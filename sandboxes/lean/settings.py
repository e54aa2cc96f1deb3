"""Typed settings of the Lean checker (env prefix SURGE_LEAN_), like Prefect's settings models.

The REPL command is configuration, not code: `lake env repl` inside the pinned Mathlib project in the
Lean image, a stand-in process in the tests (tests/lean/fake_repl.py), anything speaking the same JSON
protocol elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# Goedel-Prover's own verifier gives each proof 300 s (prover/lean/verifier.py); a warm REPL has already
# paid for `import Mathlib`, so the proof's clock covers the body only and the header has its own limit.
GOEDEL_TIMEOUT_S = 300.0
# Kimina Lean Server's default RLIMIT_AS for a Mathlib REPL is 8-12 GB; 8 GiB fits two workers in 24 GiB.
DEFAULT_MEMORY_MIB = 8192


def _default_repls() -> int:
    return max(1, (os.cpu_count() or 2) - 1)  # Kimina's default: CPUs - 1


class LeanSettings(BaseSettings):
    """Where the REPL is and how the warm pool treats it. Every field reads SURGE_LEAN_<NAME>."""

    model_config = SettingsConfigDict(env_prefix="SURGE_LEAN_", frozen=True, extra="forbid")

    repl_command: list[str] = Field(
        default=["lake", "env", "repl"],
        description="argv that starts one REPL speaking leanprover-community/repl's JSON protocol "
        '(env: a JSON list, e.g. SURGE_LEAN_REPL_COMMAND=\'["lake","env","repl"]\')',
    )
    project_dir: Path = Field(
        default=Path("/opt/mathlib4"),
        description="working directory of the REPL: the Lake project with Mathlib built (the Lean image's)",
    )
    max_repls: int = Field(default_factory=_default_repls, ge=1, description="REPL processes alive at once")
    # Kimina answers 429 after 60 s; here parallel batches share one pool and a wait is back-pressure.
    max_wait_s: float = Field(default=600.0, ge=0, description="wait for a free REPL before 'pool full'")
    timeout_s: float = Field(default=GOEDEL_TIMEOUT_S, gt=0, description="per proof body (wall clock)")
    header_timeout_s: float = Field(
        default=600.0, gt=0, description="elaborating a header (import Mathlib) in a new REPL"
    )
    memory_mib: int = Field(default=DEFAULT_MEMORY_MIB, gt=0, description="RLIMIT_AS of each REPL process")
    max_uses: int = Field(
        default=200,
        ge=1,
        description="proofs per REPL before it is replaced (repl issue #77: long-lived "
        "REPLs die after very many commands, and every env snapshot stays in memory)",
    )
    max_output_bytes: int = Field(default=32 << 20, gt=0, description="one response; beyond it: killed")
    audit_axioms: bool = Field(
        default=True, description="after each proof, `#print axioms` its theorems (sorryAx, ofReduceBool)"
    )
