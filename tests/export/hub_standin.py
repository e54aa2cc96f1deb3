"""A local stand-in for the Hugging Face Hub: the parts of its HTTP API that ``HfApi.create_repo``,
``create_branch``, ``list_repo_files`` and ``create_commit`` use (read from huggingface_hub's
``hf_api.py`` and ``_commit_api.py``), on 127.0.0.1, keeping what it receives so a test can check it.

    POST /api/repos/create                        {"name", "organization", "type"} -> {"url"}; 409 (+ url)
    POST /api/datasets/{repo}/branch/{branch}     {"startingPoint"?} -> {}; 409 if it exists
    GET  /api/datasets/{repo}/tree/{revision}     ?recursive -> [{"type": "file", "path", "size", "oid"}]
    POST /api/validate-yaml                       {"content", "repoType"} -> {"warnings"}; 400 {"errors"}
    POST /api/datasets/{repo}/preupload/{rev}     {"files": [{"path", "sample", "size"}]} -> upload modes
    POST /api/datasets/{repo}/commit/{revision}   NDJSON: a header line, then file / deletedFile lines

Every file is uploaded "regular" (base64 inside the commit): the LFS and Xet transfer protocols are not
spoken, so tests keep their files small. Every request must carry ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml  # type: ignore[import-untyped]

from pipeline.export.metadata import metadata_problems

GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"  # what a new Hub repository starts with


@dataclass
class Commit:
    oid: str
    message: str
    files: dict[str, bytes]
    parent: str | None


@dataclass
class Repo:
    kind: str
    branches: dict[str, str] = field(default_factory=dict)  # branch -> commit oid
    commits: dict[str, Commit] = field(default_factory=dict)

    def commit(self, branch: str, message: str, files: dict[str, bytes]) -> Commit:
        parent = self.branches.get(branch)
        oid = hashlib.sha1(f"{parent}{message}{sorted(files.items())}".encode()).hexdigest()
        self.commits[oid] = Commit(oid, message, files, parent)
        self.branches[branch] = oid
        return self.commits[oid]

    def files(self, revision: str) -> dict[str, bytes]:
        return dict(self.commits[self.branches[revision]].files)


class HubStandIn:
    """``with HubStandIn(token) as hub:`` serves on ``hub.url`` until the block ends."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.repos: dict[str, Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> HubStandIn:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(hub: HubStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:  # quiet: the test reads hub.requests instead
            pass

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def _route(self, method: str) -> None:
            path = urlsplit(self.path).path
            hub.requests.append((method, path))
            if self.headers.get("Authorization") != f"Bearer {hub.token}":
                return self._reply(401, {"error": "Invalid credentials in Authorization header"})
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            parts = [unquote(part) for part in path.strip("/").split("/")]
            if method == "POST" and parts == ["api", "repos", "create"]:
                return self._create(json.loads(body))
            if method == "POST" and parts == ["api", "validate-yaml"]:
                return self._validate(json.loads(body))
            if len(parts) >= 6 and parts[:2] == ["api", "datasets"]:
                repo_id, action, revision = f"{parts[2]}/{parts[3]}", parts[4], "/".join(parts[5:])
                if repo_id not in hub.repos:
                    return self._reply(404, {"error": "Repository not found"})
                return self._repo(method, hub.repos[repo_id], repo_id, action, revision, body)
            return self._reply(404, {"error": f"the stand-in does not speak {method} {path}"})

        def _create(self, payload: dict[str, Any]) -> None:
            repo_id = f"{payload['organization']}/{payload['name']}"
            url = f"{hub.url}/datasets/{repo_id}"
            if repo_id in hub.repos:  # create_repo(exist_ok=True) reads the url from the 409's body too
                return self._reply(409, {"error": "You already created this dataset repo", "url": url})
            repo = hub.repos[repo_id] = Repo(kind=payload.get("type") or "model")
            repo.commit("main", "initial commit", {".gitattributes": GITATTRIBUTES})
            self._reply(200, {"url": url})

        def _validate(self, payload: dict[str, Any]) -> None:
            content = payload["content"]
            header = content.split("---\n", 2)[1] if content.startswith("---\n") else ""
            problems = metadata_problems(yaml.safe_load(header) or {})
            if problems:
                return self._reply(400, {"errors": [{"message": problem} for problem in problems]})
            self._reply(200, {"warnings": []})

        def _repo(
            self, method: str, repo: Repo, repo_id: str, action: str, revision: str, body: bytes
        ) -> None:
            if action == "branch" and method == "POST":
                if revision in repo.branches:
                    return self._reply(409, {"error": "Branch already exists"})
                start = (json.loads(body or b"{}") or {}).get("startingPoint", "main")
                repo.branches[revision] = repo.branches[start]
                return self._reply(200, {})
            if revision not in repo.branches:
                return self._reply(404, {"error": f"Invalid rev id: {revision}"})
            if action == "tree" and method == "GET":
                files = repo.files(revision)
                listing = [
                    {"type": "file", "path": p, "size": len(b), "oid": hashlib.sha1(b).hexdigest()}
                    for p, b in sorted(files.items())
                ]
                return self._reply(200, listing)
            if action == "preupload" and method == "POST":
                wanted = json.loads(body)["files"]
                modes = [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in wanted]
                return self._reply(200, {"files": modes})
            if action == "commit" and method == "POST":
                return self._commit(repo, repo_id, revision, body)
            return self._reply(404, {"error": f"the stand-in does not speak {method} {action}"})

        def _commit(self, repo: Repo, repo_id: str, revision: str, body: bytes) -> None:
            lines = [json.loads(line) for line in body.splitlines() if line.strip()]
            header, operations = lines[0], lines[1:]
            files = repo.files(revision)
            for operation in operations:
                value = operation["value"]
                if operation["key"] == "file":
                    files[value["path"]] = base64.b64decode(value["content"])
                elif operation["key"] == "deletedFile":
                    files.pop(value["path"], None)
                else:
                    return self._reply(400, {"error": f"the stand-in takes no {operation['key']} operation"})
            commit = repo.commit(revision, header["value"]["summary"], files)
            url = f"{hub.url}/datasets/{repo_id}/commit/{commit.oid}"
            self._reply(200, {"commitUrl": url, "commitOid": commit.oid, "pullRequestUrl": None})

        def _reply(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
