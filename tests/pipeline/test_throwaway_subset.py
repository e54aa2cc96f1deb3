"""A new subset is one spec file plus one registration: a throwaway one reaches every stage.

`toylines` is a toy subset of Python programs that print a few words, one a line, whose metric is its
own: the Jaccard of the sets of printed lines (a prediction with the right lines in another order scores
1, where exact match would give 0). Its spec is written as a file, imported from that file and
registered with ``register_subset`` by the fixture, which removes it afterwards; nothing else is edited.
It is then built (`surge build`, under bwrap), exported (SURGE files and the HF card), scored (`surge
score`, with its own metric) and audited (`surge audit --subset toylines`, a choice the parser was not
given when it was built).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import build_parser, main
from pipeline.errors import ConfigurationError
from pipeline.scoring.by_subset import score_prediction
from pipeline.subsets import REGISTRY, SubsetSpec, register_subset, subset_spec, unregister_subset

TOY = "toylines"
TOY_SPEC_FILE = '''\
"""toylines: Python programs printing a few words, one a line; scored by the set of printed lines."""

from typing import Any

from pipeline.records import LabelProtocol, Language, Limits, PhaseLimits, Program
from pipeline.scoring.surge_eval import extract_output
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec, per_index
from pipeline.subsets.programs import origin

WORDS = ("ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen")
LIMITS = Limits(run=PhaseLimits(cpu_s=5.0, wall_s=20.0))


def line_set(output: str, gt: str) -> float:
    ours, theirs = set(output.splitlines()), set(gt.splitlines())
    return 1.0 if not ours and not theirs else len(ours & theirs) / len(ours | theirs)


def metric(record: Any) -> tuple[str, Any]:
    return "line_set", line_set


def score(gt: str, features: dict[str, Any], prediction: str) -> float:
    output = extract_output(prediction)
    return 0.0 if output is None else line_set(output, gt)


def plan_item(config: Any, index: int) -> Any:
    from pipeline.build.plan import template_item
    from pipeline.templates import instance_rng

    words = instance_rng(config.seed, config.subset, index).sample(WORDS, 3)
    text = f"for word in {words!r}:\\n    print(word)\\n"
    program = Program.single(Language.PYTHON, text, origin={"subset": config.subset, "index": str(index)})
    return template_item(config, index, "words", program, "toylines.py:words")


def build_batch(spec: Any, store: Any, config: Any, items: list[Any]) -> tuple[list, list, list]:
    from pipeline.build import failures
    from pipeline.build.execute import execute
    from pipeline.build.records import BuildOutcome
    from pipeline.build.rows import row, run_ref
    from pipeline.records import RunRequest, Verdict
    from sandboxes.profiles import get_profile

    profile = get_profile(config.profile)
    requests = [RunRequest(program=i.program(), profile=profile, limits=LIMITS, repeats=2) for i in items]
    results = execute(store, requests, config.backend, config.unsafe, config.workers)

    def judge(item: Any, runs: list[Any]) -> tuple[Any, list[Any]]:
        run = runs[0]
        ok = run.verdict is Verdict.OK and run.distinct_outputs == 1
        made = [row(spec, item, config.seed, item.program().files[0].content, run.label.rstrip("\\n"),
                    {"template": item.template, "environment": "Python 3"}, run_ref(run))] if ok else []
        outcome = BuildOutcome(
            build_key=config.build_key, subset=item.subset, item_id=item.item_id, index=item.index,
            status="kept" if ok else "dropped", reason="" if ok else run.verdict.value,
            row_ids=tuple(r.row_id for r in made), run_ids=(run.run_id,),
        )
        return outcome, made

    return failures.judge_each(items, [[r] for r in results], judge)


def to_program(record: Any) -> ProgramPlan:
    program = Program.single(Language.PYTHON, record.question, origin=origin(record))
    return ProgramPlan(language="python", program=program)


SPEC = SubsetSpec(
    name="toylines",
    title="toy lines",
    category=99,
    category_key="custom_category",
    construction=ConstructionMethod.MANUAL_IMPLEMENTATION,
    release_size=4,
    protocol=LabelProtocol.STDOUT,
    feature_keys=("template", "environment"),  # the generic prompt says what it runs with
    few_shot_examples=3,
    to_program=to_program,
    metric=metric,
    score_prediction=score,
    upstream_release=False,
    plan_items=per_index(plan_item),
    build_batch=build_batch,
)
'''


@pytest.fixture
def toylines(tmp_path: Path) -> Iterator[SubsetSpec]:
    """The toy spec, imported from its file and registered for the test only."""
    path = tmp_path / f"{TOY}.py"
    path.write_text(TOY_SPEC_FILE)
    module_spec = importlib.util.spec_from_file_location(f"surge_test_{TOY}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    spec = register_subset(module.SPEC)
    try:
        yield spec
    finally:
        unregister_subset(TOY)


def test_an_unknown_subset_is_an_error_never_exact_match() -> None:
    with pytest.raises(ConfigurationError, match="unknown subset 'nosuch'"):
        score_prediction("nosuch", "a", {}, "Output: a")


def test_pyver_predictions_are_scored_by_its_own_spec_not_fl_s_metric() -> None:
    # pyver's label is stdout: the extracted output must equal it (fl's scorer wanted Lean JSON: 0)
    assert score_prediction("pyver", "3.11.2", {}, "Output: `3.11.2`") == 1.0
    assert score_prediction("pyver", "3.11.2", {}, "Output: `3.9.2`") == 0.0


def test_a_parser_built_before_the_subset_was_registered_accepts_it(toylines: SubsetSpec) -> None:
    parser = build_parser()
    unregister_subset(TOY)
    with pytest.raises(SystemExit):
        parser.parse_args(["audit", "x", "--subset", TOY])
    register_subset(toylines)
    assert parser.parse_args(["audit", "x", "--subset", TOY]).subset == [TOY]
    assert parser.parse_args(["export", "s", "o", "--subset", TOY]).subset == [TOY]


def test_a_category_number_taken_twice_is_refused(toylines: SubsetSpec) -> None:
    import dataclasses

    with pytest.raises(ConfigurationError, match="category 99"):
        register_subset(dataclasses.replace(toylines, name="toylines2"))
    assert "toylines2" not in REGISTRY


@pytest.mark.slow
def test_the_toy_subset_builds_exports_scores_and_audits(
    toylines: SubsetSpec, tmp_path: Path, capsys, require_bwrap
) -> None:
    store, out, hf, audit = (tmp_path / name for name in ("store", "out", "hf", "audit"))
    assert main(["build", TOY, "--n", "4", "--seed", "3", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["built"][TOY]["rows"] == 4

    assert main(["export", str(store), str(out)]) == 0
    records = json.loads((out / "dataset" / f"{TOY}.json").read_text())
    assert len(records) == 4 and records[0]["custom_category"] == 99
    assert all(len(r["gt"].splitlines()) == 3 and r["question"].startswith("for word in") for r in records)
    assert main(["export", str(store), str(hf), "--format", "hf"]) == 0
    assert TOY in (hf / "README.md").read_text()
    capsys.readouterr()

    # the right lines in reverse order: 1 by the toy's own metric (exact match would give 0)
    predictions = tmp_path / "predictions.jsonl"
    reversed_lines = ["\n".join(reversed(r["gt"].splitlines())) for r in records]
    lines = [
        {"subset": TOY, "index": i, "prediction": f"Output:\n```\n{text}\n```"}
        for i, text in enumerate(reversed_lines)
    ]
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert subset_spec(TOY).score_prediction(records[0]["gt"], {}, lines[0]["prediction"]) == 1.0
    assert main(["score", str(predictions), "--dataset", str(out / "dataset"), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert _mean_score(scored, TOY) == 1.0

    args = ["audit", str(out / "dataset"), "--subset", TOY, "--store", str(audit), "--repeats", "1", "--json"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert TOY in json.dumps(summary) and "reproduced" in json.dumps(summary)


def _mean_score(summary: dict, subset: str) -> float:
    """The subset's mean in `surge score --json`, wherever the summary nests it."""
    found: list[float] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if subset in node and isinstance(node[subset], dict) and "mean" in node[subset]:
                found.append(node[subset]["mean"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(summary)
    assert found, summary
    return found[0]
