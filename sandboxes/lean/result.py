"""From REPL responses to SURGE's fl label and to the axiom audit.

SURGE's fl `gt` is Goedel-Prover's verifier output cut to three keys, serialised by Python's json.dumps
with its defaults (ASCII escapes, ", " and ": "): `{"errors": [...], "pass": b, "complete": b}`. Each
error keeps the REPL message's four fields in the order severity, pos, endPos, data (the REPL itself
prints object keys sorted); only severity "error" is kept; lines count over the whole file (1-based),
columns as Lean reports them (0-based). Checked against every bundled sample in tests/lean.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# The axioms every classical Mathlib proof may use (Lean's own `#print axioms` trio).
STANDARD_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
SORRY_AXIOM = "sorryAx"
NATIVE_DECIDE_AXIOM = "Lean.ofReduceBool"  # what `native_decide` (and `decide := true` kernels) rely on
_DEPENDS = re.compile(r"'(?P<name>[^']+)' depends on axioms: \[(?P<axioms>[^\]]*)\]", re.S)
_NO_AXIOMS = re.compile(r"'(?P<name>[^']+)' does not depend on any axioms")


class Pos(BaseModel):
    model_config = ConfigDict(frozen=True)
    line: int
    column: int


class Message(BaseModel):
    """One REPL message, its lines already counted over the whole file."""

    model_config = ConfigDict(frozen=True)
    severity: str
    pos: Pos
    endPos: Pos | None = None  # noqa: N815 (the REPL's and SURGE's field name)
    data: str

    def as_surge(self) -> dict[str, Any]:
        end = None if self.endPos is None else {"line": self.endPos.line, "column": self.endPos.column}
        return {
            "severity": self.severity,
            "pos": {"line": self.pos.line, "column": self.pos.column},
            "endPos": end,
            "data": self.data,
        }


def shifted_messages(raw: list[dict[str, Any]], line_offset: int) -> list[Message]:
    """REPL messages with their lines moved from the command's numbering to the file's."""
    out = []
    for item in raw:
        pos = item["pos"]
        end = item.get("endPos")
        out.append(
            Message(
                severity=str(item["severity"]),
                pos=Pos(line=int(pos["line"]) + line_offset, column=int(pos["column"])),
                endPos=None
                if end is None
                else Pos(line=int(end["line"]) + line_offset, column=int(end["column"])),
                data=str(item["data"]),
            )
        )
    return out


def passes(messages: list[Message]) -> bool:
    return not any(m.severity == "error" for m in messages)


def complete(messages: list[Message], sorries: int) -> bool:
    """Goedel-Prover's definition: passes, no sorry, and no warning saying a declaration uses 'sorry'
    or that something failed (prover/lean/verifier.py)."""
    warnings = [m.data for m in messages if m.severity == "warning"]
    return (
        passes(messages)
        and sorries == 0
        and not any("declaration uses 'sorry'" in w or "failed" in w for w in warnings)
    )


def fl_label(messages: list[Message], sorries: int) -> str:
    """The label text exactly as SURGE's release keeps it."""
    errors = [m.as_surge() for m in messages if m.severity == "error"]
    return json.dumps({"errors": errors, "pass": passes(messages), "complete": complete(messages, sorries)})


def parse_fl_label(text: str) -> tuple[list[Message], bool, bool]:
    """Read a label back (tests: parse, re-serialise, compare); raises ValueError when malformed."""
    data = json.loads(text)
    if set(data) != {"errors", "pass", "complete"}:
        raise ValueError(f"an fl label has keys errors, pass, complete; got {sorted(data)}")
    return shifted_messages(data["errors"], 0), bool(data["pass"]), bool(data["complete"])


# ---------------------------------------------------------------------------------------------
# The axiom audit: facts next to the label, never part of it
# ---------------------------------------------------------------------------------------------


class AxiomAudit(BaseModel):
    """What the proof's declarations rest on, from `#print axioms` in the proof's own environment."""

    model_config = ConfigDict(frozen=True)
    axioms_by_declaration: dict[str, list[str]] = Field(default_factory=dict)
    uses_sorry_ax: bool = False
    uses_native_decide: bool = False  # Lean.ofReduceBool: trusts the compiler, not only the kernel
    nonstandard_axioms: list[str] = Field(
        default_factory=list, description="beyond propext/choice/Quot.sound"
    )
    user_axioms: list[str] = Field(default_factory=list, description="`axiom` declarations in the body")
    unaudited: list[str] = Field(
        default_factory=list, description="declarations #print axioms did not answer"
    )
    warnings: int = 0
    sorries: int = 0


def audit_command(declarations: list[str]) -> str:
    return "\n".join(f"#print axioms {name}" for name in declarations)


def axiom_audit(
    declarations: list[str],
    audit_messages: list[dict[str, Any]],
    user_axioms: list[str],
    messages: list[Message],
    sorries: int,
) -> AxiomAudit:
    found: dict[str, list[str]] = {}
    for item in audit_messages:
        text = str(item.get("data", ""))
        if match := _DEPENDS.search(text):
            found[match["name"]] = [a.strip() for a in match["axioms"].split(",") if a.strip()]
        elif match := _NO_AXIOMS.search(text):
            found[match["name"]] = []
    used = {axiom for axioms in found.values() for axiom in axioms}
    return AxiomAudit(
        axioms_by_declaration=found,
        uses_sorry_ax=SORRY_AXIOM in used,
        uses_native_decide=NATIVE_DECIDE_AXIOM in used,
        nonstandard_axioms=sorted(used - STANDARD_AXIOMS - {SORRY_AXIOM, NATIVE_DECIDE_AXIOM}),
        user_axioms=user_axioms,
        unaudited=[name for name in declarations if name not in found],
        warnings=sum(1 for m in messages if m.severity == "warning"),
        sorries=sorries,
    )
