"""A model's predictions for a SURGE dataset: each record's prompt asked of an OpenAI-compatible endpoint.

The message is the record's own prompt as SURGE ships it: ``sys_0shot``, ``sys_3shot`` or ``sys_cot`` as the
system message (the release names them ``sys_``), the record's ``question`` as the user message. Nothing is
added, so a prediction is comparable with the paper's.

The output is append-only JSONL, one line per item, written and fsync'd as each answer arrives: a kill loses
at most the answers in flight, and a rerun skips the item ids already in the file (a half-written last line,
the trace of a kill, is cut off first). The item id is ``ReleasedRecord.item_id``, a hash of the record's
subset and question, what the model is asked: it survives a reordered or regrown dataset, where a position
would not, and a corrected label, which a hash of the label would not.
``surge score`` reads these lines as they are (the raw answer is ``prediction``; score extracts the answer
itself, as SURGE's eval/main.py does).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from pipeline.errors import ConfigurationError, InputError, LLMError, PromptTooLong
from pipeline.llm.budget import Budget
from pipeline.scoring.surge_eval import extract_output
from pipeline.subsets import subset_spec
from sources.surge_release import ReleasedRecord

if TYPE_CHECKING:  # the client (httpx) loads when a prediction is asked, not when the CLI builds its parser
    from pipeline.llm import LLMClient

PromptVariant = Literal["zero-shot", "few-shot", "cot"]
PROMPT_FIELDS: dict[str, str] = {"zero-shot": "sys_0shot", "few-shot": "sys_3shot", "cot": "sys_cot"}
# The finish_reason of an item whose prompt the endpoint refused as longer than the model's context (OpenAI's
# error code for it): the model's failure on that item, scored as a wrong answer and not asked again.
PROMPT_TOO_LONG = "context_length_exceeded"


class PredictionLine(BaseModel):
    """One line of the predictions file; ``surge score`` reads subset, index, item_id and prediction."""

    item_id: str = Field(description="a hash of what the model is asked: survives reordering and corrections")
    subset: str
    index: int = Field(description="position in dataset/<subset>.json when asked")
    model: str
    prompt: PromptVariant
    prompt_sha256: str = Field(description="hash of the exact messages sent")
    prediction: str = Field(description="the model's raw answer")
    extracted: str | None = Field(description="the answer SURGE's extraction finds in it (fl: the raw reply)")
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_s: float


class RunTotals(BaseModel):
    asked: int = 0
    written: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    truncated: int = Field(default=0, description="answers cut by max_tokens (finish_reason length)")
    prompt_too_long: int = Field(default=0, description="prompts refused as longer than the model's context")
    stopped_by_budget: bool = False
    failure: str | None = Field(default=None, description="the endpoint's first failure: asking stopped")
    failure_fix: str = ""
    output_broken: bool = Field(default=False, description="a write failed: no line is appended after it")


def messages_of(record: ReleasedRecord, variant: PromptVariant) -> list[dict[str, str]]:
    field = PROMPT_FIELDS[variant]
    system = record.prompts.get(field)
    if system is None:
        raise InputError(
            f"{record.location} has no {field} prompt",
            hint="predict over a dataset written by `surge export` or the SURGE release",
        )
    return [{"role": "system", "content": system}, {"role": "user", "content": record.question}]


def prompt_hash(messages: Sequence[dict[str, str]]) -> str:
    blob = json.dumps(list(messages), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def extracted_answer(subset: str, reply: str) -> str | None:
    """What SURGE's eval reads of a reply: the extracted output, or the raw reply where the subset's spec
    says the eval scores it whole (fl's JSON)."""
    return extract_output(reply) if subset_spec(subset).extracts_answer else reply


def finished_ids(path: Path, model: str, variant: PromptVariant) -> set[str]:
    """Item ids already answered in ``path``; a torn last line is cut off so appending stays clean.
    A file of another model or prompt is refused: mixing them would score neither."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):  # a kill mid-write: the unfinished line is dropped, its item asked again
        with path.open("r+b") as handle:
            handle.truncate(end)
    ids: set[str] = set()
    for number, line in enumerate(data[:end].decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = PredictionLine.model_validate_json(line)
        except ValueError:
            raise InputError(
                f"{path} line {number} is not a prediction line of `surge predict`",
                hint="pick a new --output, or move the file away",
            ) from None
        if (entry.model, entry.prompt) != (model, variant):
            raise ConfigurationError(
                f"{path} holds {entry.model} {entry.prompt} predictions, not {model} {variant}",
                hint="give each model and prompt its own --output file",
            )
        ids.add(entry.item_id)
    return ids


def append_line(handle: Any, line: PredictionLine) -> None:
    handle.write(line.model_dump_json() + "\n")
    handle.flush()
    os.fsync(handle.fileno())


def ask(client: LLMClient, record: ReleasedRecord, variant: PromptVariant) -> PredictionLine:
    messages = messages_of(record, variant)
    started = time.monotonic()
    try:
        reply = client.chat(messages)
    except PromptTooLong:  # the model's limit, not the endpoint's failure: an answer of nothing
        content, finish_reason, prompt_tokens, completion_tokens = "", PROMPT_TOO_LONG, 0, 0
    else:
        content, finish_reason = reply.content, reply.finish_reason
        prompt_tokens, completion_tokens = reply.prompt_tokens, reply.completion_tokens
    latency_s = time.monotonic() - started
    return PredictionLine(
        item_id=record.item_id,
        subset=record.subset,
        index=record.index,
        model=client.settings.model,
        prompt=variant,
        prompt_sha256=prompt_hash(messages),
        prediction=content,
        extracted=extracted_answer(record.subset, content),
        finish_reason=finish_reason,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=round(client.settings.cost_usd(prompt_tokens, completion_tokens), 8),
        latency_s=round(latency_s, 3),
    )


def predict(
    client: LLMClient,
    records: Sequence[ReleasedRecord],
    variant: PromptVariant,
    output: Path,
    budget: Budget,
) -> RunTotals:
    """Ask each record not yet in ``output``, as many at once as the client lets in flight, appending each
    answer as it comes; stop asking at the budget or at the first failure of the endpoint (answers in flight
    are kept)."""
    concurrency = client.settings.concurrency
    totals = RunTotals()
    pending: Iterator[ReleasedRecord] = iter(records)
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("a", encoding="utf-8") as handle, ThreadPoolExecutor(max_workers=concurrency) as pool:
        in_flight: set[Future[PredictionLine]] = set()
        while True:
            while len(in_flight) < concurrency and not stopping(totals, budget):
                record = next(pending, None)
                if record is None:
                    break
                in_flight.add(pool.submit(ask, client, record, variant))
                totals.asked += 1
            if not in_flight:
                totals.stopped_by_budget = totals.failure is None and totals.asked < len(records)
                return totals
            done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                collect(future, handle, totals)


def stopping(totals: RunTotals, budget: Budget) -> bool:
    return totals.failure is not None or budget.spent(
        totals.cost_usd, totals.prompt_tokens + totals.completion_tokens
    )


def collect(future: Future[PredictionLine], handle: Any, totals: RunTotals) -> None:
    try:
        line = future.result()
    except LLMError as error:
        if totals.failure is None:
            totals.failure, totals.failure_fix = str(error), error.hint
        return
    if totals.output_broken:
        return  # a line after a torn one would be glued to it: the rerun asks these again
    try:
        append_line(handle, line)
    except OSError as error:  # a full disk: a failure of ours; the lines before it are whole
        totals.output_broken = True
        totals.failure = f"cannot write {handle.name}: {error.strerror or error}"
        totals.failure_fix = "free disk space or pick another --output; a rerun resumes"
        return
    totals.written += 1
    totals.truncated += line.finish_reason == "length"
    totals.prompt_too_long += line.finish_reason == PROMPT_TOO_LONG
    totals.prompt_tokens += line.prompt_tokens
    totals.completion_tokens += line.completion_tokens
    totals.cost_usd += line.cost_usd
