"""LeanBackend over the stand-in REPL: labels, reuse, every way a REPL can fail us, and the limits."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from pipeline.records import RunResult, Verdict
from sandboxes.lean.pool import PoolFull, ReplPool
from sandboxes.lean.source import split_source
from tests.conftest import SAMPLES
from tests.lean.conftest import check_all, fake_settings, lean_file

PROOF = "theorem t : 1 + 1 = 2 := by\n  norm_num"


def detail(result: RunResult) -> str:
    assert result.compile is not None
    return result.compile.detail


def wall(result: RunResult) -> float:
    assert result.compile is not None
    return result.compile.wall_s


def facts(result: RunResult) -> dict[str, Any]:
    return dict(json.loads(detail(result)))


def test_sample_errors_come_back_as_the_release_label(make_backend: Any) -> None:
    """Each bundled fl proof, with the stand-in scripted to report the release's errors at the body's
    own line numbers, yields exactly the release's label through split, pool, shift and conversion."""
    records = json.loads((SAMPLES / "surge-released" / "fl.json").read_text())
    texts = []
    for record in records:
        offset = split_source(record["question"]).body_line_offset
        script = [
            f"-- fake: error {e['pos']['line'] - offset} {e['pos']['column']} {e['data']}".replace(
                "\n", "\\n"
            )
            for e in json.loads(record["gt"])["errors"]
        ]
        texts.append("\n".join([record["question"], *script]))
    backend = make_backend()
    results = check_all(backend, *texts)
    errors_of = [json.loads(r.label)["errors"] for r in results]
    for record, result, errors in zip(records, results, errors_of, strict=True):
        gt = json.loads(record["gt"])
        assert result.verdict is (Verdict.OK if gt["pass"] else Verdict.COMPILE_ERROR)
        for ours, theirs in zip(errors, gt["errors"], strict=True):
            assert ours["pos"] == theirs["pos"] and ours["data"] == theirs["data"]
        assert result.provenance.backend == "lean-repl"


def test_warm_repl_is_reused_and_positions_shift(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    body = "theorem t : True := by\n  simp\n-- fake: error 3 2 simp made no progress"
    results = check_all(backend, *[lean_file(body)] * 3)
    pids = {facts(r)["repl_pid"] for r in results}
    assert len(pids) == 1 and backend.pool.stats["started"] == 1 and backend.pool.stats["reused"] == 2
    assert [facts(r)["reused_repl"] for r in results] == [False, True, True]
    error = json.loads(results[0].label)["errors"][0]
    assert error["pos"] == {
        "line": 9,
        "column": 2,
    }  # body line 3 (`  simp`; line 1 is the blank after the header) = file line 9


def test_timeout_kills_and_replaces_the_repl_and_names_the_limit(make_backend: Any) -> None:
    backend = make_backend(workers=1, timeout_s=0.5)
    slow = lean_file(PROOF + "\n-- fake: sleep 30")
    timed_out, after = check_all(backend, slow, lean_file(PROOF))
    assert timed_out.verdict is Verdict.WALL_TIME_LIMIT and timed_out.label == ""
    assert "SURGE_LEAN_TIMEOUT_S=0.5 s ended the proof" in detail(timed_out)
    assert 0.5 <= wall(timed_out) < 5
    assert after.verdict is Verdict.OK and backend.pool.stats["killed:ReplTimeout"] == 1
    assert backend.pool.stats["started"] == 2


def test_crash_is_our_failure_not_the_proofs(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    crashed, after = check_all(backend, lean_file(PROOF + "\n-- fake: crash 3"), lean_file(PROOF))
    assert crashed.verdict is Verdict.SANDBOX_ERROR and crashed.label == ""
    assert "exit code 3" in detail(crashed) and "scripted crash" in detail(crashed)
    assert after.verdict is Verdict.OK and backend.pool.stats["started"] == 2


def test_memory_limit_is_rlimit_as(make_backend: Any) -> None:
    backend = make_backend(workers=1, memory_mib=256)
    hog, after = check_all(backend, lean_file(PROOF + "\n-- fake: alloc 1024"), lean_file(PROOF))
    assert hog.verdict is Verdict.MEMORY_LIMIT, detail(hog)
    assert "SURGE_LEAN_MEMORY_MIB=256 (RLIMIT_AS)" in detail(hog)
    assert after.verdict is Verdict.OK


def test_within_the_memory_limit_the_same_allocation_passes(make_backend: Any) -> None:
    backend = make_backend(workers=1, memory_mib=1024, timeout_s=60)  # a shared machine may be slow to page
    (ok,) = check_all(backend, lean_file(PROOF + "\n-- fake: alloc 300"))
    assert ok.verdict is Verdict.OK


def test_huge_output_is_read_whole_below_the_cap_and_killed_above(make_backend: Any) -> None:
    backend = make_backend(workers=1, max_output_bytes=3 << 20)
    big, too_big, after = check_all(
        backend,
        lean_file(PROOF + "\n-- fake: huge 2000000"),
        lean_file(PROOF + "\n-- fake: huge 5000000"),
        lean_file(PROOF),
    )
    assert big.verdict is Verdict.OK  # an info message of 2 MB: read, not in the label
    assert too_big.verdict is Verdict.OUTPUT_LIMIT and "SURGE_LEAN_MAX_OUTPUT_BYTES" in detail(too_big)
    assert after.verdict is Verdict.OK


def test_garbage_on_stdout_is_skipped_and_counted(make_backend: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("FAKE_REPL_BANNER", "Lean REPL starting up")
    backend = make_backend(workers=1)
    body = PROOF + "\n-- fake: garbage\n-- fake: error 2 2 linarith failed"
    (result,) = check_all(backend, lean_file(body))
    assert result.verdict is Verdict.COMPILE_ERROR
    assert json.loads(result.label)["errors"][0]["data"] == "linarith failed"
    assert facts(result)["garbage_lines"] >= 4


def test_a_refusal_is_a_sandbox_error(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    (refused,) = check_all(backend, lean_file(PROOF + "\n-- fake: refuse"))
    assert refused.verdict is Verdict.SANDBOX_ERROR and "scripted refusal" in detail(refused)


def test_a_header_the_repl_refuses_is_not_a_verdict_on_the_proof(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    (result,) = check_all(backend, lean_file(PROOF, header="import BogusLib"))
    assert result.verdict is Verdict.SANDBOX_ERROR and "unknown package 'BogusLib'" in detail(result)


def test_header_errors_are_in_every_proofs_label_at_their_own_lines(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    header = "import Mathlib\n-- a comment Lean allows here\nopen Bogus"
    first, second = check_all(backend, *[lean_file(PROOF, header=header)] * 2)
    for result in (first, second):
        assert result.verdict is Verdict.COMPILE_ERROR
        (error,) = json.loads(result.label)["errors"]
        assert (error["pos"], error["data"]) == ({"line": 3, "column": 5}, "unknown namespace 'Bogus'")
    assert facts(second)["reused_repl"]


def test_header_timeout_names_its_own_limit(make_backend: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("FAKE_REPL_HEADER_S", "5")
    backend = make_backend(workers=1, header_timeout_s=0.3)
    (result,) = check_all(backend, lean_file(PROOF))
    assert result.verdict is Verdict.WALL_TIME_LIMIT
    assert "SURGE_LEAN_HEADER_TIMEOUT_S=0.3 s ended the header" in detail(result)


def test_max_uses_retires_the_repl(make_backend: Any) -> None:
    backend = make_backend(workers=1, max_uses=2)
    results = check_all(backend, *[lean_file(PROOF)] * 5)
    assert len({facts(r)["repl_pid"] for r in results}) == 3
    assert backend.pool.stats["retired"] == 2


def test_another_header_evicts_the_least_recently_used_repl(make_backend: Any) -> None:
    backend = make_backend(workers=1, max_repls=1)
    results = check_all(
        backend, lean_file(PROOF), lean_file(PROOF, header="import Mathlib"), lean_file(PROOF)
    )
    assert all(r.verdict is Verdict.OK for r in results)
    assert backend.pool.stats["evicted"] == 2 and backend.pool.alive() == 1


def test_full_pool_waits_then_says_so(tmp_path: Path) -> None:
    pool = ReplPool(fake_settings(tmp_path, max_repls=1, max_wait_s=0.3))
    slow = threading.Thread(target=pool.check, args=(split_source(lean_file(PROOF + "\n-- fake: sleep 2")),))
    slow.start()
    try:
        while pool.alive() == 0:
            threading.Event().wait(0.01)
        with pytest.raises(PoolFull) as full:
            pool.check(split_source(lean_file(PROOF)))
        assert "all 1 Lean REPLs stayed busy for 0.3 s" in str(full.value)
        assert "SURGE_LEAN_MAX_REPLS" in full.value.hint
    finally:
        slow.join()
        pool.close()


def test_a_waiting_proof_gets_the_repl_when_it_frees(tmp_path: Path) -> None:
    pool = ReplPool(fake_settings(tmp_path, max_repls=1, max_wait_s=5))
    slow = threading.Thread(
        target=pool.check, args=(split_source(lean_file(PROOF + "\n-- fake: sleep 0.5")),)
    )
    slow.start()
    try:
        while pool.alive() == 0:
            threading.Event().wait(0.01)
        assert pool.check(split_source(lean_file(PROOF))).reused
    finally:
        slow.join()
        pool.close()


def test_axiom_audit_rides_along(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    sorry, native, cheat, clean = check_all(
        backend,
        lean_file("theorem s : 2 = 2 := by\n  sorry"),
        lean_file("theorem n : 2 = 2 := by\n  native_decide"),
        lean_file(
            "axiom cheat : False\ntheorem c : 1 = 2 := by\n  exact cheat.elim\n-- fake: axioms c cheat"
        ),
        lean_file(PROOF),
    )
    assert sorry.verdict is Verdict.OK and json.loads(sorry.label) == {
        "errors": [],
        "pass": True,
        "complete": False,
    }
    assert facts(sorry)["audit"]["uses_sorry_ax"] and facts(sorry)["audit"]["sorries"] == 1
    assert facts(native)["audit"]["uses_native_decide"] and json.loads(native.label)["complete"]
    assert facts(cheat)["audit"]["user_axioms"] == ["cheat"]
    assert facts(cheat)["audit"]["nonstandard_axioms"] == ["cheat"]
    audit = facts(clean)["audit"]
    assert audit["axioms_by_declaration"] == {"t": ["Classical.choice", "Quot.sound", "propext"]}
    assert not (audit["uses_sorry_ax"] or audit["uses_native_decide"] or audit["nonstandard_axioms"])


def test_without_lake_the_verdict_is_toolchain_missing(make_backend: Any) -> None:
    backend = make_backend(repl_command=["surge-no-such-lake", "env", "repl"])
    (result,) = check_all(backend, lean_file(PROOF))
    assert result.verdict is Verdict.TOOLCHAIN_MISSING and result.label == ""
    assert "`surge-no-such-lake` not found" in detail(result) and "dockerfiles/lean4" in detail(result)


def test_two_workers_check_concurrently(make_backend: Any) -> None:
    backend = make_backend(workers=2)
    results = check_all(backend, *[lean_file(PROOF + "\n-- fake: sleep 0.4")] * 4)
    assert all(r.verdict is Verdict.OK for r in results)
    assert len({facts(r)["repl_pid"] for r in results}) == 2
    assert sum(wall(r) for r in results) >= 1.6  # four 0.4 s answers


def test_a_repl_that_died_while_idle_is_not_handed_out(make_backend: Any) -> None:
    backend = make_backend(workers=1)
    (first,) = check_all(backend, lean_file(PROOF))
    os.kill(facts(first)["repl_pid"], signal.SIGKILL)
    (idle,) = backend.pool._idle  # wait for the death to be visible, as it is for a REPL long dead
    idle.process.process.wait(timeout=10)
    (second,) = check_all(backend, lean_file(PROOF))
    assert second.verdict is Verdict.OK and backend.pool.stats["died_idle"] == 1
