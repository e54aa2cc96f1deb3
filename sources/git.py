"""Pull a source: clone or fetch with gitpython, check out the pinned commit, fetch LFS files, read items.

Reproducible and offline-friendly: the checkout lives in a cache folder (default
``.surge/sources/<name>``), a commit already in the cache is checked out without touching the network,
and ``mirror`` (a local clone's path or a ``file://`` URL) replaces the upstream URL. Checkouts never
run the LFS smudge filter: pointer files are found explicitly and fetched with ``git lfs pull``, or the
pull stops with the exact command to run: a pointer is never parsed as data.

Only what a source reads is checked out: the clone is partial where the remote allows it
(``--filter=blob:none``: blobs arrive when checked out), and a sparse checkout holds only the source
spec's ``paths``. So LeetCode's images, McEval's zip archives and DebugBench's construction files are
neither downloaded nor needed: a mirror that lacks those blobs still pulls. The checked-out commit is
verified against the pinned one after the checkout.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import git

from pipeline.errors import SourceError
from pipeline.records import QuarantinedRecord, SourceItem
from sources.base import DEFAULT_CACHE, PullRecord, Source, is_lfs_pointer_file, matching_files

NO_SMUDGE = {"GIT_LFS_SKIP_SMUDGE": "1", "GIT_TERMINAL_PROMPT": "0"}  # never block on a password prompt
FULL_SHA_CHARS = 40


@dataclass
class PullOutcome:
    record: PullRecord
    items: list[SourceItem]
    quarantined: list[QuarantinedRecord]


def git_message(error: git.GitCommandError) -> str:
    """The git command's own stderr, without gitpython's "stderr: '...'" wrapping."""
    text = str(error.stderr or error).strip()
    return text.removeprefix("stderr:").strip().strip("'").strip()


def resolve_url(source: Source, mirror: str | Path | None) -> str:
    """The URL to clone from: the mirror (a local path or any git URL) if given, else upstream."""
    if mirror is None:
        return source.url
    text = str(mirror)
    if "://" in text or text.startswith("git@"):
        return text
    path = Path(text).expanduser().resolve()
    if not path.exists():
        raise SourceError(
            f"mirror {text!r} for {source.name} does not exist", hint="pass a local clone or a URL"
        )
    return str(path)


def open_checkout(folder: Path, url: str) -> git.Repo:
    """The cached clone at ``folder`` (its origin pointed at ``url``), cloned first if absent."""
    if folder.exists() and any(folder.iterdir()):
        try:
            repo = git.Repo(folder)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise SourceError(
                f"{folder} exists but is not a git checkout",
                hint=f"remove it (rm -r {folder}) and pull again",
            ) from None
        repo.git.update_environment(**NO_SMUDGE)
        repo.remotes.origin.set_url(url)
        return repo
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        # A server that does not support filters says so and sends everything; a local path is linked.
        repo = git.Repo.clone_from(url, folder, no_checkout=True, filter="blob:none", env=NO_SMUDGE)
    except git.GitCommandError as error:
        raise SourceError(
            f"cannot clone {url}: {git_message(error)}",
            hint="check the network, or pass --mirror with a local clone or file:// URL of the repository",
        ) from None
    repo.git.update_environment(**NO_SMUDGE)
    return repo


def has_commit(repo: git.Repo, revision: str) -> str | None:
    """The full sha if the commit object is really here (gitpython's ``repo.commit`` trusts any 40-hex
    string without looking, so a made-up pinned sha passed until the checkout failed)."""
    try:
        return repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}") or None
    except git.GitCommandError:
        return None


def resolve_commit(repo: git.Repo, source: Source, url: str) -> str:
    """The full sha to check out: the pinned commit (fetched only if the cache lacks it), or origin's HEAD."""
    if source.commit is not None and (sha := has_commit(repo, source.commit)):
        return sha
    try:
        repo.remotes.origin.fetch()
        if source.commit is None:
            repo.git.remote("set-head", "origin", "--auto")
            return repo.commit("origin/HEAD").hexsha
    except git.GitCommandError as error:
        raise SourceError(
            f"cannot fetch {url} for {source.name}: {git_message(error)}",
            hint="check the network, or pass --mirror with a local clone that contains the pinned commit",
        ) from None
    if len(source.commit) == FULL_SHA_CHARS and not has_commit(repo, source.commit):
        # a pinned commit no branch reaches any more; servers may refuse to serve it by sha
        with contextlib.suppress(git.GitCommandError):
            repo.git.fetch("origin", source.commit)
    sha = has_commit(repo, source.commit)
    if sha is None:
        raise SourceError(
            f"commit {source.commit} of {source.name} is not in {url}",
            hint=f"use a mirror that contains it (git -C <mirror> fetch {source.url} {source.commit})",
        )
    return sha


def lfs_pointers(paths: list[Path]) -> list[Path]:
    return [path for path in paths if is_lfs_pointer_file(path)]


def fetch_lfs_files(repo: git.Repo, checkout: Path, source: Source) -> int:
    """Replace LFS pointers among the source's files with their content; return how many there were."""
    pointers = lfs_pointers(matching_files(checkout, source.paths))
    if not pointers:
        return 0
    include = ",".join(source.paths)
    command = f'git -C {checkout} lfs pull --include="{include}"'
    if shutil.which("git-lfs") is None:
        raise SourceError(
            f"{len(pointers)} files of {source.name} are Git LFS pointers (e.g. {pointers[0].name}) "
            "and git-lfs is not installed",
            hint=f"install git-lfs (apt-get install git-lfs), then run: {command}",
        )
    try:
        # git lfs pull only writes files into a repository with its hooks; --skip-smudge keeps
        # ordinary checkouts from downloading anything behind our back.
        repo.git.lfs("install", "--local", "--skip-smudge")
        repo.git.lfs("pull", f"--include={include}")
    except git.GitCommandError as error:
        raise SourceError(
            f"git lfs pull failed for {source.name}: {git_message(error)}",
            hint=f"make sure the remote serves LFS objects, then run: {command}",
        ) from None
    left = lfs_pointers(pointers)  # git lfs pull only rewrites these: no need to walk the tree again
    if left:
        raise SourceError(
            f"{len(left)} files of {source.name} are still LFS pointers after git lfs pull "
            f"(e.g. {left[0].name})",
            hint=f"the remote lacks their LFS objects; fetch them from upstream, then run: {command}",
        )
    return len(pointers)


def sparse_patterns(globs: tuple[str, ...]) -> list[str]:
    """The source's globs as sparse-checkout patterns, anchored at the repository root."""
    return [glob if glob.startswith("**") else "/" + glob.lstrip("/") for glob in globs]


def checkout_source(
    source: Source, cache_root: Path, mirror: str | Path | None = None
) -> tuple[Path, str, str, int]:
    """Check out the source's pinned commit in its cache folder: (folder, sha, url, LFS files fetched)."""
    url = resolve_url(source, mirror)
    folder = (cache_root / source.name).resolve()
    repo = open_checkout(folder, url)
    sha = resolve_commit(repo, source, url)
    try:
        repo.git.sparse_checkout("set", "--no-cone", *sparse_patterns(source.paths))
        repo.git.checkout("--detach", "--force", sha)
        repo.git.clean("-ffdx")  # leftovers from an earlier revision must not become items
    except git.GitCommandError as error:
        raise SourceError(
            f"cannot check out {sha} of {source.name} in {folder}: {git_message(error)}",
            hint=f"the mirror must hold the files {', '.join(source.paths)} at that commit; or remove the "
            f"cached checkout (rm -r {folder}) and pull again",
        ) from None
    checked_out = repo.head.commit.hexsha
    if checked_out != sha:
        raise SourceError(
            f"{source.name}: checked out {checked_out}, not the pinned {sha}",
            hint=f"remove the cached checkout (rm -r {folder}) and pull again",
        )
    return folder, sha, url, fetch_lfs_files(repo, folder, source)


def pull_source(
    source: Source, cache_root: Path = DEFAULT_CACHE, mirror: str | Path | None = None
) -> PullOutcome:
    """Check out a source at its pinned commit and read it: items, quarantined records and a pull record."""
    started = time.perf_counter()
    folder, sha, url, lfs_files = checkout_source(source, cache_root, mirror)
    items: list[SourceItem] = []
    quarantined: list[QuarantinedRecord] = []
    for loaded in source.read(folder, sha):
        if isinstance(loaded, SourceItem):
            items.append(loaded)
        else:
            quarantined.append(loaded)
    record = PullRecord(
        source=source.name,
        url=url,
        requested_commit=source.commit,
        commit=sha,
        items=len(items),
        quarantined=len(quarantined),
        lfs_files=lfs_files,
        checkout=str(folder),
        pulled_at=datetime.now(UTC),
        duration_s=round(time.perf_counter() - started, 3),
    )
    return PullOutcome(record=record, items=items, quarantined=quarantined)
