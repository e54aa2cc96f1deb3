"""Typed records at every boundary of the pipeline.

Data flows one way: SourceItem -> Program -> (ExecutionSetting, EnvironmentProfile) -> RunResult.
Ids are content hashes of what determines a result, so every stage is resumable and cacheable:
the same program under the same setting and profile always has the same ``run_id``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal, NamedTuple, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    computed_field,
    field_validator,
    model_validator,
)

from pipeline.vocabulary import DEFAULT_BACKEND, Language

ID_HEX_CHARS = 16  # 64 bits: collision-free at SURGE scale (millions of rows), short enough to read


def content_id(*parts: Any) -> str:
    """A stable hex id of JSON-serialisable parts (dict keys sorted, so field order never matters)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:ID_HEX_CHARS]


class Frozen(BaseModel):
    """An immutable record. Its computed fields (ids, the label) are computed once, on first use: a job
    reads each request's run id five times or more, and each time was a JSON dump and a hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy; with fields changed, the values computed from the old ones are dropped, not carried."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            for name in type(self).model_computed_fields:
                copied.__dict__.pop(name, None)
        return copied


# ---------------------------------------------------------------------------------------------
# Upstream items
# ---------------------------------------------------------------------------------------------


class SourceItem(Frozen):
    """One upstream record, before any refactoring: what a source adapter yields."""

    source: str = Field(description="registry name of the source, e.g. 'mceval'")
    key: str = Field(description="the item's id within its source, stable across pulls")
    language: Language | None = Field(default=None, description="sandbox language, if it has one")
    upstream_language: str | None = Field(default=None, description="the language as upstream spells it")
    upstream_repo: str = Field(description="e.g. 'github.com/MCEVAL/McEval'")
    upstream_commit: str = Field(description="the pinned commit the item was read at")
    upstream_path: str = Field(description="file inside the upstream repository")
    upstream_locator: str = Field(default="", description="line number or list index inside the file")
    licence: str = Field(description="SPDX id or upstream licence name; carried into every export")
    text: str = Field(default="", description="the runnable or reviewable text the item offers")
    fields: dict[str, Any] = Field(default_factory=dict, description="the source's own fields, verbatim")

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def item_id(self) -> str:
        return content_id("item", self.source, self.key, self.upstream_commit, self.text, self.fields)


class QuarantinedRecord(Frozen):
    """A record a stage could not use, kept with where it came from and why (nothing is dropped silently)."""

    stage: str = Field(description="which stage refused it: 'pull', 'load-programs', 'audit', ...")
    source: str
    location: str = Field(description="file:line, file[index] or path that locates the record")
    reason: str
    raw: str = Field(default="", description="the offending text, truncated to a few KiB")

    @field_validator("source", "location", "reason", "raw")
    @classmethod
    def _storable(cls, text: str) -> str:
        """Bad input is kept, whatever it holds: a lone surrogate (JSON's "\\ud800") has no UTF-8 form
        for Parquet, so it is kept as its escape."""
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def quarantine_id(self) -> str:
        return content_id("quarantine", self.stage, self.source, self.location, self.reason)


# ---------------------------------------------------------------------------------------------
# Programs and how to run them
# ---------------------------------------------------------------------------------------------


NAME_MAX_BYTES = 255  # the longest file or folder name Linux can create


def unicode_text(text: str, what: str) -> str:
    """`text` if it is Unicode text: a lone surrogate (JSON's "\\ud800") has no UTF-8 form, so every id,
    file and Parquet column would fail on it later, long after the input was read."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{what} is not Unicode text (a lone surrogate at character {error.start})"
        ) from None
    return text


def lone_surrogate(value: Any) -> str:
    """Why the JSON value ``value`` is not Unicode text ('' when it is): JSON's "\\ud800" escape decodes
    to a lone surrogate, which has no UTF-8 form, so an id or Parquet row made of it would fail long after
    the input was read."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        return f"a lone surrogate escape such as \\ud800 ({error.reason})"
    return ""


class ProgramFile(Frozen):
    path: str = Field(description="relative path under /app, e.g. 'Main.java' or 'src/lib.rs'")
    content: str

    @field_validator("path")
    @classmethod
    def _relative_and_inside(cls, path: str) -> str:
        """A path the sandbox can create under /app, and only there: a path it cannot create would be a
        sandbox error that running again never fixes."""
        parts = path.replace("\\", "/").split("/")
        if not path or path.startswith("/") or ".." in parts:
            raise ValueError(f"file path must be relative and stay inside /app: {path!r}")
        if "\0" in path:
            raise ValueError(f"file path holds a NUL byte: {path!r}")
        if "" in parts or "." in parts:
            raise ValueError(f"file path has an empty or '.' part (write 'src/a.c'): {path!r}")
        if any(len(part.encode("utf-8", "replace")) > NAME_MAX_BYTES for part in parts):
            raise ValueError(f"file path has a name longer than {NAME_MAX_BYTES} bytes: {path[:80]!r}...")
        return unicode_text(path, "file path")

    @field_validator("content")
    @classmethod
    def _unicode(cls, content: str) -> str:
        return unicode_text(content, "file content")


class LabelProtocol(StrEnum):
    """How a label is composed from the phases (see shared/notes/surge-ground-truth.md)."""

    STDOUT = "stdout"  # ml, cl, sc, tc, rl: the run's stdout
    COMPILE_THEN_RUN = "compile_then_run"  # dr: compiler output, then the run's stdout and stderr
    COMBINED_WITH_PREFIX = "combined_with_prefix"  # bg: 'Compilation Error: ' + stderr, else stdout + stderr
    PROOF_CHECK = "proof_check"  # fl: the Lean check's answer (its phase's stdout) when Lean answered
    # A self-checking program (CRUXEval-X: `assert f(x) == y`): what the compiler said and what the run wrote
    # on stderr, where a failed check shows even in harnesses that exit 0 after one (rackunit, mono). The
    # label a benchmark claims is the check's verdict, which its plug-in's convention reads from the phases
    # (pipeline/subsets/checks.py); this composition is what repeats must agree on. The run's stdout is left
    # out: test frameworks print their timings there (luaunit's "Ran 1 tests in 0.000 seconds").
    SELF_CHECK = "self_check"


class Program(Frozen):
    """A complete, runnable program: one or more files placed under /app."""

    language: Language
    files: tuple[ProgramFile, ...] = Field(min_length=1)
    entry: str | None = Field(default=None, description="the file to compile/run; default: the first file")
    argv: tuple[str, ...] = Field(default=(), description="arguments, passed without a shell")
    stdin: str = ""
    run_instruction: str | None = Field(
        default=None, description="shell lines run in /app instead of the spec (repositories: 'make', ...)"
    )
    protocol: LabelProtocol = LabelProtocol.STDOUT
    origin: dict[str, str] = Field(
        default_factory=dict, description="where it came from (subset, index, item id); not part of the id"
    )

    @model_validator(mode="after")
    def _runnable_text(self) -> Self:
        """Every text has a UTF-8 form (ids, files and Parquet need one), and nothing passed through exec
        holds a NUL: either would be a sandbox error that running again never fixes."""
        for text in (*self.argv, self.run_instruction or ""):
            if "\0" in unicode_text(text, "argv or run_instruction"):
                raise ValueError(f"argv or run_instruction holds a NUL byte: {text[:80]!r}")
        for text in (self.stdin, self.entry or "", *self.origin, *self.origin.values()):
            unicode_text(text, "stdin, entry or origin")
        return self

    @model_validator(mode="after")
    def _files_fit_in_one_folder(self) -> Self:
        """The files can all be placed under /app, each once, and the entry is one of them."""
        paths = [f.path for f in self.files]
        seen: set[str] = set()
        for path in paths:
            if path in seen:
                raise ValueError(f"two files have the path {path!r}")
            seen.add(path)
        folders = {"/".join(p.split("/")[:depth]) for p in paths for depth in range(1, p.count("/") + 1)}
        if clash := sorted(seen & folders):
            raise ValueError(f"{clash[0]!r} is both a file and a folder of other files")
        if self.entry is not None and self.entry not in seen:
            raise ValueError(f"entry {self.entry!r} is not one of the program's files ({', '.join(paths)})")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def program_id(self) -> str:
        return content_id(
            "program",
            self.language,
            [(f.path, f.content) for f in self.files],
            self.entry_file.path,
            self.argv,
            self.stdin,
            self.run_instruction,
            self.protocol,
        )

    @property
    def entry_file(self) -> ProgramFile:
        if self.entry is None:
            return self.files[0]
        for program_file in self.files:
            if program_file.path == self.entry:
                return program_file
        raise ValueError(f"entry {self.entry!r} is not one of the program's files")

    @classmethod
    def single(cls, language: Language | str, source: str, filename: str | None = None, **kw: Any) -> Program:
        """A one-file program in ``language`` (its registry name: an upstream spelling such as "c++" goes
        through ``sandboxes.languages.parse_language`` first); the file name defaults to the language
        spec's (chosen by the sandbox)."""
        files = (ProgramFile(path=filename or "main", content=source),)
        return cls(language=Language(language), files=files, **kw)


_DR_KEY = re.compile(r"^(?P<compiler>g\+\+|clang\+\+)-C\+\+(?P<std>\d\d)--(?P<opt>O[0-3s])$")


class ExecutionSetting(Frozen):
    """How to build the program: compiler, standard, optimisation and extra flags."""

    compiler: str | None = Field(
        default=None, description="e.g. 'g++', 'clang++', 'clang++-19'; None: spec default"
    )
    standard: str | None = Field(default=None, description="e.g. 'c++11', 'c11'")
    optimization: str | None = Field(default=None, description="one of O0 O1 O2 O3 Os")
    extra_flags: tuple[str, ...] = ()
    source_paths: Literal["absolute", "relative"] = Field(
        default="absolute",
        description="how sources are named on the compile line, which diagnostics quote: bg's labels show "
        "'/app/test.cpp:12:25', dr's show 'test.cpp:8:19' (compiled inside /app under a relative name)",
    )

    @field_validator("optimization")
    @classmethod
    def _known_level(cls, level: str | None) -> str | None:
        if level is not None and level not in {"O0", "O1", "O2", "O3", "Os"}:
            raise ValueError(f"optimization must be one of O0 O1 O2 O3 Os, not {level!r}")
        return level

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def setting_id(self) -> str:
        return content_id(
            "setting", self.compiler, self.standard, self.optimization, self.extra_flags, self.source_paths
        )

    @classmethod
    def from_surge_key(cls, key: str) -> ExecutionSetting:
        """Parse SURGE dr's ``custom_features.key``, e.g. ``clang++-C++11--O1``."""
        match = _DR_KEY.match(key.strip())
        if match is None:
            raise ValueError(f"not a SURGE dr setting key (want e.g. 'g++-C++14--O2'): {key!r}")
        return cls(
            compiler=match["compiler"],
            standard=f"c++{match['std']}",
            optimization=match["opt"],
            source_paths="relative",
        )


class PhaseLimits(Frozen):
    # Finite only: an infinite limit is no limit, and no sandbox can set it.
    cpu_s: float = Field(default=10.0, gt=0, allow_inf_nan=False)
    wall_s: float = Field(default=20.0, gt=0, allow_inf_nan=False)
    memory_mib: int = Field(default=1024, gt=0)
    processes: int = Field(default=64, gt=0)
    output_bytes: int = Field(default=1 << 20, gt=0, description="per stream; the rest is cut and flagged")
    file_size_bytes: int = Field(default=64 << 20, gt=0)


class Limits(Frozen):
    """Limits applied to each phase separately."""

    compile: PhaseLimits = PhaseLimits(cpu_s=30.0, wall_s=60.0, memory_mib=2048)
    run: PhaseLimits = PhaseLimits()


class EnvironmentProfile(Frozen):
    """A named execution environment: what a label depends on besides the program."""

    name: str
    description: str = ""
    locale: str = "C.UTF-8"
    timezone: str = "UTC"
    toolchains: dict[str, str] = Field(
        default_factory=dict,
        description="language or tool -> executable, e.g. {'cpp': 'g++-12', 'python': 'python3.9'}",
    )
    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables")
    image: str | None = Field(default=None, description="Docker image for this profile, where one exists")

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def profile_id(self) -> str:
        return content_id(
            "profile", self.name, self.locale, self.timezone, self.toolchains, self.env, self.image
        )


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


class Verdict(StrEnum):
    """One closed set. SANDBOX_ERROR means *we* failed, never the program."""

    OK = "ok"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"  # exited non-zero
    SIGNAL = "signal"  # killed by a signal we did not send
    CPU_TIME_LIMIT = "cpu_time_limit"
    WALL_TIME_LIMIT = "wall_time_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    TOOLCHAIN_MISSING = "toolchain_missing"
    SANDBOX_ERROR = "sandbox_error"


Stream = Literal["stdout", "stderr"]
STREAMS: tuple[Stream, ...] = ("stdout", "stderr")


class PhaseResult(Frozen):
    """Raw facts of one phase (compile or run), then the one verdict derived from them.

    ``stdout``/``stderr`` are text. A program may write bytes that are not UTF-8: the text then shows
    U+FFFD in their place, and ``stdout_bytes``/``stderr_bytes`` keep what was written, so two outputs
    that decode alike (``A\\xff\\xfeB`` and ``A\\ufffd\\ufffdB``) stay two facts."""

    # bytes travel through JSON (the review queue, the Prefect-free manifests) as base64
    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    command: tuple[str, ...] = ()
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: bytes | None = Field(
        default=None, description="the raw bytes, when they are not valid UTF-8; None: `stdout` is exact"
    )
    stderr_bytes: bytes | None = Field(
        default=None, description="the raw bytes, when they are not valid UTF-8; None: `stderr` is exact"
    )
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    exit_code: int | None = None
    signal: str | None = Field(default=None, description="e.g. 'SIGSEGV'")
    cpu_user_s: float = 0.0
    cpu_sys_s: float = 0.0
    wall_s: float = 0.0
    setup_wall_s: float | None = Field(
        default=None,
        description="a compile's wall seconds beyond wall_s on work a cold compile does not do: a compiler's "
        "seed, a warm server's start, a warm answer checked against the cold one or thrown away, the workdir "
        "handed to the server and back; None: a compile with neither seed nor server (or a row stored "
        "before it was measured)",
    )
    max_rss_kib: int = 0
    verdict: Verdict
    detail: str = Field(default="", description="why, for verdicts the streams do not explain")

    @property
    def held_s(self) -> float:
        """The wall time the phase held its core: its own, and its runner's setup for it."""
        return self.wall_s + (self.setup_wall_s or 0.0)

    def raw(self, stream: Stream) -> bytes:
        """What the program wrote on ``stream``, byte for byte."""
        kept: bytes | None = getattr(self, f"{stream}_bytes")
        return kept if kept is not None else getattr(self, stream).encode("utf-8")

    def exact(self, stream: Stream) -> bool:
        """Is the text of ``stream`` exactly what was written (valid UTF-8, nothing replaced)?"""
        return getattr(self, f"{stream}_bytes") is None


COMPILE_ERROR_PREFIX = "Compilation Error: "
STORED_ROW = "stored_row"  # validation context key: the row as stored (pipeline/schema.py from_row)


LabelPiece = tuple[PhaseResult, Stream]


def label_pieces(
    protocol: LabelProtocol, compile: PhaseResult | None, run: PhaseResult | None
) -> tuple[str, list[LabelPiece]]:
    """What a label is composed of under ``protocol``: a fixed prefix, then phase streams in order.

    stdout: the run's stdout. compile_then_run (dr): compiler output, then the run's stdout and stderr
    (libstdc++'s `terminate called after throwing ...` ends three of SURGE's dr labels).
    combined_with_prefix (bg): 'Compilation Error: ' + compiler stderr when compiling failed, else the
    run's stdout then stderr. proof_check (fl): the check phase's stdout when Lean answered (ok or
    compile_error), else nothing. self_check: the compiler's output, then the run's stderr. A signal never
    adds shell text such as 'Segmentation fault'.
    (SURGE's conventions: shared/notes/surge-ground-truth.md.)"""
    compile_failed = compile is not None and compile.verdict is not Verdict.OK
    if protocol is LabelProtocol.COMBINED_WITH_PREFIX:
        if compile_failed and compile is not None:
            return COMPILE_ERROR_PREFIX, [(compile, "stderr")]
        return "", [(run, "stdout"), (run, "stderr")] if run else []
    if protocol is LabelProtocol.COMPILE_THEN_RUN:
        diagnostics: list[LabelPiece] = [(compile, "stdout"), (compile, "stderr")] if compile else []
        return "", diagnostics + ([(run, "stdout"), (run, "stderr")] if run else [])
    if protocol is LabelProtocol.PROOF_CHECK:
        answered = compile is not None and compile.verdict in (Verdict.OK, Verdict.COMPILE_ERROR)
        return "", [(compile, "stdout")] if answered and compile is not None else []
    if protocol is LabelProtocol.SELF_CHECK:
        shown: list[LabelPiece] = [(compile, "stdout"), (compile, "stderr")] if compile else []
        return "", shown + ([(run, "stderr")] if run else [])
    return "", [(run, "stdout")] if run else []


def compose_label(protocol: LabelProtocol, compile: PhaseResult | None, run: PhaseResult | None) -> str:
    """The label as text (``label_pieces`` says what it is made of)."""
    prefix, pieces = label_pieces(protocol, compile, run)
    return prefix + "".join(getattr(phase, stream) for phase, stream in pieces)


def compose_label_bytes(
    protocol: LabelProtocol, compile: PhaseResult | None, run: PhaseResult | None
) -> bytes | None:
    """The label as the program wrote it, when that is not exactly its text (a stream it is made of was
    not valid UTF-8); None when ``compose_label`` is exact."""
    prefix, pieces = label_pieces(protocol, compile, run)
    if all(phase.exact(stream) for phase, stream in pieces):
        return None
    return _joined_bytes(prefix, pieces)


def raw_label(protocol: LabelProtocol, compile: PhaseResult | None, run: PhaseResult | None) -> bytes:
    """The label byte for byte, whether or not its text is exact."""
    return _joined_bytes(*label_pieces(protocol, compile, run))


def _joined_bytes(prefix: str, pieces: list[LabelPiece]) -> bytes:
    # an exact stream's bytes are its text's, so this is the text's encoding whenever the text is exact
    return prefix.encode("utf-8") + b"".join(phase.raw(stream) for phase, stream in pieces)


# What may differ between the repeats of a run phase, in the order a row names them (``varied``).
RepeatPart = Literal["stdout", "stderr", "exit_code", "signal", "verdict"]
ENDINGS: tuple[RepeatPart, ...] = ("exit_code", "signal", "verdict")


class Repeats(NamedTuple):
    """What the repeats of one run phase showed: how many distinct outcomes, which parts varied, and the
    first repeat of each outcome after the first one's (``RunResult.other_runs``)."""

    distinct: int
    varied: tuple[RepeatPart, ...]
    others: tuple[PhaseResult, ...]


AGREED = Repeats(1, (), ())


def compare_repeats(protocol: LabelProtocol, compile: PhaseResult | None, runs: list[PhaseResult]) -> Repeats:
    """The outcomes of the repeats of one run phase, and which parts varied between them.

    An outcome is everything the row claims: the label as composed under ``protocol``, byte for byte,
    and how the run ended (exit status, signal, verdict). A stream the protocol leaves out of the label
    (stderr under ``stdout``) may vary without making the label non-deterministic; an exit status, a
    signal or a verdict (a timeout on some repeats) may not, whatever the protocol."""
    if len(runs) <= 1:  # one run agrees with itself: its label need not be composed twice
        return AGREED
    first_of_outcome: dict[tuple[object, ...], PhaseResult] = {}
    for run in runs:
        outcome = (raw_label(protocol, compile, run), *(getattr(run, part) for part in ENDINGS))
        first_of_outcome.setdefault(outcome, run)
    if len(first_of_outcome) <= 1:
        return AGREED
    labels_differ = len({outcome[0] for outcome in first_of_outcome}) > 1
    in_label = {
        stream for run in runs for phase, stream in label_pieces(protocol, compile, run)[1] if phase is run
    }
    varied: list[RepeatPart] = [
        stream
        for stream in STREAMS
        if labels_differ and stream in in_label and len({run.raw(stream) for run in runs}) > 1
    ]
    varied += [part for part in ENDINGS if len({getattr(run, part) for run in runs}) > 1]
    return Repeats(len(first_of_outcome), tuple(varied), tuple(first_of_outcome.values())[1:])


class Provenance(Frozen):
    backend: str = Field(
        description="the backend's name as run ids record it (sandboxes/backends/registry.py)"
    )
    profile: str
    toolchain_versions: dict[str, str] = Field(default_factory=dict)
    image_digest: str | None = None
    limits: Limits
    host: str
    started_at: datetime
    pipeline_version: str


class RunResult(Frozen):
    """One program under one setting and profile: compile and run phases kept apart."""

    run_id: str
    program_id: str
    setting_id: str
    profile_id: str
    language: Language
    setting: ExecutionSetting
    compile: PhaseResult | None = Field(default=None, description="None for interpreted languages")
    run: PhaseResult | None = Field(default=None, description="None when compiling failed")
    verdict: Verdict
    protocol: LabelProtocol = Field(
        default=LabelProtocol.STDOUT,
        description="how `label` is composed from the phases: the program's protocol (proof_check for Lean)",
    )
    repeats: int = Field(default=1, description="how many times the run phase was executed")
    distinct_outputs: int = Field(
        default=1,
        description="how many different outcomes the repeats had: the composed label (byte for byte), exit "
        "status, signal and verdict; >1 means not deterministic, and `varied` says what differed. The "
        "phases and verdict stored are the first repeat's",
    )
    varied: tuple[RepeatPart, ...] = Field(
        default=(),
        description="what differed between repeats: stdout, stderr (when the label is made of them), "
        "exit_code, signal, verdict; empty when the repeats agreed",
    )
    other_runs: tuple[PhaseResult, ...] = Field(
        default=(),
        description="the run phase of the first repeat of each outcome other than the first repeat's, so "
        "that what varied can be read (a self-check is judged on each repeat's check); empty when the "
        "repeats agreed, and in rows before schema 5",
    )
    origin: dict[str, str] = Field(default_factory=dict)
    provenance: Provenance

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def label(self) -> str:
        """The label, composed from the recorded phases after the run (never captured interleaved)."""
        return compose_label(self.protocol, self.compile, self.run)

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def label_bytes(self) -> bytes | None:
        """The label as the program wrote it, when a stream it is made of was not valid UTF-8 (``label``
        then shows U+FFFD in place of those bytes); None when ``label`` is exact."""
        return compose_label_bytes(self.protocol, self.compile, self.run)

    @classmethod
    def answering(cls, request: RunRequest, **fields: Any) -> RunResult:
        """The result of `request`: its ids, language and setting, plus the given phases and facts."""
        return cls(
            run_id=request.run_id,
            program_id=request.program.program_id,
            setting_id=request.setting.setting_id,
            profile_id=request.profile.profile_id,
            language=request.program.language,
            setting=request.setting,
            **fields,
        )

    @model_validator(mode="before")
    @classmethod
    def _protocol_of_old_rows(cls, data: Any, info: ValidationInfo) -> Any:
        """Parts before schema 3 stored the composed label, not the protocol (pipeline/store.py): such a
        row gets the first protocol that composes its stored label again, so its label reads unchanged."""
        stored = (info.context or {}).get(STORED_ROW)
        if not isinstance(data, dict) or data.get("protocol") is not None or not stored:
            return data
        if stored.get("label") is None:
            return data
        phases = [PhaseResult.model_validate(data[k]) if data.get(k) else None for k in ("compile", "run")]
        for protocol in LabelProtocol:
            if compose_label(protocol, *phases) == stored["label"]:
                return {**data, "protocol": protocol}
        raise ValueError(f"no label protocol composes the stored label of run {data.get('run_id')}")

    @model_validator(mode="before")
    @classmethod
    def _varied_of_old_rows(cls, data: Any, info: ValidationInfo) -> Any:
        """Parts before schema 4 have no ``varied``: they counted distinct stdouts only, so what varied in
        a row they call non-deterministic was its stdout (and nothing else was compared)."""
        stored = (info.context or {}).get(STORED_ROW)
        if not isinstance(data, dict) or not stored or data.get("varied") is not None:
            return data
        return {**data, "varied": ("stdout",) if (data.get("distinct_outputs") or 1) > 1 else ()}

    @model_validator(mode="before")
    @classmethod
    def _other_runs_of_old_rows(cls, data: Any, info: ValidationInfo) -> Any:
        """Parts before schema 5 kept the first repeat only: no other run to read."""
        stored = (info.context or {}).get(STORED_ROW)
        if not isinstance(data, dict) or not stored or data.get("other_runs") is not None:
            return data
        return {**data, "other_runs": ()}

    @property
    def deterministic(self) -> bool:
        return self.distinct_outputs <= 1

    @property
    def held_s(self) -> float:
        """The wall time the run held its core: its compile (with its runner's setup for it) and each
        repeat of its run (a row keeps the first repeat's)."""
        compile_s = self.compile.held_s if self.compile is not None else 0.0
        return compile_s + (self.run.wall_s * self.repeats if self.run is not None else 0.0)

    @property
    def outcome(self) -> tuple[bytes, Verdict, int | None, str | None]:
        """What two runs of one request must share to agree (as repeats do, ``compare_repeats``): the
        label byte for byte, the verdict, and the run's exit status and signal."""
        run = self.run
        ending = (run.exit_code, run.signal) if run else (None, None)
        return (raw_label(self.protocol, self.compile, run), self.verdict, *ending)

    @property
    def answers(self) -> str:
        """What the result answers, whatever limits, repeats or backend it ran under."""
        return answer_key(self.program_id, self.setting_id, self.profile_id)


def joined_parts(parts: Sequence[RunResult]) -> RunResult:
    """One result for a question whose repeats ran as single requests (``RunRequest.part``), as one
    request of ``len(parts)`` repeats would have said it: the first part's phases and verdict, every
    part's run compared with ``compare_repeats`` (under the first part's compile, as a runner compares its
    repeats under its one compile). Parts that did not all reach their run (a compile that failed in one
    part only) are compared by how each ended."""
    first = parts[0]
    runs = [part.run for part in parts if part.run is not None]
    if len(runs) == len(parts):
        repeats = compare_repeats(first.protocol, first.compile, runs)
    else:
        outcomes = len({part.outcome for part in parts})
        varied: tuple[RepeatPart, ...] = ("verdict",) if outcomes > 1 else ()
        repeats = Repeats(outcomes, varied, ())
    return first.model_copy(
        update={
            "repeats": len(parts),
            "distinct_outputs": repeats.distinct,
            "varied": repeats.varied,
            "other_runs": repeats.others,
        }
    )


def answer_key(program_id: str, setting_id: str, profile_id: str) -> str:
    """(program, setting, profile): the question a run answers; the run id adds how it was run."""
    return content_id("answers", program_id, setting_id, profile_id)


RUN_ID_RULE = 2  # 1: program + setting + profile; 2: + limits, repeats, backend and toolchain identity


def run_id_for(
    program: Program,
    setting: ExecutionSetting,
    profile: EnvironmentProfile,
    limits: Limits | None = None,
    repeats: int = 1,
    backend: str | None = None,
    toolchain_id: str = "",
    part: int = 0,
) -> str:
    """Everything that determines a result: a change of limits, repeats, backend, compiler
    version or image makes a new run instead of "already in the store". No backend: the default one.
    ``part``: which execution of a question run as single requests (``RunRequest.part``); the first
    (0) is hashed as before, so it is the very run a single-run round made."""
    return content_id(
        "run",
        RUN_ID_RULE,
        program.program_id,
        setting.setting_id,
        profile.profile_id,
        (limits or Limits()).model_dump(mode="json"),
        repeats,
        backend or default_backend(),
        toolchain_id,
        *([part] if part else []),
    )


def default_backend() -> str:
    """The backend a request is planned for until sandboxes.identity says otherwise (a word of the shared
    vocabulary, pipeline/vocabulary.py, which the backend registry reads too)."""
    return DEFAULT_BACKEND


class RunRequest(Frozen):
    """What a sandbox backend is asked to do: one program, one setting, one profile."""

    program: Program
    setting: ExecutionSetting = ExecutionSetting()
    profile: EnvironmentProfile
    limits: Limits = Limits()
    repeats: int = Field(default=1, ge=1, description="run phase repetitions, to detect non-determinism")
    backend: str = Field(
        default_factory=default_backend,
        description="the backend the run is planned for (sandboxes/backends/registry.py)",
    )
    toolchain_id: str = Field(
        default="",
        description="identity of the tools the run uses, as its backend reads it (host tool versions, "
        "an image id); filled by sandboxes.identity at planning time",
    )
    part: int = Field(
        default=0,
        ge=0,
        description="which execution of its question this is, when the repeats a question needs run as "
        "requests of their own, one repeat each, on whichever cores are free (the audit's later rounds, "
        "pipeline/audit/feed.py); 0: the first, the same run as a single request's",
    )

    @property
    def answers(self) -> str:
        """The question this request asks (``RunResult.answers`` of its result), whatever its limits,
        repeats or backend."""
        return answer_key(self.program.program_id, self.setting.setting_id, self.profile.profile_id)

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def run_id(self) -> str:
        return run_id_for(
            self.program,
            self.setting,
            self.profile,
            self.limits,
            self.repeats,
            self.backend,
            self.toolchain_id,
            self.part,
        )
