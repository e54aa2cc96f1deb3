"""surge review: the review actions (pipeline/stages/review.py) from their flags, and each result as text."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.commands.common import (
    access_token,
    add_backend_argument,
    options_from,
    port_number,
)
from pipeline.observe import Observer, StageEvent
from pipeline.review import DEFAULT_REVIEW_DB
from pipeline.stages.options import DEFAULT_REVIEW_PORT, ReviewOptions

if TYPE_CHECKING:  # the queue's module (sqlite) loads when a review runs, not when the parser is built
    from pipeline.stages.review import (
        Decision,
        EntryShown,
        LedgerChecked,
        QueueListing,
        ReviewResult,
    )

HELP = (
    "review refactored programs: list, show, approve, reject, edit ($EDITOR), serve a page, export a ledger"
)
EXAMPLE = "surge review list --state pending --db .surge/store/review.db"


def run_review(options: ReviewOptions, *, observer: Observer | None = None) -> ReviewResult:
    """The review stage, imported as a review runs."""
    from pipeline.stages.review import review

    return review(options, observer=observer)


STAGE = run_review  # the stage this command calls


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
        default=DEFAULT_REVIEW_PORT,
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


def options_of(args: argparse.Namespace) -> ReviewOptions:
    return options_from(args, ReviewOptions)


class ServeObserver:
    """What `surge review serve` tells a person: the page's address on stdout, a warning on stderr."""

    def notify(self, event: StageEvent) -> None:
        if event.step == "listening":
            print(f"review page: {event.detail}  (Ctrl-C to stop)", flush=True)
        elif event.step == "warning":
            print(f"surge review: warning: {event.detail}", file=sys.stderr, flush=True)


def observer() -> ServeObserver:
    return ServeObserver()


def render(result: ReviewResult, options: ReviewOptions) -> str:
    from pipeline.stages.review import Decision, EntryShown, LedgerChecked, LedgerWritten, QueueListing

    if isinstance(result, QueueListing):
        return render_listing(result)
    if isinstance(result, EntryShown):
        return render_entry(result)
    if isinstance(result, Decision):
        return render_decision(result)
    if isinstance(result, LedgerWritten):
        return f"{result.approved_programs} approved programs -> {result.ledger}" + (
            f" (and a `surge run` input: {result.programs})" if result.programs else ""
        )
    if isinstance(result, LedgerChecked):
        return render_check(result)
    return f"served; by state: {result.counts}"


def render_listing(listing: QueueListing) -> str:
    text = [f"{'id':<17}{'state':<10}{'verdict':<16}{'leaks':<6}item"]
    text += [
        f"{r.id:<17}{r.state:<10}{r.verdict:<16}{r.leaks:<6}{r.source}/{r.key}"
        + (f"  ({r.failure})" if r.failure else "")
        for r in listing.entries
    ]
    by_state = ", ".join(f"{count} {state}" for state, count in sorted(listing.counts.items())) or "none"
    text.append(f"{len(listing.entries)} entries; by state: {by_state}")
    return "\n".join(text)


def render_entry(entry: EntryShown) -> str:
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
    parts.append(f"rounds: {len(entry.rounds)}")
    return "\n".join(parts)


def render_decision(decision: Decision) -> str:
    if decision.note:
        return f"{decision.id}: still pending: {decision.note}"
    rated = f", difficulty {decision.difficulty}" if decision.difficulty is not None else ""
    return f"{decision.id}: {decision.state} by {decision.reviewer}{rated}"


def render_check(report: LedgerChecked) -> str:
    lines = [f"{name:<10}{len(getattr(report, name))}" for name in ("unchanged", "changed", "missing")]
    lines += [f"  changed upstream: {name}" for name in report.changed]
    lines += [f"  missing upstream: {name}" for name in report.missing]
    return "\n".join(lines)
