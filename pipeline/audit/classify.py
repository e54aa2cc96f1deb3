"""One class per label, decided from the facts of our run and the text of both labels.

Order matters and reads top to bottom: a label we could not run, or that timed out, says nothing
about the label; our own disagreeing repeats make any comparison moot; then the comparisons go from
strict (exact) to lenient (diagnostics ignored); a disagreement left over is explained by a named cause
where the evidence shows one (pipeline/audit/causes.py). What is left is a real disagreement: a suspect
label.
"""

from __future__ import annotations

import difflib
import json
import re

from pydantic import BaseModel

from pipeline.audit.causes import build_failure, missing_dependency, timeout_reason
from pipeline.audit.fingerprints import differing_fingerprints, mask_fingerprints
from pipeline.audit.rows import REPRODUCED, AuditClass
from pipeline.audit.seeds import SeedTrial
from pipeline.records import RunResult, Verdict

EVIDENCE_LINES = 14
EVIDENCE_CHARS = 1200
TIME_LIMIT_VERDICTS = {Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT}
RESOURCE_VERDICTS = {Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT}


class Classification(BaseModel):
    audit_class: AuditClass
    reason: str = ""
    evidence: str = ""


# ---------------------------------------------------------------------------------------------
# Normalisations, each a function str -> str
# ---------------------------------------------------------------------------------------------

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "`": "'"})


def normalise(text: str) -> str:
    """Whitespace (incl. numpy's line wrapping) collapsed, and gcc's UTF-8 quotes made ASCII."""
    return " ".join(text.translate(_QUOTES).split())


# Lines that carry a toolchain's presentation rather than the program's behaviour.
_DIAGNOSTIC_LINE = re.compile(
    r"""^\s*(
        [\^~\s]*\^[\^~\s]*$                      # caret / tilde markers (gcc, clang, python 3.11+)
      | \d*\s*\|.*$                                          # gcc >= 9 / clang 19 source gutters
      | Traceback\ \(most\ recent\ call\ last\):$
      | File\ ".*",\ line\ \d+.*$                            # traceback frames
      | \S*:\ In\ (member\ )?function\ .*$                   # gcc context lines
      | In\ file\ included\ from\ .*$
      | \d+\ (errors?|warnings?)(\ generated)?\.?$
      | (\d+\ warnings?\ and\ )?\d+\ errors?\ generated\.$
      | compilation\ terminated\.$
      | Note:\ .*$                                           # javac notes
    )""",
    re.VERBOSE,
)
# file:line:col: in gcc/clang diagnostics; the numbers drift between versions and headers.
_POSITION = re.compile(r"(?P<file>[\w./+-]+\.(?:c|cc|cpp|h|hpp|java|py|rs|cs)):\d+(?::\d+)?")
_PY_LINE = re.compile(r"line \d+")
_ERROR_LINE = re.compile(r"\b(error|warning|note)\b|\w*(Error|Exception)\b|^Traceback")


_PY_FRAME = re.compile(r'^\s*File ".*", line \d+')
_CARET_LINE = re.compile(r"^[\s|]*[\^~][\^~\s]*$")


def _presentation_free(text: str) -> list[str]:
    """Lines minus diagnostic presentation; a source echo is recognised by the caret line under it."""
    lines = text.translate(_QUOTES).splitlines()
    kept = []
    for i, line in enumerate(lines):
        echoed = (i + 1 < len(lines) and _CARET_LINE.match(lines[i + 1]) is not None) or (
            i > 0 and _PY_FRAME.match(lines[i - 1]) is not None
        )
        if not echoed and not _DIAGNOSTIC_LINE.match(line):
            kept.append(line)
    return kept


def strip_diagnostics(text: str) -> str:
    """The label with diagnostic presentation removed and positions blanked (to compare the rest)."""
    kept = _presentation_free(text)
    blanked = _POSITION.sub(r"\g<file>:#", "\n".join(kept))
    return normalise(_PY_LINE.sub("line #", blanked))


def _only_error_lines(text: str) -> str:
    """The diagnostic lines only, positions blanked: what kind of failure it is, not its wording."""
    return normalise("\n".join(line for line in text.splitlines() if _ERROR_LINE.search(line)))


def has_diagnostics(text: str) -> bool:
    return any(_ERROR_LINE.search(line) for line in text.splitlines())


def _drop_message_lines(text: str) -> str:
    return normalise("\n".join(line for line in text.splitlines() if not _ERROR_LINE.search(line)))


def is_toolchain_drift(ours: str, gt: str) -> bool:
    """Both failed with diagnostics, and what differs lies in the diagnostics alone: their markers,
    positions or the wording of the error lines (python 3.9 'invalid syntax' vs 3.11's wording)."""
    if not (has_diagnostics(ours) and has_diagnostics(gt)):
        return False
    ours_rest, gt_rest = strip_diagnostics(ours), strip_diagnostics(gt)
    if ours_rest == gt_rest:
        return True
    # The program's own output (lines that are not diagnostics) must still agree.
    return _drop_message_lines(_strip_lines(ours)) == _drop_message_lines(_strip_lines(gt))


def _strip_lines(text: str) -> str:
    return "\n".join(_presentation_free(text))


# Locale: non-ASCII letters (e.g. `二月 5, 2024 is a 星期一`) against ASCII, or decimal commas.
_NON_ASCII_WORD = re.compile(r"[^\x00-\x7f‘’“”]")
_DECIMAL_COMMA = re.compile(r"(\d),(\d)")


def is_locale_drift(ours: str, gt: str) -> bool:
    if bool(_NON_ASCII_WORD.search(ours.translate(_QUOTES))) != bool(
        _NON_ASCII_WORD.search(gt.translate(_QUOTES))
    ):
        # Same shape once every non-ASCII run is one placeholder word: dates and names, translated.
        return _shape(ours) == _shape(gt)
    return _DECIMAL_COMMA.sub(r"\1.\2", ours) == _DECIMAL_COMMA.sub(r"\1.\2", gt) and ours != gt


def _shape(text: str) -> str:
    """Digits and punctuation kept; every word (ASCII or not) one placeholder."""
    return re.sub(r"[^\W\d_]+", "w", normalise(text))


# ---------------------------------------------------------------------------------------------
# Evidence
# ---------------------------------------------------------------------------------------------


def short_diff(gt: str, ours: str) -> str:
    lines = list(
        difflib.unified_diff(gt.splitlines(), ours.splitlines(), "label (gt)", "ours", n=1, lineterm="")
    )
    text = "\n".join(lines[:EVIDENCE_LINES])
    if len(lines) > EVIDENCE_LINES:
        text += f"\n... {len(lines) - EVIDENCE_LINES} more diff lines"
    return text[:EVIDENCE_CHARS]


# ---------------------------------------------------------------------------------------------
# The decision
# ---------------------------------------------------------------------------------------------


def not_run_reason(result: RunResult) -> str:
    phase = result.compile if result.compile is not None and result.run is None else result.run
    detail = (phase.detail if phase else "") or (result.compile.detail if result.compile else "")
    tools = ", ".join(sorted(result.provenance.toolchain_versions)) if not detail else ""
    return f"toolchain missing for {result.language.value}: {detail or tools or 'not installed'}"


class Evidence(BaseModel):
    """What classify needs besides the run and the label: facts about the record and its neighbours."""

    repository: bool = False  # a run instruction builds it: a missing file is the release's gap (rl)
    missing: tuple[str, ...] = ()  # pieces the run needs that the release lacks (rl)
    suspicions: tuple[str, ...] = ()  # code that can make output vary (causes.code_nondeterminism)
    # once repeats disagree: every part of the code the variation can come from (causes.run_to_run_causes)
    varies_by: tuple[str, ...] = ()
    # once repeats disagree, and the runtime's seed could be pinned: the pinned runs (pipeline/audit/seeds.py)
    seed: SeedTrial | None = None
    conflict: str = ""  # the same program carries other labels (causes.conflicting_labels)
    recorded_time_s: float | None = None
    cpu_limit_s: float | None = None
    # The subset's own metric is an equality and finds our label equal to gt: what it says, as a note
    # (pipeline.scoring.by_subset.equal_under_metric); "" where it does not, or is a similarity.
    equal_under_metric: str = ""


def classify(result: RunResult, gt: str, evidence: Evidence | None = None) -> Classification:
    facts = evidence or Evidence()
    ours = result.label
    if result.verdict is Verdict.TOOLCHAIN_MISSING:
        return Classification(audit_class=AuditClass.NOT_RUN, reason=not_run_reason(result))
    # A limit hit on some repeats only is the program's non-determinism, not a timeout
    if result.verdict in TIME_LIMIT_VERDICTS and "verdict" not in result.varied:
        reason = timeout_reason(result, facts.recorded_time_s, facts.cpu_limit_s)
        return Classification(audit_class=AuditClass.TIMEOUT, reason=reason, evidence=short_diff(gt, ours))
    if result.distinct_outputs > 1:
        pinned = f"\n{facts.seed.evidence()}" if facts.seed else ""
        return Classification(
            audit_class=AuditClass.NON_DETERMINISTIC,
            reason=non_determinism_reason(result, facts.varies_by, facts.seed),
            evidence=short_diff(gt, ours) + pinned,
        )
    compared = compare_labels(ours, gt)
    if compared.audit_class not in REPRODUCED and facts.equal_under_metric:
        return equal_by_metric(facts.equal_under_metric, compared.evidence or short_diff(gt, ours))
    if compared.audit_class is not AuditClass.MISMATCH:
        return compared
    cause, reason = explain(result, gt, facts)
    return Classification(audit_class=cause, reason=reason, evidence=compared.evidence)


def non_determinism_reason(
    result: RunResult, varies_by: tuple[str, ...], seed: SeedTrial | None = None
) -> str:
    """How often our own repeats disagreed, what varied, and where it comes from: what pinning the
    runtime's seed showed (``seed``, with ``varies_by`` then the causes the seed does not govern), else
    where in the code it can come from. A count alone names no cause."""
    varied = f" ({', '.join(result.varied)} varied)" if result.varied else ""
    seen = f"{result.distinct_outputs} distinct outputs in {result.repeats} runs{varied}"
    if seed is not None:
        return f"{seen}; {seed.reason(varies_by)}"
    if varies_by:
        return f"{seen}; from the code: " + "; ".join(varies_by)
    return (
        f"{seen}; nothing in the code names a cause (no randomness, clock, hashing order, threads or listing)"
    )


def equal_by_metric(note: str, diff: str) -> Classification:
    """Reproduced by the subset's own judgement of the texts, never silently: the reason and the
    evidence both say that the texts differ, and the evidence keeps the diff."""
    said = f"{note}, text differs"
    return Classification(audit_class=AuditClass.NORMALISED, reason=said, evidence=f"{said}\n{diff}")


def explain(result: RunResult, gt: str, facts: Evidence) -> tuple[AuditClass, str]:
    """The named cause of a disagreement that is not the label's fault; else a mismatch."""
    if result.verdict in RESOURCE_VERDICTS:
        return AuditClass.RESOURCE_LIMIT, f"{result.verdict.value}: our limit, not the program's behaviour"
    if not gt.strip():
        return AuditClass.EMPTY_LABEL, "the released label is empty; our run printed output"
    if facts.repository and (broken := build_failure(result, facts.missing)):
        return AuditClass.CANNOT_BUILD, broken
    if lacking := missing_dependency(result, gt):
        return AuditClass.MISSING_DEPENDENCY, lacking
    if facts.conflict:
        return AuditClass.CONFLICTING_DUPLICATE, facts.conflict
    if facts.suspicions:
        return AuditClass.NON_DETERMINISTIC_CODE, "suspected from the code: " + "; ".join(facts.suspicions)
    return AuditClass.MISMATCH, ""


def compare_labels(ours: str, gt: str) -> Classification:
    """Classify two label texts (no run facts): exact, normalised, drift, or mismatch."""
    if ours.strip() == gt.strip():
        return Classification(audit_class=AuditClass.EXACT)
    evidence = short_diff(gt, ours)
    if normalise(ours) == normalise(gt):
        return Classification(
            audit_class=AuditClass.NORMALISED, reason=_normalised_why(ours, gt), evidence=evidence
        )
    if same_json(ours, gt):
        return Classification(audit_class=AuditClass.NORMALISED, reason="JSON formatting", evidence=evidence)
    if is_locale_drift(ours, gt):
        return Classification(
            audit_class=AuditClass.LOCALE_DRIFT, reason="localised words or numbers", evidence=evidence
        )
    if drift := toolchain_drift_reason(ours, gt):
        return Classification(audit_class=AuditClass.TOOLCHAIN_DRIFT, reason=drift, evidence=evidence)
    return Classification(audit_class=AuditClass.MISMATCH, evidence=evidence)


def toolchain_drift_reason(ours: str, gt: str) -> str:
    """Why two labels differ only by the toolchain that printed them (fingerprints quoted), or "".

    Fingerprints count only where both labels carry a toolchain's diagnostics: a program that prints
    something shaped like `(.text+0x24)` must print it exactly."""
    spoke = has_diagnostics(ours) and has_diagnostics(gt)
    fingerprints = differing_fingerprints(ours, gt) if spoke else []
    masked_ours, masked_gt = (mask_fingerprints(ours), mask_fingerprints(gt)) if spoke else (ours, gt)
    quoted = "toolchain fingerprints differ: " + "; ".join(fingerprints)
    if fingerprints and normalise(masked_ours) == normalise(masked_gt):
        return quoted
    if is_toolchain_drift(masked_ours, masked_gt):
        return "differs only in diagnostics" + (f"; {quoted}" if fingerprints else "")
    return ""


def same_json(ours: str, gt: str) -> bool:
    """fl labels are the checker's JSON: the same object with other spacing or key order is the same label."""
    if not (ours.lstrip().startswith("{") and gt.lstrip().startswith("{")):
        return False
    try:
        return bool(json.loads(ours) == json.loads(gt))
    except ValueError:
        return False


def _normalised_why(ours: str, gt: str) -> str:
    if ours.translate(_QUOTES) != ours or gt.translate(_QUOTES) != gt:
        return "quote style"
    if ours.strip().count("\n") != gt.strip().count("\n"):
        return "line wrapping"
    return "whitespace"
