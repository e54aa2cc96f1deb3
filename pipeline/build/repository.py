"""Repository sampling (rl): a repository, its run instruction and its input files become programs.

A manifest line names a repository (a local folder, relative to the manifest, or a git URL with a
commit), how to run it (``run_instruction``, shell lines run in /app; ``{input}`` is the input file's
path) and its input files; each input file is one item: every text file of the repository placed under
/app, run once per item, labelled with its stdout. The question packs the files as SURGE's rl does
(``name:<start_file>...<endfile>``, then ``, and the input file is:./<path>:<start_file>...<endfile>``),
and ``metric`` (exact, edit_distance, ratcliff_obershelp) says how a prediction is scored per item.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import Field

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.failures import Built, OurFailure, Ours
from pipeline.build.manual import _outcome
from pipeline.build.records import BuildConfig, BuildItem, BuildOutcome
from pipeline.build.rows import run_ref
from pipeline.dataset import DatasetRow, UpstreamRef
from pipeline.records import (
    Frozen,
    Limits,
    PhaseLimits,
    Program,
    ProgramFile,
    RunRequest,
    Verdict,
)
from pipeline.store import Store
from pipeline.subsets import subset_spec
from sandboxes.languages import parse_language
from sandboxes.profiles import get_profile

SAMPLE_MANIFEST = Path(__file__).parent / "repos" / "manifest.jsonl"
MAX_FILE_BYTES = 256 * 1024  # a benchmark question is read by a model: larger files are not code to read
LIMITS = Limits(run=PhaseLimits(cpu_s=30.0, wall_s=60.0))


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


def read_manifest(path: Path) -> list[tuple[RepoTask, str]]:
    """(task, input file) pairs: one item each, in manifest order."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            task = RepoTask.model_validate_json(line).model_copy(update={"base": str(path.parent.resolve())})
            pairs += [(task, input_path) for input_path in task.inputs or ("",)]
    return pairs


def checkout(task: RepoTask, folder: Path) -> Path:
    """The repository's files at the pinned commit: a local folder as is, a git URL cloned and checked out."""
    if "://" not in task.location and not task.location.startswith("git@"):
        return Path(task.base) / task.location
    target = folder / "repo"
    subprocess.run(["git", "clone", "--quiet", task.location, str(target)], check=True, capture_output=True)
    if task.commit:
        subprocess.run(
            ["git", "-C", str(target), "checkout", "--quiet", task.commit], check=True, capture_output=True
        )
    return target


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


def build_repositories(store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    outcomes: list[BuildOutcome] = []
    rows: list[DatasetRow] = []
    ours: list[OurFailure] = []
    for item in items:
        task = RepoTask.model_validate_json(item.source_item_json)
        input_path = item.domain
        with tempfile.TemporaryDirectory() as folder:
            try:
                files = repo_files(checkout(task, Path(folder)))
            except (subprocess.CalledProcessError, OSError) as error:
                # a clone that failed says nothing of the program (the network, a moved URL): ours
                ours.append(OurFailure(kind=Ours.FETCH_ERROR, index=item.index, detail=_fetch_detail(error)))
                continue
        if not files:
            outcomes.append(_outcome(config, item, "dropped", "no text files in the repository", (), ()))
            continue
        instruction = task.run_instruction.replace("{input}", input_path)
        program = Program(
            language=parse_language(task.language), files=tuple(files), run_instruction=instruction
        )
        request = RunRequest(program=program, profile=get_profile(config.profile), limits=LIMITS, repeats=2)
        run = execute(store, [request], config.backend, config.unsafe, 1)[0]
        if failure := failures.of_runs_failure([run], item.index):
            ours.append(failure)
            continue
        if run.verdict is not Verdict.OK or run.distinct_outputs > 1:
            why = run.verdict.value if run.verdict is not Verdict.OK else "non-deterministic"
            outcomes.append(_outcome(config, item, "dropped", why, (), (run.run_id,)))
            continue
        made = _row(config, item, task, files, input_path, run)
        outcomes.append(_outcome(config, item, "kept", "", (made.row_id,), (run.run_id,)))
        rows.append(made)
    return outcomes, rows, ours


def _fetch_detail(error: Exception) -> str:
    if isinstance(error, subprocess.CalledProcessError):
        stderr = error.stderr.decode(errors="replace") if isinstance(error.stderr, bytes) else error.stderr
        return f"{' '.join(map(str, error.cmd[:4]))}: {(stderr or '').strip()[-200:]}"
    return str(error)


def _row(config, item, task, files, input_path, run) -> DatasetRow:  # type: ignore[no-untyped-def]
    spec = subset_spec(config.subset)
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
            repo=task.location if "://" in task.location else f"pipeline/build/repos/{task.location}",
            commit=task.commit or item.template_digest,
            path=input_path,
            key=f"{task.name}:{input_path}",
            item_id=item.item_id,
        ),
        run=run_ref(run),
        label_origin="executed",
        construction=spec.construction.value,
    )
