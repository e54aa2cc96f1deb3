"""`surge export --format hf --push REPO`: the finished export as one commit of a Hub dataset repository.

The commit holds the export and nothing else: files of an earlier push that this export does not write (a
subset left out this time) are deleted in the same commit, as ``--overwrite`` replaces a local export
whole; ``.gitattributes`` stays, the Hub needs it. ``revision`` names a branch: created from ``main`` the
first time, committed to after that, so one repository holds a revision per build (``load_dataset(REPO,
revision=NAME)``) and ``main`` moves only when it is pushed to.

The endpoint is ``HF_ENDPOINT`` read when the push starts (huggingface_hub reads it once, at import), the
token ``HF_TOKEN`` or the one ``hf auth login`` stored; both are checked before any work.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx  # huggingface_hub's HTTP client: a refused connection or a timeout arrives as its error
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, get_token
from huggingface_hub.errors import HfHubHTTPError, HFValidationError
from huggingface_hub.utils import validate_repo_id
from pydantic import Field

from pipeline.errors import ConfigurationError
from pipeline.records import Frozen

DEFAULT_ENDPOINT = "https://huggingface.co"
MAIN = "main"
KEPT_REMOTE = frozenset({".gitattributes"})
# What a push can meet that is not a bug of ours: the Hub answering an error (a token without write access,
# a YAML it refuses), no connection, a file gone from OUT.
PUSH_FAILURES: tuple[type[Exception], ...] = (HfHubHTTPError, httpx.HTTPError, OSError, ValueError)


class HubTarget(Frozen):
    """Where a push goes, checked before the export is written."""

    repo_id: str = Field(description="owner/name of the dataset repository")
    revision: str = Field(default=MAIN, description="the branch the commit goes to")
    endpoint: str = Field(description="the Hub's URL: HF_ENDPOINT, else huggingface.co")
    token: str = Field(repr=False, description="the write token")


class PushResult(Frozen):
    repo_id: str
    revision: str
    commit: str = Field(description="the new commit's id on the Hub")
    url: str
    uploaded: int = Field(description="files the commit adds or replaces")
    deleted: int = Field(description="files of an earlier push the commit removes")


def hub_target(repo_id: str, revision: str | None) -> HubTarget:
    """The push's target, or a ConfigurationError naming the fix (refused before any work)."""
    try:
        validate_repo_id(repo_id)
    except HFValidationError as error:
        raise ConfigurationError(
            f"--push {repo_id!r} is not a Hub repository id: {error}", hint="pass --push OWNER/NAME"
        ) from None
    if "/" not in repo_id:
        raise ConfigurationError(f"--push {repo_id!r} names no owner", hint="pass --push OWNER/NAME")
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise ConfigurationError("--push with HF_HUB_OFFLINE set", hint="unset HF_HUB_OFFLINE to push")
    endpoint = os.environ.get("HF_ENDPOINT", "").rstrip("/") or DEFAULT_ENDPOINT
    token = get_token()
    if not token:
        raise ConfigurationError(
            f"--push needs a Hugging Face token with write access to {endpoint}",
            hint="set HF_TOKEN=hf_... or run `hf auth login`",
        )
    return HubTarget(repo_id=repo_id, revision=revision or MAIN, endpoint=endpoint, token=token)


def local_files(folder: Path) -> dict[str, Path]:
    return {path.relative_to(folder).as_posix(): path for path in sorted(folder.rglob("*")) if path.is_file()}


def push_export(folder: Path, target: HubTarget, message: str) -> PushResult:
    """Create the repository if needed (and the branch), then commit ``folder`` as its whole content."""
    api = HfApi(endpoint=target.endpoint, token=target.token)
    api.create_repo(target.repo_id, repo_type="dataset", exist_ok=True)
    if target.revision != MAIN:
        api.create_branch(target.repo_id, repo_type="dataset", branch=target.revision, exist_ok=True)
    files = local_files(folder)
    remote = api.list_repo_files(target.repo_id, repo_type="dataset", revision=target.revision)
    stale = [path for path in remote if path not in files and path not in KEPT_REMOTE]
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationDelete(path_in_repo=path) for path in stale
    ]
    operations += [CommitOperationAdd(path_in_repo=name, path_or_fileobj=src) for name, src in files.items()]
    info = api.create_commit(
        target.repo_id,
        operations=operations,
        commit_message=message,
        repo_type="dataset",
        revision=target.revision,
    )
    return PushResult(
        repo_id=target.repo_id,
        revision=target.revision,
        commit=info.oid,
        url=info.commit_url,
        uploaded=len(files),
        deleted=len(stale),
    )
