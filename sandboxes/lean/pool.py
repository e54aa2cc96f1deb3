"""A warm pool of REPL processes, one header each (as Kimina Lean Server keeps them).

A REPL elaborates its file's header once (`import Mathlib ...`: seconds and gigabytes) and then checks
body after body as `{"cmd": body, "env": header_env}`. Choosing a REPL for a proof, in order:
a free one with the same header; else start one while fewer than `max_repls` live; else evict the least
recently used free one (another header) and start one; else wait up to `max_wait_s` and raise PoolFull.
A REPL that timed out, crashed, overflowed or spoke garbage is killed, never reused; one that reached
`max_uses` proofs is retired. Replacements start on demand, so their header time is never charged to a
proof's clock (the header has its own limit).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pipeline.errors import SurgeError
from sandboxes.lean.protocol import ReplError, ReplProcess, ReplProtocolError
from sandboxes.lean.result import AxiomAudit, Message, audit_command, axiom_audit, shifted_messages
from sandboxes.lean.settings import LeanSettings
from sandboxes.lean.source import LeanSource


class PoolFull(SurgeError):
    """Every REPL stayed busy for max_wait_s."""


@dataclass
class ReplWorker:
    process: ReplProcess
    header: str
    header_env: int
    header_messages: list[Message]
    header_s: float
    uses: int = 0
    last_used: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class LeanCheck:
    """The facts of one proof check: messages over the whole file, sorries, the audit, the REPL used."""

    messages: list[Message]
    sorries: int
    audit: AxiomAudit | None
    wall_s: float
    repl_pid: int
    reused: bool  # False: this proof paid for starting the REPL (its header time is in header_s)
    header_s: float
    garbage_lines: int


class ReplPool:
    def __init__(self, settings: LeanSettings) -> None:
        self.settings = settings
        self._changed = threading.Condition()
        self._idle: list[ReplWorker] = []
        self._slots = 0  # REPLs alive or starting
        self._closed = False
        self.stats: Counter[str] = Counter()  # started, reused, evicted, retired, killed:<why>

    # -- checking ------------------------------------------------------------------------------

    def check(self, source: LeanSource) -> LeanCheck:
        """Check one file's body in a warm REPL; raise ReplError (the REPL failed) or PoolFull."""
        worker, reused = self._acquire(source.header)
        try:
            result = self._run(worker, source, reused)
        except BaseException as error:
            self._discard(worker, f"killed:{type(error).__name__}")
            raise
        self._release(worker)
        return result

    def _run(self, worker: ReplWorker, source: LeanSource, reused: bool) -> LeanCheck:
        started = time.monotonic()
        limit_s = self.settings.timeout_s
        response = worker.process.request({"cmd": source.body, "env": worker.header_env}, limit_s, "proof")
        worker.uses += 1
        body_env = _env_of(response)
        messages = worker.header_messages + shifted_messages(
            response.get("messages", []), source.body_line_offset
        )
        sorries = len(response.get("sorries", []))
        audit = None
        if self.settings.audit_axioms:
            names = source.declarations
            printed: list[dict[str, Any]] = []
            if names:
                command = {"cmd": audit_command(names), "env": body_env}
                printed = worker.process.request(command, limit_s, "axiom audit").get("messages", [])
            audit = axiom_audit(names, printed, source.user_axioms, messages, sorries)
        return LeanCheck(
            messages=messages,
            sorries=sorries,
            audit=audit,
            wall_s=time.monotonic() - started,
            repl_pid=worker.process.pid,
            reused=reused,
            header_s=worker.header_s,
            garbage_lines=worker.process.garbage_lines,
        )

    # -- the pool ------------------------------------------------------------------------------

    def _acquire(self, header: str) -> tuple[ReplWorker, bool]:
        deadline = time.monotonic() + self.settings.max_wait_s
        evicted: ReplWorker | None = None
        with self._changed:
            while True:
                if self._closed:
                    raise SurgeError("the Lean pool is closed")
                self._prune_dead()
                same = [w for w in self._idle if w.header == header]
                if same:
                    worker = max(same, key=lambda w: w.last_used)
                    self._idle.remove(worker)
                    self.stats["reused"] += 1
                    return worker, True
                if self._slots < self.settings.max_repls:
                    self._slots += 1
                    break
                if self._idle:
                    evicted = min(self._idle, key=lambda w: w.last_used)
                    self._idle.remove(evicted)
                    self.stats["evicted"] += 1
                    break  # its slot passes to the new REPL
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PoolFull(
                        f"all {self.settings.max_repls} Lean REPLs stayed busy for "
                        f"{self.settings.max_wait_s:g} s",
                        hint="raise SURGE_LEAN_MAX_REPLS (memory permitting) or SURGE_LEAN_MAX_WAIT_S, "
                        "or send fewer proofs at once",
                    )
                self._changed.wait(remaining)
        if evicted is not None:
            evicted.process.kill()
        try:
            return self._start(header), False
        except BaseException:
            self._give_back_slot()
            raise

    def _prune_dead(self) -> None:
        """Free REPLs that died while idle (killed from outside, out of memory) give their slot back."""
        for worker in [w for w in self._idle if not w.process.alive()]:
            self._idle.remove(worker)
            worker.process.kill()
            self._slots -= 1
            self.stats["died_idle"] += 1

    def _start(self, header: str) -> ReplWorker:
        settings = self.settings
        started = time.monotonic()
        process = ReplProcess(
            settings.repl_command, settings.project_dir, settings.memory_mib, settings.max_output_bytes
        )
        try:
            response = process.request({"cmd": header}, settings.header_timeout_s, "header")
            env = _env_of(response)
        except BaseException:
            process.kill()
            raise
        self._count("started")
        return ReplWorker(
            process=process,
            header=header,
            header_env=env,
            header_messages=shifted_messages(response.get("messages", []), 0),
            header_s=time.monotonic() - started,
        )

    def _release(self, worker: ReplWorker) -> None:
        worker.last_used = time.monotonic()
        if worker.uses < self.settings.max_uses and worker.process.alive():
            with self._changed:
                if not self._closed:
                    self._idle.append(worker)
                    self._changed.notify()
                    return
        self._discard(worker, "retired")

    def _discard(self, worker: ReplWorker, why: str) -> None:
        worker.process.kill()
        self._count(why)
        self._give_back_slot()

    def _count(self, what: str) -> None:
        with self._changed:
            self.stats[what] += 1

    def _give_back_slot(self) -> None:
        with self._changed:
            self._slots -= 1
            self._changed.notify()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._slots -= len(idle)
            self._changed.notify_all()
        for worker in idle:
            worker.process.kill()

    def alive(self) -> int:
        with self._changed:
            return self._slots


def _env_of(response: dict[str, Any]) -> int:
    """The response's environment number; a response without one is the REPL refusing the command."""
    if "env" not in response:
        raise ReplProtocolError(
            f"the REPL answered without an environment: {str(response.get('message', response))[:300]}"
        )
    return int(response["env"])


__all__ = ["LeanCheck", "PoolFull", "ReplError", "ReplPool", "ReplWorker"]
