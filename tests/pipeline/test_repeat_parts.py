"""A question's repeats run as requests of their own (``RunRequest.part``) and joined back into one result
(``joined_parts``) say what one request of that many repeats would have said."""

from __future__ import annotations

from pipeline.records import (
    ExecutionSetting,
    Language,
    PhaseResult,
    Program,
    RunRequest,
    Verdict,
    joined_parts,
    run_id_for,
)
from tests.factories import PROFILE, make_result


def test_the_first_part_is_the_single_run_and_every_other_part_has_an_id_of_its_own() -> None:
    program = Program.single(Language.PYTHON, "print(1)")
    single = RunRequest(program=program, profile=PROFILE)
    parts = [single.model_copy(update={"part": k}) for k in range(3)]
    assert parts[0].run_id == single.run_id == run_id_for(program, ExecutionSetting(), PROFILE)
    assert len({p.run_id for p in parts}) == 3
    # the same part of another question, or under other repeats, is another run
    assert parts[1].run_id != parts[1].model_copy(update={"repeats": 2}).run_id


def test_agreeing_parts_join_into_one_result_of_that_many_repeats() -> None:
    joined = joined_parts([make_result(stdout="7\n") for _ in range(3)])
    assert (joined.repeats, joined.distinct_outputs, joined.varied, joined.other_runs) == (3, 1, (), ())
    assert joined.label == "7\n"


def test_parts_that_disagree_join_as_the_runner_compares_repeats() -> None:
    first, second = make_result(stdout="0.1\n"), make_result(stdout="0.2\n")
    joined = joined_parts([first, second, make_result(stdout="0.1\n")])
    assert (joined.repeats, joined.distinct_outputs, joined.varied) == (3, 2, ("stdout",))
    assert joined.other_runs == (second.run,)  # the other outcome's first repeat, to be read
    assert (joined.run_id, joined.label, joined.verdict) == (first.run_id, "0.1\n", Verdict.OK)


def test_a_part_that_never_reached_its_run_differs_by_how_it_ended() -> None:
    ran = make_result(stdout="1\n")
    failed = make_result(stdout="1\n").model_copy(
        update={
            "run": None,
            "compile": PhaseResult(stderr="killed\n", verdict=Verdict.CPU_TIME_LIMIT),
            "verdict": Verdict.CPU_TIME_LIMIT,
        }
    )
    joined = joined_parts([ran, failed])
    assert (joined.repeats, joined.distinct_outputs, joined.varied) == (2, 2, ("verdict",))
    assert joined_parts([failed, failed]).distinct_outputs == 1
