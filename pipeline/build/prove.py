"""Inference and verification (fl): a prover proposes proofs of Lean statements; the Lean checker decides.

Per batch: each statement (Lean-Workbook's ``formal_statement`` with ``--items``; Goedel-Prover's
evaluation problems from the bundled sample otherwise) goes to the prover behind an OpenAI-compatible
endpoint with Goedel-Prover's own prompt (``prompts/prover.v1.md``: header, informal statement, formal
statement, "complete the following Lean 4 code"). The answer's ``lean4`` block becomes one whole Lean
file, which must still state the theorem verbatim (a prover that weakens the statement proves nothing);
the Lean checker (sandboxes/lean, a warm REPL pool) checks it, and SURGE's fl JSON (errors, pass,
complete) is the label, pass or fail: a failing proof is as much a benchmark item as a passing one.
``pipeline/subsets/fl.py`` then balances passing and failing proofs when the dataset takes its rows.

Without a Lean toolchain nothing is checked: `surge build fl` stops before asking the prover and names
the missing tool (``missing_checker``). LLM endpoint: SURGE_LLM_* settings, else the recorded responses
in ``recorded/fl.jsonl`` served by the local stand-in (pipeline/build/refactor.py ``llm_settings``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.failures import Built, OurFailure
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import run_ref, upstream_of
from pipeline.dataset_rows import DatasetRow
from pipeline.errors import LLMError, PromptTooLong
from pipeline.llm import LLMClient
from pipeline.llm.replay_server import RECORDED_MODEL
from pipeline.records import (
    Language,
    Limits,
    PhaseLimits,
    Program,
    RunRequest,
    RunResult,
    SourceItem,
    Verdict,
)
from pipeline.refactor.extract import extract_code
from pipeline.refactor.prompts import load_prompt
from sandboxes.profiles import get_profile

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec

# Goedel-Prover's header (its datasets/*.jsonl and SURGE's fl questions): a statement without one gets it.
DEFAULT_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\n"
    "open BigOperators Real Nat Topology Rat\n\n"
)
PROOF_LIMITS = Limits(run=PhaseLimits(cpu_s=300.0, wall_s=300.0))  # Goedel's verifier allows 300 s
CHECKER_LIMITS = {Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT, Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT}


def missing_checker() -> str | None:
    """Why no proof can be checked here (naming the tool), or None when a Lean REPL can start."""
    from sandboxes.lean.backend import missing_toolchain
    from sandboxes.lean.settings import LeanSettings

    return missing_toolchain(LeanSettings())


def statement_parts(item: SourceItem) -> tuple[str, str, str]:
    """(header, informal prefix, formal statement ending in `:= by`), from either source's fields."""
    fields = item.fields
    statement = str(fields.get("formal_statement") or item.text).rstrip()
    statement = statement.removesuffix("sorry").rstrip()  # Lean-Workbook writes `:= by sorry`
    header = str(fields.get("header") or DEFAULT_HEADER)
    informal = str(fields.get("informal_prefix") or "")
    return header, informal, statement + "\n"


def proof_file(item: SourceItem, answer_code: str) -> str | None:
    """The whole Lean file of a proposed proof, or None if it no longer states the theorem verbatim."""
    header, _, statement = statement_parts(item)
    if statement.strip() not in answer_code:
        return None
    return answer_code if answer_code.lstrip().startswith("import") else header + answer_code


def propose(client: LLMClient, item: SourceItem) -> tuple[str | None, str]:
    """(the Lean file, '') or (None, why there is none); LLMError (the endpoint's failure) is raised."""
    header, informal, statement = statement_parts(item)
    messages = load_prompt("prover").messages(header=header, informal=informal, statement=statement)
    try:
        reply = client.chat(messages)
    except PromptTooLong as error:  # the prover's context is too short for this statement: its failure
        return None, f"prover failed: prompt_too_long: {error}"
    found = extract_code(reply.content, Language.LEAN4, reply.finish_reason)
    if not found.ok or found.text is None:
        return None, f"prover failed: {found.kind}: {found.problem}"
    text = proof_file(item, found.text)
    return (text, "") if text else (None, "statement changed: the proof does not state the theorem verbatim")


def build_proofs(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """Propose, check and label one batch of statements."""
    from pipeline.build.refactor import llm_settings

    sources = [SourceItem.model_validate_json(item.source_item_json) for item in items]
    outcomes: list[BuildOutcome] = []
    ours: list[OurFailure] = []
    proposals: list[tuple[BuildItem, SourceItem, Program]] = []
    protocol = spec.protocol  # the checker's answer is the label
    with llm_settings(config) as settings:
        recorded = settings.model == RECORDED_MODEL
        client = LLMClient(settings)
        for item, source in zip(items, sources, strict=True):
            try:
                text, why = propose(client, source)
            except LLMError as error:  # the endpoint failed, not the prover's proof: nothing recorded
                kind = failures.of_llm_error(recorded)
                ours.append(OurFailure(kind=kind, index=item.index, detail=str(error)[:200]))
                continue
            if text is None:
                outcomes.append(_outcome(config, item, "dropped", why, (), ()))
                continue
            program = Program.single(
                Language.LEAN4, text, filename="Main.lean", protocol=protocol, origin=_origin(source)
            )
            proposals.append((item, source, program))
    profile = get_profile(config.profile)
    requests = [RunRequest(program=p, profile=profile, limits=PROOF_LIMITS) for _, _, p in proposals]
    runs = execute(store, requests, config.backend, config.unsafe, config.workers) if requests else []
    rows: list[DatasetRow] = []
    for (item, source, program), run in zip(proposals, runs, strict=True):
        if failure := failures.of_runs_failure([run], item.index):
            ours.append(failure)  # not the proof's: no outcome, so the next build checks it again
            continue
        if run.verdict in CHECKER_LIMITS:
            reason = f"checker limit: {run.verdict.value}"
            outcomes.append(_outcome(config, item, "dropped", reason, (), (run.run_id,)))
            continue
        row = _row(spec, config, source, program, run, recorded)
        outcomes.append(_outcome(config, item, "kept", "", (row.row_id,), (run.run_id,)))
        rows.append(row)
    return outcomes, rows, ours


def _origin(source: SourceItem) -> dict[str, str]:
    return {"source": source.source, "key": source.key, "item_id": source.item_id, "prompt": "prover.v1"}


def _row(
    spec: SubsetSpec,
    config: BuildConfig,
    source: SourceItem,
    program: Program,
    run: RunResult,
    recorded: bool,
) -> DatasetRow:
    return DatasetRow(
        subset=config.subset,
        category=spec.released_category,
        question=program.entry_file.content,
        gt=run.label,
        custom_features={},  # SURGE's fl records have none
        upstream=upstream_of(source),
        run=run_ref(run),
        label_origin="executed",
        construction=spec.construction.value,
        recorded_llm=recorded,
    )
