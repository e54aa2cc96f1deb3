"""The seed round: a label whose own repeats disagree, in a language whose runtime seed can be pinned
from outside (PYTHONHASHSEED), is rerun with the seed pinned, and its reason says what that showed.

The audit runs for real (the stage, its engine, bwrap) on hand-made ml records written to a temporary
release: a set of strings printed in iteration order (its order follows the hash seed), unseeded
`random` beside a set of ints (the seed does not pin it), JavaScript's `Math.random` (no seed to pin),
and two deterministic programs, one with a wrong label. The set's label is what the sandbox prints with
the seed pinned to 1, made before the audit, so the audit must find which pinned value reproduces it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.audit.rows import AuditClass, AuditRow, Conversion
from pipeline.audit.seeds import SEED_REPEATS, SEED_VALUES, PinnedRun, SeedTrial, pinned_profile, seed_pairs
from pipeline.records import Limits, PhaseLimits, Program, RunRequest, RunResult
from pipeline.stages.audit import AuditOptions, AuditSummary, audit
from pipeline.store import Store
from sandboxes.profiles import get_profile
from tests.conftest import require_tool

SET_ORDER = 'print(list({"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"}))'
UNSEEDED = "import random\nids = set(range(5))\nprint(round(random.random() + len(ids), 12))"
MATH_RANDOM = "console.log(Math.random());"
WRONG = "print(sum(range(10)))"
RIGHT = 'print("ok")'
FAST = {"cpu_s": 5.0, "wall_s": 10.0}


def _record(language: str, code: str, gt: str) -> dict[str, object]:
    return {
        "custom_categoey": 1,
        "custom_features": {"language": language, "lines": code.count("\n") + 1, "repo": "hand-made"},
        "question": code,
        "gt": gt,
    }


def _pinned_output(code: str, value: str) -> str:
    """What the sandbox prints for ``code`` with PYTHONHASHSEED pinned to ``value``: the label to find."""
    from sandboxes import open_backend

    profile = pinned_profile(get_profile("default"), "PYTHONHASHSEED", value)
    limits = Limits(run=PhaseLimits(**FAST))
    with open_backend("bwrap", workers=1) as backend:
        (result,) = backend.run_batch(
            [RunRequest(program=Program.single("python", code), profile=profile, limits=limits)]
        )
    return result.label.strip()


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditSummary, dict[str, AuditRow], Path]:
    require_tool("bwrap")
    root = tmp_path_factory.mktemp("seeds")
    release = root / "release" / "ml.json"
    release.parent.mkdir()
    records = [
        _record("Python", SET_ORDER, _pinned_output(SET_ORDER, "1")),
        _record("Python", UNSEEDED, "5.5"),
        _record("JavaScript", MATH_RANDOM, "0.5"),
        _record("Python", WRONG, "44"),
        _record("Python", RIGHT, "ok"),
    ]
    release.write_text(json.dumps(records), encoding="utf-8")
    summary = audit(AuditOptions(dataset=release, store=root / "store", workers=2, **FAST))
    rows = Store(root / "store").table("audit", AuditRow, "audit_id").records()
    return summary, {row.location.rsplit("/", 1)[-1]: row for row in rows}, root


def test_a_set_of_strings_is_confirmed_as_following_the_hash_seed(
    audited: tuple[AuditSummary, dict[str, AuditRow], Path],
) -> None:
    _, rows, _ = audited
    row = rows["ml.json[0]"]
    assert row.audit_class is AuditClass.NON_DETERMINISTIC and row.distinct_outputs == 2, row.reason
    assert "varies with PYTHONHASHSEED; stable with it pinned (PYTHONHASHSEED=0 gives `[" in row.reason
    assert "PYTHONHASHSEED=1 reproduces the released label" in row.reason, row.reason
    assert "PYTHONHASHSEED=0 reproduces" not in row.reason  # 0 and 1 give two orders (9! of them)
    assert "PYTHONHASHSEED=1: run " in row.evidence and "stable in 2 runs" in row.evidence


def test_unseeded_random_is_not_pinned_by_the_hash_seed(
    audited: tuple[AuditSummary, dict[str, AuditRow], Path],
) -> None:
    _, rows, _ = audited
    row = rows["ml.json[1]"]
    assert row.audit_class is AuditClass.NON_DETERMINISTIC, row.reason
    assert "PYTHONHASHSEED ruled out: pinned, the output still varies" in row.reason, row.reason
    assert "from the code: unseeded random: `random.random(`" in row.reason
    assert "iteration order of a set" not in row.reason  # the seed that governs it was pinned


def test_a_runtime_without_a_seed_to_pin_keeps_todays_reason(
    audited: tuple[AuditSummary, dict[str, AuditRow], Path],
) -> None:
    _, rows, _ = audited
    row = rows["ml.json[2]"]
    if row.audit_class is AuditClass.NOT_RUN:
        pytest.skip(f"toolchain missing here: {row.reason}")
    assert row.audit_class is AuditClass.NON_DETERMINISTIC, row.reason
    assert row.reason.endswith("from the code: unseeded Math.random / new Random(): `Math.random(`")


def test_deterministic_programs_never_trigger_the_round(
    audited: tuple[AuditSummary, dict[str, AuditRow], Path],
) -> None:
    summary, rows, root = audited
    assert (rows["ml.json[3]"].audit_class, rows["ml.json[4]"].audit_class) == (
        AuditClass.MISMATCH,
        AuditClass.EXACT,
    )
    # the two Python labels that varied, each value of the seed, its repeats
    assert summary.seed_pinned_labels == 2
    assert summary.executions_seed_pinning == 2 * len(SEED_VALUES) * SEED_REPEATS
    default = get_profile("default")
    pinned_ids = {pinned_profile(default, "PYTHONHASHSEED", v).profile_id for v in SEED_VALUES}
    stored = list(Store(root / "store").runs.records())
    pinned = [r for r in stored if r.profile_id in pinned_ids]
    programs = {r.program_id for r in pinned}
    # each repeat of a pinned reading is a run of its own (RunRequest.part)
    assert len(pinned) == summary.executions_seed_pinning and programs == {
        Program.single("python", c).program_id for c in (SET_ORDER, UNSEEDED)
    }


def test_a_second_audit_serves_the_pinned_runs_from_the_store(
    audited: tuple[AuditSummary, dict[str, AuditRow], Path],
) -> None:
    first, rows, root = audited
    again = audit(AuditOptions(dataset=root / "release" / "ml.json", store=root / "store", workers=2, **FAST))
    assert again.runs_executed == 0 and again.runs_reused == first.runs_planned
    assert again.seed_pinned_labels == 2


# ---------------------------------------------------------------------------------------------
# Without a sandbox: the plan and the words
# ---------------------------------------------------------------------------------------------


def _conversions(folder: Path, *programs: tuple[str, str]) -> list[Conversion]:
    from pipeline.audit.convert import convert_all, load_dataset

    release = folder / "ml.json"
    release.write_text(json.dumps([_record(language, code, "x") for language, code in programs]))
    conversions, _, _ = convert_all(load_dataset(release)[0])
    return conversions


def _row(conversion: Conversion, audit_class: AuditClass, profile: str = "default") -> AuditRow:
    return AuditRow(
        record_id=conversion.record.record_id,
        subset="ml",
        index=conversion.record.index,
        location=conversion.record.location,
        language=conversion.language,
        profile=profile,
        audit_class=audit_class,
        metric="exact_match",
        score=0.0,
    )


def test_a_pinned_request_has_a_run_id_and_an_answer_of_its_own() -> None:
    program, default = Program.single("python", SET_ORDER), get_profile("default")
    plain = RunRequest(program=program, profile=default)
    pinned = [RunRequest(program=program, profile=pinned_profile(default, "PYTHONHASHSEED", v)) for v in "01"]
    assert len({r.run_id for r in (plain, *pinned)}) == 3
    assert len({r.answers for r in (plain, *pinned)}) == 3
    assert pinned[0].profile.name == "default" and default.env == {}  # the profile itself is untouched


def test_only_non_deterministic_labels_of_a_pinnable_language_are_planned(tmp_path: Path) -> None:
    python, node = _conversions(tmp_path, ("Python", SET_ORDER), ("JavaScript", MATH_RANDOM))
    profiles = [get_profile("default")]
    varied = [_row(python, AuditClass.NON_DETERMINISTIC), _row(node, AuditClass.NON_DETERMINISTIC)]
    pairs = seed_pairs([python, node], varied, profiles)
    assert [(c.language, p.env) for c, p in pairs] == [
        ("python", {"PYTHONHASHSEED": "0"}),
        ("python", {"PYTHONHASHSEED": "1"}),
    ]
    assert seed_pairs([python], [_row(python, AuditClass.MISMATCH)], profiles) == []


def _trial(*runs: tuple[str, int, str, bool]) -> SeedTrial:
    return SeedTrial(
        variable="PYTHONHASHSEED",
        runs=tuple(
            PinnedRun(value=v, run_id=f"r{v}", repeats=2, distinct_outputs=n, label=label, reproduces=same)
            for v, n, label, same in runs
        ),
    )


def test_the_reason_says_which_value_gives_what_or_what_is_left() -> None:
    confirmed = _trial(("0", 1, "3.3000000000000003\n", False), ("1", 1, "3.3\n", True))
    assert confirmed.reason([]) == (
        "varies with PYTHONHASHSEED; stable with it pinned (PYTHONHASHSEED=0 gives `3.3000000000000003`, "
        "PYTHONHASHSEED=1 gives `3.3`); PYTHONHASHSEED=1 reproduces the released label"
    )
    same = _trial(("0", 1, "3.3", False), ("1", 1, "3.3", False))
    assert "PYTHONHASHSEED=0 and 1 give the same output, `3.3`" in same.reason([])
    assert same.reason([]).endswith("no pinned value reproduces the released label")
    varies = _trial(("0", 2, "0.1", False), ("1", 1, "0.2", False))
    assert varies.reason(["a clock (time.time): `time.time()`"]) == (
        "PYTHONHASHSEED ruled out: pinned, the output still varies (PYTHONHASHSEED=0: 2 distinct outputs in "
        "2 runs; PYTHONHASHSEED=1: stable in 2 runs); from the code: a clock (time.time): "
        "`time.time()`"
    )
    assert "nothing else in the code names a cause" in varies.reason([])


def test_a_result_without_its_pinned_runs_keeps_todays_reason(tmp_path: Path) -> None:
    from pipeline.audit.verdicts import audit_row
    from tests.audit.fakes import result_for

    (conversion,), default = _conversions(tmp_path, ("Python", SET_ORDER)), get_profile("default")
    request = RunRequest(program=conversion.program, profile=default, repeats=2)
    varied: RunResult = result_for(request, "['b', 'a']\n", distinct_outputs=2)
    row = audit_row(conversion, default, varied)
    assert row.reason.startswith("2 distinct outputs in 2 runs; from the code: the iteration order of a set")
