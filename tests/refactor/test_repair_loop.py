"""The repair loop end to end: a real chat-completions server, real extraction, host Python execution."""

from __future__ import annotations

from pathlib import Path

from pipeline.records import LabelProtocol, Language, SourceItem
from pipeline.refactor.loop import RepairLoop
from tests.conftest import require_tool
from tests.refactor.helpers import client_for, executor, mceval_item
from tests.refactor.openai_replay import ReplayServer, Reply, code

GOOD = "def add1(a, b):\n    return a + b\n\nprint(add1(2, 3))"


def test_compile_error_goes_back_with_the_evidence_and_the_second_answer_is_kept(tmp_path: Path) -> None:
    broken = "def add1(a, b)\n    return a + b\n\nprint(add1(2, 3))"
    with ReplayServer([Reply(code("python", broken)), Reply(code("python", GOOD))]) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor()).refactor(mceval_item())
        repair_request = server.requests[1]["messages"]
    assert outcome.status == "candidate" and outcome.run is not None and outcome.run.stdout == "5\n"
    assert [r.problem_kind for r in outcome.rounds] == ["run", "ok"]
    assert outcome.rounds[0].run is not None and outcome.rounds[0].run.verdict == "compile_error"
    assert repair_request[-2]["role"] == "assistant" and "SyntaxError" in repair_request[-1]["content"]
    assert outcome.prompt == "mceval.v1" and outcome.rounds[1].prompt == "repair.v1"


def test_bad_answers_are_each_sent_back_with_their_reason(tmp_path: Path) -> None:
    replies = [
        Reply("I cannot write that program."),
        Reply(code("java", "class A { public static void main(String[] a) { System.out.println(5); } }")),
        Reply("```python\nprint(add1(2,", finish_reason="length"),
        Reply("```python\n" + "x = 1\n" * 20_000 + "```"),
        Reply(code("python", "import time\nwhile True:\n    time.sleep(0.1)")),
        Reply(code("python", GOOD)),
    ]
    with ReplayServer(replies) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor(), max_rounds=6).refactor(mceval_item())
        sent_back = [m["messages"][-1]["content"] for m in server.requests[1:]]
    kinds = [r.problem_kind for r in outcome.rounds]
    assert kinds == ["no_code", "wrong_language", "truncated", "huge", "run", "ok"]
    assert "no fenced ```python" in sent_back[0] and "in java" in sent_back[1] and "cut off" in sent_back[2]
    assert "characters long" in sent_back[3] and "too long" in sent_back[4]
    assert outcome.status == "candidate"


def test_an_item_that_never_works_is_marked_failed_with_the_last_reason(tmp_path: Path) -> None:
    with ReplayServer([Reply("no code here")] * 2) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor(), max_rounds=2).refactor(mceval_item())
    assert outcome.status == "failed" and "after 2 rounds" in outcome.reason and "no_code" in outcome.reason
    assert len(outcome.rounds) == 2 and outcome.program is None


def test_an_endpoint_that_never_answers_fails_the_item_not_the_run(tmp_path: Path) -> None:
    with ReplayServer([Reply("late", delay_s=1.0)]) as server:
        client = client_for(server, tmp_path, timeout_s=0.2, max_retries=0)
        outcome = RepairLoop(client, executor()).refactor(mceval_item())
    assert outcome.status == "failed" and outcome.reason.startswith("llm_error")


def test_a_rerun_is_served_by_the_cache_with_zero_requests(tmp_path: Path) -> None:
    broken = "def add1(a, b)\n    return a + b"
    with ReplayServer([Reply(code("python", broken)), Reply(code("python", GOOD))]) as server:
        first = RepairLoop(client_for(server, tmp_path), executor()).refactor(mceval_item())
        client = client_for(server, tmp_path)
        second = RepairLoop(client, executor()).refactor(mceval_item())
        assert len(server.requests) == 2
    assert client.usage.requests == 0 and client.usage.cache_hits == 2
    assert second.program == first.program and all(r.cached for r in second.rounds)


def test_a_leaking_comment_is_cut_and_an_assert_is_sent_back(tmp_path: Path) -> None:
    leaky = "def add1(a, b):\n    return a + b\n\nprint(add1(2, 3))  # Output: 5"
    asserting = "def add1(a, b):\n    return a + b\n\nassert add1(2, 3) == 5\nprint(add1(2, 3))"
    with ReplayServer([Reply(code("python", asserting)), Reply(code("python", leaky))]) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor()).refactor(mceval_item())
        assert "assert" in server.requests[1]["messages"][-1]["content"]
    assert outcome.rounds[0].problem_kind == "leak"
    assert outcome.program is not None and "Output" not in outcome.program.entry_file.content
    assert outcome.run is not None and outcome.run.stdout == "5\n"


def test_debugbench_harness_runs_the_oracle_then_carries_the_buggy_code(tmp_path: Path) -> None:
    oracle = "class Solution:\n    def double(self, x):\n        return x * 2"
    buggy = "class Solution:\n    def double(self, x):\n        return x * 2 +"
    item = SourceItem(
        source="debugbench",
        key="double-it",
        language=Language.PYTHON,
        upstream_repo="github.com/thunlp/DebugBench",
        upstream_commit="2761bab9",
        upstream_path="benchmark/python3_double.json",
        licence="Apache-2.0",
        fields={
            "slug": "double-it",
            "oracle_code": oracle,
            "buggy_code": buggy,
            "examples": ["Input: 2\nOutput: 4"],
        },
    )
    edited_oracle = oracle.replace("x * 2", "x*2")
    harness = "\n\nprint(Solution().double(2))"
    with ReplayServer(
        [Reply(code("python", edited_oracle + harness)), Reply(code("python", oracle + harness))]
    ) as s:
        outcome = RepairLoop(client_for(s, tmp_path), executor()).refactor(item)
    assert outcome.rounds[0].problem_kind == "oracle_changed"
    assert outcome.status == "candidate" and outcome.extra["oracle_output"] == "4\n"
    assert outcome.program is not None and outcome.program.protocol is LabelProtocol.COMBINED_WITH_PREFIX
    assert "x * 2 +" in outcome.program.entry_file.content and outcome.program.entry_file.path == "test.py"
    assert outcome.run is not None and outcome.run.label.startswith("Compilation Error: ")


def test_ojcode_gets_an_stdin_input_and_a_difficulty(tmp_path: Path) -> None:
    item = SourceItem(
        source="ojcode",
        key="Luogu/P1001.cpp",
        language=Language.PYTHON,
        upstream_repo="github.com/ShanireZ/OJCode",
        upstream_commit="e3a3fb91",
        upstream_path="Luogu/P1001.cpp",
        licence="GPL-3.0",
        text="a, b = map(int, input().split())\nprint(a + b)\n",
    )
    replies = [Reply("```text\n1 2 3\n```"), Reply("```text\n20 22\n```"), Reply("3", match="Rate how hard")]
    with ReplayServer(replies) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor()).refactor(item)
    assert (
        outcome.status == "candidate" and outcome.program is not None and outcome.program.stdin == "20 22\n"
    )
    assert outcome.run is not None and outcome.run.stdout == "42\n" and outcome.extra["difficulty"] == 3
    assert outcome.rounds[0].run is not None and outcome.rounds[0].run.verdict == "runtime_error"


def test_real_sandbox_a_cpp_compile_error_is_repaired(tmp_path: Path) -> None:
    require_tool("g++")
    from pipeline.refactor.execute import Executor
    from sandboxes import open_backend

    item = SourceItem(
        source="mceval",
        key="CPP/1",
        language=Language.CPP,
        upstream_repo="github.com/MCEVAL/McEval",
        upstream_commit="09dec129",
        upstream_path="data/CPP.jsonl",
        licence="CC-BY-SA-4.0",
        fields={
            "prompt": "int twice(int x)",
            "canonical_solution": "{ return 2 * x; }",
            "test": "assert(twice(21) == 42);",
        },
    )
    broken = (
        '#include <cstdio>\nint twice(int x) { return 2 * x }\nint main() { printf("%d\\n", twice(21)); }'
    )
    fixed = broken.replace("2 * x }", "2 * x; }")
    with ReplayServer([Reply(code("cpp", broken)), Reply(code("cpp", fixed))]) as server:
        with open_backend("bwrap", unsafe=True) as sandbox:
            outcome = RepairLoop(client_for(server, tmp_path), Executor(sandbox)).refactor(item)
        evidence = server.requests[1]["messages"][-1]["content"]
    assert outcome.rounds[0].run is not None and outcome.rounds[0].run.verdict == "compile_error"
    assert "Compiler output" in evidence and "expected" in evidence  # g++: "expected ';' before '}'"
    assert outcome.status == "candidate" and outcome.run is not None and outcome.run.stdout == "42\n"
    assert outcome.program is not None and outcome.program.entry_file.path == "main.cpp"
