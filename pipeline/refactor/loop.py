"""The repair loop: ask, extract, guard against leaks, execute, and send evidence back, for up to N rounds.

Every round is kept in the outcome (and the queue's ``rounds`` table), successful or not, so a reviewer or a
later analysis can see how each program came to be.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline import leakage
from pipeline.errors import LLMError, PromptTooLong
from pipeline.llm import ChatReply, LLMClient
from pipeline.records import Program, RunResult, SourceItem, Verdict
from pipeline.refactor.execute import Executor
from pipeline.refactor.extract import Extraction, extract_code, extract_digit, extract_input
from pipeline.refactor.methods import (
    Method,
    bg_program,
    buggy_code,
    code_program,
    method_for,
    oracle_code,
    swap_in,
)
from pipeline.refactor.outcome import EVIDENCE_CHARS, ExecutionFacts, Outcome, Round
from pipeline.refactor.prompts import Prompt, load_prompt
from sandboxes.languages import spec_for

DEFAULT_ROUNDS = 3
ECHO_CHARS = 4000  # a huge answer is echoed back shortened, so the conversation does not balloon
UNUSABLE_VERDICTS = frozenset({Verdict.SANDBOX_ERROR, Verdict.TOOLCHAIN_MISSING})


class RoundProblem(Exception):
    """This round's answer is unusable; the message goes back to the model."""

    def __init__(self, kind: str, message: str, evidence: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.evidence = evidence


@dataclass
class Accepted:
    program: Program
    run: RunResult
    leaks: list[str]
    extra: dict


class RepairLoop:
    def __init__(
        self,
        client: LLMClient,
        executor: Executor,
        max_rounds: int = DEFAULT_ROUNDS,
        method_override: str | None = None,
    ) -> None:
        self.client = client
        self.executor = executor
        self.max_rounds = max_rounds
        self.method_override = method_override
        self.repair_prompt = load_prompt("repair")

    def refactor(self, item: SourceItem) -> Outcome:
        method = method_for(item, self.method_override)
        prompt = load_prompt(method.prompt)
        language = method.language(item)
        messages = prompt.messages(**method.values(item, language))
        outcome = Outcome(
            item_id=item.item_id,
            source=item.source,
            key=item.key,
            method=method.name,
            prompt=prompt.tag,
            status="failed",
        )
        for index in range(1, self.max_rounds + 1):
            round_prompt = prompt.tag if index == 1 else self.repair_prompt.tag
            try:
                reply = self.client.chat(messages)
            except LLMError as error:
                # A conversation grown past the model's context is the model's limit (the item fails as
                # its own); any other failure is the endpoint's ("llm_error": a rerun asks again).
                kind = "prompt_too_long" if isinstance(error, PromptTooLong) else "llm_error"
                outcome.rounds.append(
                    Round(
                        index=index,
                        prompt=round_prompt,
                        answer="",
                        finish_reason="",
                        cached=False,
                        problem_kind=kind,
                        problem=str(error),
                    )
                )
                outcome.reason = f"{kind}: {error}"
                return outcome
            record = Round(
                index=index,
                prompt=round_prompt,
                answer=reply.content,
                finish_reason=reply.finish_reason,
                cached=reply.cached,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
            )
            outcome.rounds.append(record)
            try:
                accepted = self._try(item, method, prompt, reply, record)
            except _SandboxTrouble as trouble:
                record.problem_kind, record.problem = trouble.kind, str(trouble)
                outcome.reason = f"sandbox: {trouble}"
                return outcome
            except RoundProblem as problem:
                record.problem_kind, record.problem = problem.kind, str(problem)
                outcome.reason = f"{problem.kind}: {problem}"
                messages = messages + [
                    {"role": "assistant", "content": _shorten(reply.content)},
                    self._repair_message(language, method, str(problem), problem.evidence),
                ]
                continue
            outcome.status, outcome.reason = "candidate", ""
            outcome.program, outcome.run = accepted.program, ExecutionFacts.of(accepted.run)
            outcome.leaks, outcome.extra = accepted.leaks, accepted.extra
            if method.rate_difficulty:
                outcome.extra["difficulty"] = self.rate_difficulty(accepted.program)
            return outcome
        outcome.reason = f"no usable program after {self.max_rounds} rounds; last problem: {outcome.reason}"
        return outcome

    # -- one round ----------------------------------------------------------------------------

    def _try(
        self, item: SourceItem, method: Method, prompt: Prompt, reply: ChatReply, record: Round
    ) -> Accepted:
        language = method.language(item)
        if method.answer == "input":
            found = extract_input(reply.content, reply.finish_reason)
        else:
            found = extract_code(reply.content, language, reply.finish_reason)
        _require(found)
        assert found.text is not None
        if method.answer == "input":
            return self._input_round(item, method, prompt, found.text, record)
        if method.name == "debugbench":
            return self._debugbench_round(item, method, prompt, found.text, record)
        return self._program_round(item, method, prompt, found.text, record)

    def _program_round(
        self, item: SourceItem, method: Method, prompt: Prompt, source: str, record: Round
    ) -> Accepted:
        language = method.language(item)
        source = self._guard(source, language, None, record)
        program = code_program(item, method, source, prompt.tag)
        result = self._run_checked(program, method, record)
        cleaned = self._guard(source, language, result.run.stdout if result.run else "", record)
        if cleaned != source:  # comments cut: run again so the stored run is of the stored program
            program = code_program(item, method, cleaned, prompt.tag)
            result = self._run_checked(program, method, record)
        return Accepted(program, result, leakage.find_leaks(cleaned, result.label), {})

    def _input_round(
        self, item: SourceItem, method: Method, prompt: Prompt, stdin: str, record: Round
    ) -> Accepted:
        program = code_program(item, method, item.text, prompt.tag, stdin=stdin)
        result = self._run_checked(program, method, record)
        warnings = leakage.find_leaks(item.text, result.label)
        return Accepted(program, result, warnings, {})

    def _debugbench_round(
        self, item: SourceItem, method: Method, prompt: Prompt, source: str, record: Round
    ) -> Accepted:
        language = method.language(item)
        oracle = oracle_code(item)
        if swap_in(source, oracle, oracle) is None:
            raise RoundProblem(
                "oracle_changed",
                "the oracle code is not contained verbatim as one contiguous block; "
                "copy it character for character and put the test harness around it",
            )
        harness_only = swap_in(source, oracle, "") or source
        if blocking := [x for x in leakage.guard(harness_only, language) if not x.cleanable]:
            raise RoundProblem("leak", "the harness reveals expected results", _describe(blocking))
        oracle_program = code_program(item, method, source, prompt.tag)
        oracle_run = self._run_checked(oracle_program, method, record)
        buggy_source = swap_in(source, oracle, buggy_code(item)) or source
        buggy = bg_program(item, method, buggy_source, prompt.tag)
        buggy_run = self.executor.run(buggy, method.setting)
        if buggy_run.verdict in UNUSABLE_VERDICTS:
            raise _SandboxTrouble(buggy_run)
        extra = {
            "oracle_program": oracle_program.model_dump(mode="json"),
            "oracle_output": oracle_run.label,
            "expected_gt0": item.fields.get("gt0", ""),
        }
        return Accepted(buggy, buggy_run, [], extra)

    # -- pieces -------------------------------------------------------------------------------

    def _guard(self, source: str, language, output: str | None, record: Round) -> str:
        found = leakage.guard(source, language, output)
        record.leaks = [leak.describe() for leak in found]
        if blocking := [leak for leak in found if not leak.cleanable]:
            raise RoundProblem(
                "leak",
                "the program reveals its own output (asserts, 'expected' values or "
                "strings holding the result are not allowed)",
                _describe(blocking),
            )
        return leakage.clean_comments(source, language, found) if found else source

    def _run_checked(self, program: Program, method: Method, record: Round) -> RunResult:
        result = self.executor.run(program, method.setting)
        record.program, record.run = program, ExecutionFacts.of(result)
        if result.verdict in UNUSABLE_VERDICTS:
            raise _SandboxTrouble(result)
        if result.verdict is not Verdict.OK:
            raise RoundProblem("run", _verdict_problem(result), _evidence(result))
        if not (result.run and result.run.stdout.strip()):
            raise RoundProblem("run", "the program ran but printed nothing; it must print the result")
        return result

    def _repair_message(self, language, method: Method, problem: str, evidence: str) -> dict[str, str]:
        fence = "text" if method.answer == "input" else spec_for(language).fence_name
        what = "the input" if method.answer == "input" else "the complete program"
        text = self.repair_prompt.messages(problem=problem, evidence=evidence, fence=fence, what=what)
        return text[-1]

    def rate_difficulty(self, program: Program) -> int | None:
        prompt = load_prompt("difficulty")
        messages = prompt.messages(
            fence=spec_for(program.language).fence_name, program=program.entry_file.content
        )
        try:
            return extract_digit(self.client.chat(messages).content)
        except LLMError:
            return None  # a missing rating is shown as such in review; it never fails the item


class _SandboxTrouble(RoundProblem):
    """Our sandbox failed, not the program: do not blame the model; the item fails and a rerun retries it."""

    def __init__(self, result: RunResult) -> None:
        super().__init__(
            "sandbox", f"sandbox could not run the program ({result.verdict.value}): {_evidence(result)}"
        )


def _require(found: Extraction) -> None:
    if not found.ok:
        raise RoundProblem(found.kind, found.problem)


def _verdict_problem(result: RunResult) -> str:
    return {
        Verdict.COMPILE_ERROR: "the program does not compile",
        Verdict.RUNTIME_ERROR: "the program exits with an error",
        Verdict.SIGNAL: "the program crashes",
        Verdict.CPU_TIME_LIMIT: "the program runs too long (CPU time limit); use a smaller input",
        Verdict.WALL_TIME_LIMIT: "the program runs too long (wall-time limit); it must not wait for input",
        Verdict.MEMORY_LIMIT: "the program uses too much memory",
        Verdict.OUTPUT_LIMIT: "the program prints far too much",
    }.get(result.verdict, f"the program failed ({result.verdict.value})")


def _evidence(result: RunResult) -> str:
    if result.verdict is Verdict.COMPILE_ERROR and result.compile:
        text = (result.compile.stderr or result.compile.stdout)[:EVIDENCE_CHARS]
        return f"Compiler output:\n```\n{text}\n```"
    phase = result.run or result.compile
    if phase is None:
        return ""
    facts = f"exit code {phase.exit_code}" + (f", signal {phase.signal}" if phase.signal else "")
    tail = phase.stderr[-EVIDENCE_CHARS:]
    return (
        f"Run: {facts}. Standard error:\n```\n{tail}\n```"
        if tail
        else f"Run: {facts}. {phase.detail}".strip()
    )


def _describe(found: list[leakage.Leak]) -> str:
    return "\n".join(f"- {leak.describe()}" for leak in found)


def _shorten(answer: str) -> str:
    return answer if len(answer) <= ECHO_CHARS else answer[:ECHO_CHARS] + "\n[... answer cut ...]"
