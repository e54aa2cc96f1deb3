"""The audit's rounds as a feed: a label moves to its next round as soon as its own runs land, and every
round's runs share one queue, the longest first. No round waits for the slowest label of the one before."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.audit.feed import LabelFeed
from pipeline.audit.rows import AuditClass, AuditRow
from pipeline.audit.stage import run_audit
from pipeline.audit.summary import AuditOptions, Executed
from pipeline.records import RunRequest, RunResult
from pipeline.store import Store
from tests.audit.fakes import result_for

PADDING = "# " + "x" * 4000 + "\n"  # a larger program is expected to run longer (plan.expected_seconds)


def ml_record(code: str, gt: str) -> dict[str, object]:
    features = {"language": "Python", "lines": code.count("\n"), "repo": "test"}
    return {"custom_categoey": 1, "custom_features": features, "question": code, "gt": gt}


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """One long label that is wrong (so it goes on to round 2), three short ones that reproduce."""
    records = [ml_record(PADDING + "print(0)\n", "not what it prints")]
    records += [ml_record(f"print({n})\n", str(n)) for n in (1, 2, 3)]
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "ml.json").write_text(json.dumps(records))
    return folder


def printed(request: RunRequest) -> str:
    return request.program.files[0].content.rsplit("print(", 1)[1].split(")")[0] + "\n"


def one_at_a_time(store: Store, taken: list[RunRequest]):
    """An engine of one slot: each batch runs and lands before the next is taken."""

    def execute(feed: LabelFeed) -> Executed:
        written = 0
        while (batch := feed.take()) is not None:
            taken.extend(batch)
            written += len(batch)
            store.runs.append([result_for(request, printed(request)) for request in batch])
            store.runs.flush()
            feed.landed([request.run_id for request in batch])
        return Executed(planned_runs=feed.planned, already_stored=feed.found_stored, written=written)

    return execute


def test_a_labels_next_round_runs_before_the_shorter_first_rounds_of_others(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    store, taken = Store(tmp_path / "store"), list[RunRequest]()
    options = AuditOptions(dataset=release, store=store.root, profile=["default"], batch_size=1)
    summary = run_audit(options, one_at_a_time(store, taken), rows_every_s=0)
    # the long label first; its repeats (round 2) as soon as its first run landed, ahead of the short
    # labels' first runs, which a round barrier would have run first: each repeat a request of its own
    # (RunRequest.part), the first run counted as the first repeat
    assert options.repeats == 2
    assert [(printed(r), r.part) for r in taken] == [("0\n", 0), ("0\n", 1)] + [
        (f"{n}\n", 0) for n in (1, 2, 3)
    ]
    assert (summary.labels, summary.reproduced, summary.runs_executed) == (4, 3, 5)
    rows = {
        row.location.rsplit("[", 1)[1]: row.audit_class
        for row in store.table("audit", AuditRow, "audit_id").records()
    }
    assert rows == {
        "0]": AuditClass.MISMATCH,
        "1]": AuditClass.EXACT,
        "2]": AuditClass.EXACT,
        "3]": AuditClass.EXACT,
    }


def test_a_wrong_labels_repeats_go_to_separate_batches_and_its_first_run_is_not_run_again(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each repeat of a later round is a request of its own: a long wrong label's repeats can run side by
    side on two cores, not one after another in one batch while the other core idles at the audit's end."""
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    store, batches = Store(tmp_path / "store"), list[list[RunRequest]]()
    options = AuditOptions(dataset=release, store=store.root, profile=["default"], repeats=3, workers=2)

    def execute(feed: LabelFeed) -> Executed:
        while (batch := feed.take()) is not None:
            batches.append(batch)
            store.runs.append([result_for(request, printed(request)) for request in batch])
            store.runs.flush()
            feed.landed([request.run_id for request in batch])
        return Executed(planned_runs=feed.planned, already_stored=feed.found_stored, written=0)

    summary = run_audit(options, execute, rows_every_s=0)
    long_label = [[r.part for r in batch if printed(r) == "0\n"] for batch in batches]
    assert [parts for parts in long_label if parts] == [[0], [1], [2]]
    assert summary.executions_planned == 4 + 2  # every label once, then the wrong one's 2 other repeats
    (row,) = [r for r in store.table("audit", AuditRow, "audit_id").records() if r.location.endswith("[0]")]
    assert (row.audit_class, row.distinct_outputs) == (AuditClass.MISMATCH, 1)


def test_a_rerun_finds_every_run_stored_and_runs_nothing(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    store, taken = Store(tmp_path / "store"), list[RunRequest]()
    options = AuditOptions(dataset=release, store=store.root, profile=["default"])
    first = run_audit(options, one_at_a_time(store, taken))
    ran = len(taken)
    again = run_audit(options, one_at_a_time(store, taken))
    assert len(taken) == ran and again.runs_executed == 0 and again.runs_reused == first.runs_planned
    assert (again.labels, again.reproduced) == (first.labels, first.reproduced) == (4, 3)


def test_a_label_whose_tool_is_missing_runs_once_under_the_next_profile_that_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Julia has no package on the host, only in an image: under `default` it is not run, and round 1
    tries the next profile asked for, once, instead of repeating it under every profile."""
    from pipeline.records import Verdict

    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "ml.json").write_text(json.dumps([ml_record("print(7)\n", "7")]))
    store, taken = Store(tmp_path / "store"), list[RunRequest]()

    def execute(feed: LabelFeed) -> Executed:
        while (batch := feed.take()) is not None:
            taken.extend(batch)
            for request in batch:
                if request.profile.name == "default":
                    result = result_for(
                        request, "", Verdict.TOOLCHAIN_MISSING, detail="`julia` is not installed"
                    )
                else:
                    result = result_for(request, printed(request))
                store.runs.append([result])
            store.runs.flush()
            feed.landed([request.run_id for request in batch])
        return Executed(planned_runs=feed.planned, already_stored=feed.found_stored, written=len(taken))

    options = AuditOptions(dataset=folder, store=store.root, profile=["default", "surge-bg", "current"])
    run_audit(options, execute, rows_every_s=0)
    assert [(r.profile.name, r.repeats) for r in taken] == [("default", 1), ("surge-bg", 1)]
    rows = {row.profile: row.audit_class for row in store.table("audit", AuditRow, "audit_id").records()}
    assert rows == {"default": AuditClass.NOT_RUN, "surge-bg": AuditClass.EXACT}


def test_a_batch_that_failed_leaves_its_labels_without_rows_and_the_audit_ends(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure of ours (a sandbox that would not start) stores no row: the feed hears the batch ended,
    its labels go on to their repeats, which fail too, and the audit ends with no verdict for them."""
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    store = Store(tmp_path / "store")
    batches = 0

    def nothing_runs(feed: LabelFeed) -> Executed:
        nonlocal batches
        while (batch := feed.take()) is not None:
            batches += 1
            assert batches < 50, "the feed keeps giving the same failed work"
            feed.landed([request.run_id for request in batch])
        return Executed(planned_runs=feed.planned, already_stored=feed.found_stored, failed_batches=batches)

    options = AuditOptions(dataset=release, store=store.root, profile=["default"])
    summary = run_audit(options, nothing_runs, rows_every_s=0)
    assert summary.labels == 0 and summary.not_audited == 4


def test_a_long_run_moves_its_label_on_while_the_rest_of_its_batch_runs(
    tmp_path: Path, require_bwrap: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the command, in bubblewrap: a wrong label's run that took over a second is stored as it
    ends (pipeline.batches.STORED_AT_ONCE_S), so its repeats start while the program after it in the
    same batch still runs, not once that batch has ended. Without the head start, whose batches run
    before the flow can take the next (how long Prefect's API takes to start is not the point here)."""
    from contextlib import contextmanager

    from flows.engine import Engine
    from pipeline import cli

    monkeypatch.setattr(Engine, "head_start", contextmanager(lambda *args, **kwargs: iter([None])))

    wrong = PADDING + "import time\ntime.sleep(1.2)\nprint(0)\n"  # the longer expected: first in the batch
    after = "import time\ntime.sleep(6)\nprint(1)\n"
    folder = tmp_path / "release"
    folder.mkdir()
    records = [ml_record(wrong, "not what it prints"), ml_record(after, "1")]
    (folder / "ml.json").write_text(json.dumps(records))
    store = tmp_path / "store"
    argv = ["audit", str(folder), "--store", str(store), "--batch-size", "2", "--workers", "2", "--json"]
    assert cli.main(argv) == 0, capsys.readouterr().err

    def ends_at(run: RunResult) -> float:
        return run.provenance.started_at.timestamp() + (run.run.wall_s if run.run is not None else 0.0)

    runs = list(Store(store).runs.records())
    first, repeated = sorted((r for r in runs if r.label == "0\n"), key=lambda r: r.provenance.started_at)
    (slow,) = [r for r in runs if r.label == "1\n"]
    assert repeated.provenance.started_at.timestamp() < ends_at(slow)


def test_a_free_core_takes_the_programs_a_running_batch_has_not_started(
    tmp_path: Path, require_bwrap: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four labels of 1.5-s programs given as one batch (``--batch-size 4``) on two cores: with nothing
    else queued, the flow takes the half its batch has not started (pipeline/stealing.py), so two of the
    programs run beside the other two, not all four one after another on one core."""
    from contextlib import contextmanager

    from flows.engine import Engine
    from pipeline import cli

    monkeypatch.setattr(Engine, "head_start", contextmanager(lambda *args, **kwargs: iter([None])))
    folder = tmp_path / "release"
    folder.mkdir()
    records = [ml_record(f"import time\ntime.sleep(1.5)\nprint({n})\n", str(n)) for n in range(4)]
    (folder / "ml.json").write_text(json.dumps(records))
    store = tmp_path / "store"
    argv = ["audit", str(folder), "--store", str(store), "--batch-size", "4", "--workers", "2", "--json"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    summary = json.loads(capsys.readouterr().out)
    assert (summary["labels"], summary["reproduced"]) == (4, 4)

    runs = list(Store(store).runs.records())
    spans = sorted((r.provenance.started_at.timestamp(), r.run.wall_s) for r in runs if r.run is not None)
    assert len(spans) == 4
    overlapping = [(a, b) for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[0] + a[1]]
    assert overlapping, f"the four programs ran one after another: {spans}"


def with_toolchains(monkeypatch: pytest.MonkeyPatch, toolchain: Callable[[RunRequest], str]) -> None:
    """Every profile available, and each request's toolchain id as ``toolchain`` names it."""
    from pipeline.audit.stage import Audit

    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    identified = Audit.identified

    def toolchains(self: Audit, requests: list[RunRequest]) -> list[RunRequest]:
        return [r.model_copy(update={"toolchain_id": toolchain(r)}) for r in identified(self, requests)]

    monkeypatch.setattr(Audit, "identified", toolchains)


def sized_release(tmp_path: Path, sizes: dict[str, int], marked: str, mark: str) -> Path:
    """ml records printing their names, each padded to its size; those whose name starts with ``marked``
    carry ``mark`` in their source."""
    records = [
        ml_record(f"# {mark if name.startswith(marked) else ''}{'x' * pad}\nprint('{name}')\n", name)
        for name, pad in sizes.items()
    ]
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "ml.json").write_text(json.dumps(records))
    return folder


def answering_in_turn(store: Store, taken: list[RunRequest], answer: Callable[[RunRequest, str], RunResult]):
    """An engine of one slot whose results ``answer`` makes from each request and the name it prints."""

    def execute(feed: LabelFeed) -> Executed:
        while (batch := feed.take()) is not None:
            taken.extend(batch)
            for request in batch:
                name = request.program.files[0].content.rsplit("print('", 1)[1].split("'")[0]
                store.runs.append([answer(request, name)])
            store.runs.flush()
            feed.landed([request.run_id for request in batch])
        return Executed(planned_runs=feed.planned, already_stored=feed.found_stored, written=len(taken))

    return execute


def test_runs_whose_toolchain_was_found_missing_go_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Julia's labels under `default` (no Julia on the host): the first run of each toolchain goes first;
    once one run finds the tool missing, the others' runs there go to the front (they end at once) and
    their next profile starts early, instead of each waiting its turn by size and trickling in at the
    end."""
    from pipeline.records import Verdict

    def toolchain(request: RunRequest) -> str:
        julia = "julia" in request.program.files[0].content
        return f"{'julia' if julia else 'python'}@{request.profile.name}"

    with_toolchains(monkeypatch, toolchain)
    # Julia's programs the smallest: by size alone, its first run (which finds the tool missing) came last
    sizes = {"L": 4000, "P1": 1000, "P2": 1000, "J1": 0, "J2": 0, "J3": 0}
    folder = sized_release(tmp_path, sizes, "J", "julia")
    store, taken = Store(tmp_path / "store"), list[RunRequest]()

    def answer(request: RunRequest, name: str) -> RunResult:
        if request.toolchain_id == "julia@default":
            return result_for(request, "", Verdict.TOOLCHAIN_MISSING, detail="`julia` is not installed")
        return result_for(request, name + "\n")

    execute = answering_in_turn(store, taken, answer)

    options = AuditOptions(dataset=folder, store=store.root, profile=["default", "current"], batch_size=1)
    run_audit(options, execute, rows_every_s=0)
    order = [f"{r.program.files[0].content.rsplit(chr(39), 2)[1]}@{r.profile.name}" for r in taken]
    assert order == [
        "L@default",
        "J1@default",  # Julia's scout, ahead of P1 and P2; it finds Julia missing: J2 and J3 go first
        "J2@default",
        "J3@default",
        "J1@current",  # the scout of Julia's image
        "P1@default",
        "P2@default",
        "J2@current",
        "J3@current",
    ]


def test_a_toolchain_found_costly_runs_before_bigger_programs_of_a_cheap_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Size says nothing of a language's cost: small Rust programs each compile for a second, bigger
    Python ones run in milliseconds. Each toolchain's first run (its scout) says what its runs cost, and
    the queue is reordered by it: the costly toolchain's runs go first, and the cheap ones make the tail."""
    with_toolchains(monkeypatch, lambda r: "rustc" if "compiled" in r.program.files[0].content else "python")
    # the cheap toolchain's programs the biggest: by size alone, every one of them came first
    sizes = {"P1": 3000, "P2": 2900, "P3": 2800, "R1": 100, "R2": 50, "R3": 0}
    folder = sized_release(tmp_path, sizes, "R", "compiled")
    store, taken = Store(tmp_path / "store"), list[RunRequest]()

    def answer(request: RunRequest, name: str) -> RunResult:
        result = result_for(request, name + "\n")
        if request.toolchain_id != "rustc" or result.run is None:
            return result
        return result.model_copy(update={"run": result.run.model_copy(update={"cpu_user_s": 1.0})})

    execute = answering_in_turn(store, taken, answer)

    options = AuditOptions(dataset=folder, store=store.root, profile=["default"], batch_size=1)
    run_audit(options, execute, rows_every_s=0)
    order = [r.program.files[0].content.rsplit(chr(39), 2)[1] for r in taken]
    # the scouts first (the biggest of each toolchain); then Rust's runs, known to take a second each
    assert order == ["P1", "R1", "R2", "R3", "P2", "P3"]


def test_a_toolchains_floor_is_its_cheapest_run_not_what_its_first_long_runs_took() -> None:
    """The runs that land first are the longest (the queue is longest first): a median of them made every
    queued program of the language, its 0.01-s ones too, "at least" seconds long, and a wrong label's
    next round waited behind all of them. The floor is the cheapest run so far; it is relearned as it
    falls, and a run that found its tool missing (it ran nothing) says nothing of the tool's cost."""
    from pipeline.audit.feed import ToolchainCosts
    from pipeline.records import PhaseResult, Program, Verdict
    from tests.factories import PROFILE

    request = RunRequest(program=Program.single("python", "print(1)"), profile=PROFILE)

    def costing(cpu_s: float, verdict: Verdict = Verdict.OK) -> tuple[str, RunResult]:
        run = PhaseResult(stdout="1\n", cpu_user_s=cpu_s, verdict=verdict)
        return "python", RunResult.answering(
            request, run=run, verdict=verdict, provenance=result_for(request, "").provenance
        )

    costs = ToolchainCosts()
    assert costs.learn([costing(s) for s in (6.0, 4.8, 3.8)]) and costs.known_s == {"python": 3.8}
    assert costs.learn([costing(0.02)]) and costs.known_s == {"python": 0.02}
    assert not costs.learn(
        [costing(0.015), costing(0.0, Verdict.TOOLCHAIN_MISSING)]
    )  # within 1.5x: no reorder
    assert costs.least_s == {"python": 0.015}
