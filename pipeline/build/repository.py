"""Repository sampling (rl): a repository, its run instruction and its input files become programs.

A manifest line names a repository (a local folder, relative to the manifest, or a git URL with a
commit), how to run it (``run_instruction``, shell lines run in /app; ``{input}`` is the input file's
path) and its input files; each input file is one item: every text file of the repository placed under
/app, run once per item, labelled with its stdout. The question packs the files as SURGE's rl does
(``name:<start_file>...<endfile>``, then ``, and the input file is:./<path>:<start_file>...<endfile>``),
and ``metric`` (exact, edit_distance, ratcliff_obershelp) says how a prediction is scored per item.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from pydantic import Field, ValidationError, model_validator

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.failures import Built, OurFailure, Ours
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import run_ref
from pipeline.dataset_rows import DatasetRow, UpstreamRef
from pipeline.errors import ConfigurationError, SourceError
from pipeline.records import (
    Frozen,
    Limits,
    PhaseLimits,
    Program,
    ProgramFile,
    RunRequest,
    Verdict,
)
from sandboxes.languages import parse_language
from sandboxes.profiles import get_profile
from sources.base import Source
from sources.git import checkout_source

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec

SAMPLE_MANIFEST = Path(__file__).parent / "repos" / "manifest.jsonl"
MAX_FILE_BYTES = 256 * 1024  # a benchmark question is read by a model: larger files are not code to read
LIMITS = Limits(run=PhaseLimits(cpu_s=30.0, wall_s=60.0))
FULL_SHA = re.compile(r"^[0-9a-f]{40}$")


class RepoTask(Frozen):
    """One manifest line: a repository and how to run it on each of its input files."""

    name: str
    location: str = Field(description="folder (relative to the manifest) or git URL")
    commit: str = Field(default="", description="for a git URL: the commit to check out")
    language: str
    run_instruction: str = Field(description="shell lines run in /app; {input} is the input file's path")
    inputs: tuple[str, ...] = Field(default=(), description="input files, relative to the repository")
    metric: Literal["exact", "edit_distance", "ratcliff_obershelp"] = "exact"
    task: str = ""
    base: str = Field(default="", description="the manifest's folder (filled in when read)")

    @model_validator(mode="after")
    def _pinned(self) -> RepoTask:
        # a branch moves: the same manifest must give the same files on every machine
        if is_remote(self.location) and not FULL_SHA.match(self.commit):
            raise ValueError(f"{self.location}: a git location needs the full 40-hex commit it is pinned to")
        return self


def read_manifest(path: Path) -> list[tuple[RepoTask, str]]:
    """(task, input file) pairs: one item each, in manifest order."""
    if not path.is_file():  # a store of pulled items is ml's, cl's and bg's --items, never rl's
        what = "a folder" if path.is_dir() else "not there"
        raise ConfigurationError(
            f"rl reads a repository manifest (a JSONL file) from --items, and {path} is {what}",
            hint="give rl its manifest, or build rl in a command of its own from its bundled repositories "
            "(`surge build rl`; docs/build.md, rl)",
        )
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            task = RepoTask.model_validate_json(line).model_copy(update={"base": str(path.parent.resolve())})
        except ValidationError as error:
            reason = error.errors()[0]["msg"].removeprefix("Value error, ")
            raise ConfigurationError(
                f"{path}:{number}: not a repository line: {reason}",
                hint="each line names name, location, language and run_instruction (docs/build.md, rl)",
            ) from None
        pairs += [(task, input_path) for input_path in task.inputs or ("",)]
    return pairs


def is_remote(location: str) -> bool:
    return "://" in location or location.startswith("git@")


def checkout(task: RepoTask, cache_root: Path) -> Path:
    """The repository's files at its pinned commit: a local folder as is; a git URL pulled as every source
    is (sources/git.py: gitpython, a cached checkout under ``cache_root/<name>``, the sha verified)."""
    if not is_remote(task.location):
        return Path(task.base) / task.location
    source = Source(
        name=task.name,
        url=task.location,
        commit=task.commit,
        licence="see the repository",
        kind="git",
        paths=("*",),  # the whole tree: a question packs every text file of the repository
        read=lambda checkout, commit: iter(()),
    )
    return checkout_source(source, cache_root)[0]


def repo_files(root: Path) -> list[ProgramFile]:
    files = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts):
        if path.stat().st_size <= MAX_FILE_BYTES:
            try:
                files.append(
                    ProgramFile(path=path.relative_to(root).as_posix(), content=path.read_text("utf-8"))
                )
            except UnicodeDecodeError:
                continue  # binary files are not part of a question
    return files


def question(files: list[ProgramFile], input_path: str) -> str:
    code = "".join(f"{f.path}:<start_file>{f.content}<endfile>" for f in files if f.path != input_path)
    text = f"Here is the code repository:{code}"
    given = next((f for f in files if f.path == input_path), None)
    if given is not None:
        text += f", and the input file is:./{given.path}:<start_file>{given.content}<endfile>"
    return text


class Prepared(NamedTuple):
    """An item checked out and ready to run: what its row is made of."""

    item: BuildItem
    task: RepoTask
    request: RunRequest  # its program holds the repository's files


def build_repositories(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """Check every item of the batch out, then run them all in one sandbox, ``config.workers`` at a
    time (one sandbox per item, one program at a time, left a core idle: rl's 60 rows took 65 s)."""
    outcomes: list[BuildOutcome] = []
    ours: list[OurFailure] = []
    ready: list[Prepared] = []
    for item in items:
        prepared = _prepare(store, config, item)
        if isinstance(prepared, OurFailure):
            ours.append(prepared)
        elif isinstance(prepared, Prepared):
            ready.append(prepared)
        else:
            outcomes.append(prepared)
    requests = [p.request for p in ready]
    runs = execute(store, requests, config.backend, config.unsafe, config.workers) if requests else []
    rows: list[DatasetRow] = []
    for (item, task, request), run in zip(ready, runs, strict=True):
        if failure := failures.of_runs_failure([run], item.index):
            ours.append(failure)
            continue
        if run.verdict is not Verdict.OK or run.distinct_outputs > 1:
            why = run.verdict.value if run.verdict is not Verdict.OK else "non-deterministic"
            outcomes.append(_outcome(config, item, "dropped", why, (), (run.run_id,)))
            continue
        made = _row(spec, config, item, task, list(request.program.files), item.domain, run)
        outcomes.append(_outcome(config, item, "kept", "", (made.row_id,), (run.run_id,)))
        rows.append(made)
    return outcomes, rows, ours


def _prepare(store: Store, config: BuildConfig, item: BuildItem) -> Prepared | BuildOutcome | OurFailure:
    """The item's repository checked out and its run request; a drop, or a failure of ours, if not."""
    task = RepoTask.model_validate_json(item.source_item_json)
    try:
        files = repo_files(checkout(task, store.root / "repositories"))
    except (SourceError, OSError) as error:
        # a clone that failed says nothing of the program (the network, a moved URL): ours
        return OurFailure(kind=Ours.FETCH_ERROR, index=item.index, detail=str(error))
    if not files:
        return _outcome(config, item, "dropped", "no text files in the repository", (), ())
    instruction = task.run_instruction.replace("{input}", item.domain)  # the item's input file
    program = Program(language=parse_language(task.language), files=tuple(files), run_instruction=instruction)
    request = RunRequest(program=program, profile=get_profile(config.profile), limits=LIMITS, repeats=2)
    return Prepared(item, task, request)


def _row(spec, config, item, task, files, input_path, run) -> DatasetRow:  # type: ignore[no-untyped-def]
    return DatasetRow(
        subset=config.subset,
        category=spec.released_category,
        question=question(files, input_path),
        gt=run.label.rstrip("\n"),
        custom_features={
            "language": task.language,
            "repo": task.name,
            "run_instruction": task.run_instruction.replace("{input}", input_path),
            "task": task.task,
            "metric": task.metric,
        },
        upstream=UpstreamRef(
            source="repository",
            repo=task.location if is_remote(task.location) else f"pipeline/build/repos/{task.location}",
            commit=task.commit or item.template_digest,
            path=input_path,
            key=f"{task.name}:{input_path}",
            item_id=item.item_id,
        ),
        run=run_ref(run),
        label_origin="executed",
        construction=spec.construction.value,
    )
