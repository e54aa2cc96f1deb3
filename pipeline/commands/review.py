"""surge review: the human review queue (list, show, approve, reject, edit in $EDITOR, serve, export)."""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pipeline.commands.common import DEFAULT_REVIEW_DB, access_token, add_backend_argument, port_number
from pipeline.errors import ConfigurationError, InputError

OLD_DEFAULT_DB = Path(".surge/review.db")  # the default before it became the default store's queue

HELP = (
    "review refactored programs: list, show, approve, reject, edit ($EDITOR), serve a page, export a ledger"
)
EXAMPLE = "surge review list --state pending --db .surge/store/review.db"
DEFAULT_PORT = 8765
TOKEN_BYTES = 24  # 192 random bits, 32 URL-safe characters


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=["list", "show", "approve", "reject", "edit", "serve", "export", "verify"],
        help="what to do (serve: local web page; export: ledger; verify: ledger vs current items)",
    )
    parser.add_argument(
        "entry",
        nargs="?",
        help="entry id or a unique prefix (show/approve/reject/edit); items JSONL or store folder (verify)",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=DEFAULT_REVIEW_DB,
        help=f"review queue (default: {DEFAULT_REVIEW_DB}, the one `surge build` fills in the default store)",
    )
    parser.add_argument("--state", default=None, help="list only this state (pending, approved, edited, ...)")
    parser.add_argument("--reviewer", default=None, help="your name on decisions (default: $USER)")
    parser.add_argument("--reason", default="", help="why a program is rejected (required by reject)")
    parser.add_argument(
        "--difficulty",
        type=int,  # 1-5, checked by the queue with the reason
        default=None,
        help="approve/edit a rated (cl) item with this 1-5 difficulty (default: the LLM's proposal)",
    )
    parser.add_argument(
        "--ledger", type=Path, default=None, help="ledger JSONL to write (export) or read (verify)"
    )
    parser.add_argument(
        "--programs", type=Path, default=None, help="with export: also write a `surge run` input"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="serve: address to bind (default: %(default)s, local only; any other needs a token, printed "
        "at start)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help="serve: port 0-65535 (default: %(default)s; 0: any free)",
    )
    parser.add_argument(
        "--token",
        type=access_token,
        default=None,
        help="serve: the token every request must carry (default: a random one beyond loopback, none on it)",
    )
    add_backend_argument(parser)  # the sandbox that re-executes edited programs
    parser.add_argument("--unsafe", action="store_true", help="allow re-executing without a sandbox")


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.review.queue import ReviewQueue

    if args.action != "verify" and not args.db.is_file():
        # Opening a queue creates it: a mistyped or default path would read as "0 entries" and leave an
        # empty queue beside the real one.
        old = OLD_DEFAULT_DB.is_file() and args.db == DEFAULT_REVIEW_DB
        raise ConfigurationError(
            f"no review queue at {args.db}",
            hint=f"pass --db {OLD_DEFAULT_DB}, the queue at the old default place"
            if old
            else "pass --db STORE/review.db, the queue `surge build` or `surge refactor` filled",
        )
    queue = ReviewQueue(args.db)
    reviewer = args.reviewer or os.environ.get("USER") or getpass.getuser() or "reviewer"
    action = args.action
    if action in {"show", "approve", "reject", "edit"} and not args.entry:
        raise ConfigurationError(f"`surge review {action}` needs an entry id", hint="see `surge review list`")
    if action == "list":
        return _list(queue, args.state)
    if action == "show":
        return _show(queue, args.entry)
    if action == "approve":
        return _decided(queue.approve(args.entry, reviewer, args.difficulty))
    if action == "reject":
        return _decided(queue.reject(args.entry, reviewer, args.reason))
    if action == "edit":
        return _edit(queue, args, reviewer)
    if action == "serve":
        return _serve(queue, args, reviewer)
    if action == "export":
        return _export(queue, args)
    return _verify(args)


def _list(queue: Any, state: str | None) -> dict[str, Any]:
    rows = [e.summary() for e in queue.entries(state)]
    text = [f"{'id':<17}{'state':<10}{'verdict':<16}{'leaks':<6}item"]
    text += [
        f"{r['id']:<17}{r['state']:<10}{r['verdict']:<16}{r['leaks']:<6}{r['source']}/{r['key']}"
        + (f"  ({r['failure']})" if r["failure"] else "")
        for r in rows
    ]
    counts = queue.counts()
    by_state = ", ".join(f"{count} {state}" for state, count in sorted(counts.items())) or "none"
    text.append(f"{len(rows)} entries; by state: {by_state}")
    return {"entries": rows, "counts": counts, "_text": "\n".join(text)}


def _show(queue: Any, entry_id: str) -> dict[str, Any]:
    entry = queue.get(entry_id)
    summary = entry.model_dump(mode="json")
    summary["rounds"] = queue.rounds(entry.entry_id)
    parts = [
        f"{entry.entry_id}  {entry.state.value}  {entry.source}/{entry.key}  ({entry.method} {entry.prompt})",
        f"upstream: {entry.item.upstream_repo}@{entry.item.upstream_commit[:12]} {entry.item.upstream_path}",
    ]
    if entry.program:
        parts += [f"--- program ({entry.program.entry_file.path})", entry.program.entry_file.content.rstrip()]
        if entry.program.stdin:
            parts += ["--- stdin", entry.program.stdin.rstrip()]
    if entry.run:
        parts += [f"--- run: {entry.run.verdict}", entry.run.label.rstrip()]
    parts += [f"leak warning: {leak}" for leak in entry.leaks]
    for key in ("failure", "note", "reason", "diff"):
        if value := getattr(entry, key):
            parts += [f"--- {key}", value.rstrip()]
    parts.append(f"rounds: {len(summary['rounds'])}")
    summary["_text"] = "\n".join(parts)
    return summary


def _decided(entry: Any) -> dict[str, Any]:
    return {
        "id": entry.entry_id,
        "state": entry.state.value,
        "reviewer": entry.reviewer,
        "difficulty": entry.extra.get("difficulty"),
        "_text": f"{entry.entry_id}: {entry.state.value} by {entry.reviewer}"
        + (f", difficulty {entry.extra['difficulty']}" if "difficulty_proposed" in entry.extra else ""),
    }


def _edit(queue: Any, args: argparse.Namespace, reviewer: str) -> dict[str, Any]:
    from pipeline.review.runner import sandbox_runner

    entry = queue.get(args.entry)
    if entry.program is None:
        raise InputError(f"entry {entry.entry_id} has no program to edit", hint="reject it instead")
    suffix = ".txt" if entry.method == "ojcode" else Path(entry.program.entry_file.path).suffix
    text = _edit_in_editor(entry.editable_text, suffix)
    runner = sandbox_runner(args.backend, args.unsafe)
    edited = queue.edit(entry.entry_id, reviewer, text, runner, args.difficulty)
    summary = _decided(edited)
    summary["verdict"] = edited.run.verdict if edited.run else None
    if edited.note:
        summary["note"] = edited.note
        summary["_text"] = f"{edited.entry_id}: still pending: {edited.note}"
        summary["exit_code"] = 1
    return summary


def _edit_in_editor(text: str, suffix: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise ConfigurationError(
            "no editor", hint="set $EDITOR (e.g. EDITOR=nano), or edit in `surge review serve`"
        )
    with tempfile.TemporaryDirectory(prefix="surge-review-") as folder:
        path = Path(folder) / f"program{suffix}"
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([*shlex.split(editor), str(path)])
        if done.returncode != 0:
            raise InputError(f"the editor exited with {done.returncode}; nothing changed", hint="edit again")
        return path.read_text(encoding="utf-8")


def _serve(queue: Any, args: argparse.Namespace, reviewer: str) -> dict[str, Any]:
    from pipeline.review.runner import sandbox_runner
    from pipeline.review.server import is_loopback, make_server, url_host

    token = args.token or (None if is_loopback(args.host) else secrets.token_urlsafe(TOKEN_BYTES))
    runner = sandbox_runner(args.backend, args.unsafe)
    server = make_server(queue, runner, reviewer, args.host, args.port, token)
    if not is_loopback(args.host):
        print(
            f"surge review: warning: the page listens on {args.host}, beyond this machine, over plain HTTP: "
            "anyone who reaches it with the token can read and decide entries (safer: bind 127.0.0.1 "
            "and forward the port over SSH)",
            file=sys.stderr,
            flush=True,
        )
    address = f"http://{url_host(args.host)}:{server.server_port}/" + (f"?token={token}" if token else "")
    print(f"review page: {address}  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return {"served": True, "counts": queue.counts()}


def _export(queue: Any, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.ledger import export_ledger, read_ledger, write_programs

    if args.ledger is None:
        raise ConfigurationError(
            "export needs --ledger PATH", hint="e.g. surge review export --ledger ledger.jsonl"
        )
    count = export_ledger(queue, args.ledger)
    summary: dict[str, Any] = {"ledger": str(args.ledger), "approved_programs": count}
    if args.programs:
        summary["programs"] = str(args.programs)
        write_programs(read_ledger(args.ledger), args.programs)
    summary["_text"] = f"{count} approved programs -> {args.ledger}" + (
        f" (and a `surge run` input: {args.programs})" if args.programs else ""
    )
    return summary


def _verify(args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.ledger import check_ledger, read_ledger
    from pipeline.refactor.items import load_items

    if args.ledger is None or not args.entry:
        raise ConfigurationError(
            "verify needs --ledger PATH and an items JSONL or store folder",
            hint="e.g. surge review verify items.jsonl --ledger ledger.jsonl",
        )
    items, _ = load_items(Path(args.entry))
    report = check_ledger(read_ledger(args.ledger), items)
    lines = [f"{name:<10}{len(report[name])}" for name in ("unchanged", "changed", "missing")]
    lines += [f"  changed upstream: {name}" for name in report["changed"]]
    lines += [f"  missing upstream: {name}" for name in report["missing"]]
    return {
        **report,
        "_text": "\n".join(lines),
        "exit_code": 1 if report["changed"] or report["missing"] else 0,
    }
