"""The audit's rounds, label by label: each label moves to its next round as soon as its own runs have
landed, and every round's runs share one queue, the longest first.

Rounds, adaptive by default, so that the audit's cost follows what is left to explain rather than
labels x profiles:
1. the label once (one repeat) under its subset's first profile (`plan.first_profiles`); final if it
   reproduced. Where that profile lacks the label's tool (a language only an image has: Julia, Swift),
   once under the next profile asked for, until one has it;
2. repeated under every profile (to tell non-determinism, and find the environment that explains it);
   a label whose tool was missing is not run again under the same profile;
3. if it still did not reproduce everywhere: its other readings (argv), under every profile;
4. if its own repeats disagreed, in a language whose runtime seed can be pinned from outside
   (PYTHONHASHSEED): its reading again with the seed pinned to a few values (pipeline/audit/seeds.py).
`exhaustive` starts every label at round 2 (every profile, with repeats), then 3 and 4.

No round waits for another label: the engine takes batches from this feed as its slots free
(`pipeline.batches.Feed`), so while one label's long program runs, the others' next rounds fill the
cores; a wave's tail is the next round's work. A finished label's rows are scored as its runs land and
written to the audit table every few seconds, so a killed audit keeps them.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from pipeline.audit.plan import Pair, alternative_pairs, every_profile, plan_pairs
from pipeline.audit.rows import REPRODUCED, AuditClass, AuditRow, Conversion
from pipeline.audit.seeds import SEED_REPEATS, awaits_pinning, seed_pairs
from pipeline.audit.verdicts import cpu_seconds
from pipeline.batches import next_timed_size
from pipeline.records import RunRequest, RunResult, Verdict

if TYPE_CHECKING:
    from pipeline.audit.stage import Audit

ROWS_WRITTEN_EVERY_S = 5.0  # finished labels' rows reach the table at least this often
LAST_ROUND = 4


class Round(NamedTuple):
    """One label's runs in one round: its (reading, profile) pairs and how often each repeats."""

    pairs: list[Pair]
    repeats: int
    counted: bool  # its pairs are labels under profiles that get rows (the seed round's pinned ones do not)


class Queued(NamedTuple):
    """A request waiting for a batch, ordered longest first (then in the order it came); before all of
    them, those whose toolchain is known to be missing (``LabelFeed.lacking``), and the first request of
    each toolchain (its scout: whether the toolchain is there is known as soon as it lands)."""

    later: bool  # False: a scout, or its toolchain is missing (it ends at once; its label tries the next)
    minus_expected_s: float
    order: int
    request: RunRequest
    guess_s: float  # what its label's size or earlier runs say, before its toolchain's floor


class ToolchainCosts:
    """The least one run (compile and one repeat) of each toolchain has cost so far: its start-up, which
    every run of it pays whatever its program (CPU seconds of its cheapest landed run).

    A program's size says nothing of its language's cost: CRUXEval-X's Rust programs are as short as its
    Python ones and take 0.6 s each to compile, against 0.03 s, so ordered by size they came last, one
    compile after another while the other core had nothing left (the last minute of a 40-a-language
    audit). Each toolchain's first run goes first (its scout), so its cost is known early. The least, not
    the median: the runs that land first are the longest (the queue is longest first), and the median of
    the bench mix's first Python runs, its loops of seconds, made every queued Python request "at least
    4.4 s", its 0.01-s ones too, so a wrong label's next round (3 s expected) waited behind all of them."""

    RELEARN_RATIO = 1.5  # the queue is reordered when a toolchain's least falls this much (or first appears)

    def __init__(self) -> None:
        self.least_s: dict[str, float] = {}  # toolchain id -> its cheapest landed run so far
        self.known_s: dict[str, float] = {}  # toolchain id -> its least, as the queue was last ordered

    def learn(self, landed: Iterable[tuple[str, RunResult]]) -> bool:
        """Add the landed runs; whether a toolchain's least moved enough to reorder the queue."""
        for toolchain, result in landed:
            if result.verdict is not Verdict.TOOLCHAIN_MISSING:  # it ran nothing: no cost of the toolchain
                self.least_s[toolchain] = min(self.least_s.get(toolchain, math.inf), cpu_seconds(result))
        changed = False
        for toolchain, least_s in self.least_s.items():
            known_s = self.known_s.get(toolchain)
            if known_s is None or least_s * self.RELEARN_RATIO < known_s:
                self.known_s[toolchain] = least_s
                changed = True
        return changed


class LabelFeed:
    """The audit's work as a ``pipeline.batches.Feed``: what each label runs next, as its runs land."""

    def __init__(
        self, audit: Audit, exhaustive: bool, workers: int, rows_every_s: float, batch_size: int | None = None
    ) -> None:
        self.audit = audit
        self.workers = workers
        self.batch_size = batch_size  # requests a batch (None: sized by expected time, ``next_timed_size``)
        self.rows_every_s = rows_every_s
        self.first_round = 2 if exhaustive else 1
        self.round_of: dict[int, int] = {}  # label (index into audit.conversions) -> its round now
        self.waiting: dict[int, set[str]] = {}  # label -> run ids of its round not landed yet
        self.waiters: dict[str, list[int]] = defaultdict(list)  # run id -> labels waiting for it
        self.queued: dict[str, list[Queued]] = defaultdict(list)  # backend -> heap of its requests
        self.queued_s: dict[str, float] = defaultdict(float)  # backend -> its queued expected seconds
        self.order = itertools.count()
        self.requested: set[str] = set()  # run ids given to the engine or found stored
        self.landed_ids: set[str] = set()
        self.lacking: set[str] = set()  # toolchain ids a run found missing (Verdict.TOOLCHAIN_MISSING)
        self.toolchain_of: dict[str, str] = {}  # run id -> the toolchain id of its request
        self.scouted: set[str] = set()  # toolchain ids whose first request was queued
        self.costs = ToolchainCosts()  # what a run of each toolchain took so far (the order's floor)
        self.ready: list[int] = []  # labels whose round has every run landed, to decide on
        self.final_rows: list[AuditRow] = []
        self.written_at = time.monotonic()
        self.planned = self.found_stored = 0

    # -- the engine's side (pipeline.batches.Feed) -------------------------------------------------

    def take(self) -> list[RunRequest] | None:
        """The next batch: from the backend whose longest waiting request is the longest overall, as
        many of its longest requests as a timed batch holds (``next_timed_size``, a planned job's
        shares), or the batch size the user asked for. A fed batch once took a 1/8 share, not 1/2: its
        expected times are partly guesses from size, and eight unknown long programs in one batch ran
        17 s on one core at an audit's end while the other idled. A free core now takes what a running
        batch has not started (``pipeline.stealing``), and the larger batches cost the engine less
        (CRUXEval-X, 40 a language: 1,526 runs, the command's and Prefect's CPU 17.0 -> 13.0-13.6 s)."""
        backends = [backend for backend, heap in self.queued.items() if heap]
        if not backends:
            return None
        backend = min(backends, key=lambda b: self.queued[b][0])
        heap, taken = self.queued[backend], list[Queued]()

        def longest_first() -> Iterator[float]:
            while heap:
                taken.append(heapq.heappop(heap))
                yield -taken[-1].minus_expected_s

        if self.batch_size:
            taken += [heapq.heappop(heap) for _ in range(min(self.batch_size, len(heap)))]
        else:
            next_timed_size(longest_first(), len(heap), self.queued_s[backend], self.workers)
        self.queued_s[backend] = max(0.0, self.queued_s[backend] + sum(q.minus_expected_s for q in taken))
        return [queued.request for queued in taken]

    def landed(self, run_ids: list[str]) -> None:
        run_ids = [run_id for run_id in run_ids if run_id not in self.landed_ids]  # heard of before
        self.audit.read(run_ids)
        self.learn_missing(run_ids)
        self.learn_costs(run_ids)
        self.arrived(run_ids)
        self.settle()
        if time.monotonic() - self.written_at >= self.rows_every_s:
            self.write_rows()

    # -- the audit's side ---------------------------------------------------------------------------

    def start(self) -> None:
        """Every label's first round, queued (or, where the store holds its runs, decided at once)."""
        for label in range(len(self.audit.conversions)):
            self.enter(label, self.first_round)
        self.settle()

    def write_rows(self) -> None:
        """Append the finished labels' rows (those an earlier audit of the store wrote are not repeated)."""
        if self.final_rows:
            self.audit.table.append_new(self.final_rows)
            self.final_rows = []
        self.written_at = time.monotonic()

    def learn_missing(self, run_ids: list[str]) -> None:
        """A run that found its toolchain missing (Julia, Swift: only an image has them) says every run
        with the same toolchain id will: those queued go first (a toolchain's first request went first
        too, so this is known in the audit's first seconds). They end at once, and their labels try
        the next profile while the cores are still busy, not in a trickle at the audit's end (CRUXEval-X,
        142 programs a language, `--profile default --profile current`: every other language's runs had
        ended at 1,531 s, and Julia's and Swift's went on, label by label, to 2,076 s)."""
        found = {
            self.toolchain_of[run_id]
            for run_id in run_ids
            if (result := self.audit.results.get(run_id)) is not None
            and result.verdict is Verdict.TOOLCHAIN_MISSING
            and run_id in self.toolchain_of
        } - self.lacking
        if not found:
            return
        self.lacking |= found
        for heap in self.queued.values():
            heap[:] = [q._replace(later=q.request.toolchain_id not in self.lacking) for q in heap]
            heapq.heapify(heap)

    def learn_costs(self, run_ids: list[str]) -> None:
        """What the landed runs took, by toolchain: a toolchain's queued runs are expected to take at
        least its cheapest run so far (``ToolchainCosts``), and the queue is reordered when that changes."""
        changed = self.costs.learn(
            (self.toolchain_of[run_id], result)
            for run_id in run_ids
            if (result := self.audit.results.get(run_id)) is not None and run_id in self.toolchain_of
        )
        if not changed:
            return
        for backend, heap in self.queued.items():
            floored = [q._replace(minus_expected_s=-max(q.guess_s, self.floor_s(q.request))) for q in heap]
            self.queued_s[backend] += sum(
                q.minus_expected_s - f.minus_expected_s for q, f in zip(heap, floored, strict=True)
            )
            heap[:] = floored
            heapq.heapify(heap)

    def floor_s(self, request: RunRequest) -> float:
        """The least a request is expected to take: its toolchain's cheapest run, times its repeats."""
        return self.costs.known_s.get(request.toolchain_id, 0.0) * request.repeats

    def arrived(self, run_ids: list[str]) -> None:
        for run_id in run_ids:
            self.landed_ids.add(run_id)
            for label in self.waiters.pop(run_id, []):
                waiting = self.waiting[label]
                waiting.discard(run_id)
                if not waiting:
                    self.ready.append(label)

    def settle(self) -> None:
        """Decide on every label whose round has landed: final (its rows kept), or on to its next round."""
        while self.ready:
            label = self.ready.pop()
            conversion = self.audit.conversions[label]
            rows = self.audit.rows([conversion])
            round_now = self.round_of[label]
            if self.final(round_now)(conversion, rows) or round_now == LAST_ROUND:
                self.final_rows += rows
            elif round_now == 1 and rows and all(row.audit_class is AuditClass.NOT_RUN for row in rows):
                # its tool is missing there: once more where it may exist (no rows: its batch failed, a
                # failure of ours, and the label goes on with its repeats as any other)
                self.enter(label, 1, rows)
            else:
                self.audit.learn_cpu(rows)
                self.enter(label, round_now + 1, rows)

    def enter(self, label: int, round_no: int, rows: list[AuditRow] | None = None) -> None:
        """Start the label's first round from ``round_no`` that has runs for it; a label with none left
        is final."""
        conversion = self.audit.conversions[label]
        while round_no <= LAST_ROUND:
            planned = self.round_for(conversion, round_no, rows or [])
            if planned.pairs:
                self.round_of[label] = round_no
                self.queue(label, planned)
                return
            round_no += 1
        self.final_rows += rows or self.audit.rows([conversion])

    def round_for(self, conversion: Conversion, round_no: int, rows: list[AuditRow]) -> Round:
        audit, profiles, repeats = self.audit, self.audit.profiles, self.audit.options.repeats
        # A missing tool is not a disagreement: no point running it again under the same profile.
        missing = {r.profile for r in rows if r.audit_class is AuditClass.NOT_RUN}
        if round_no == 1:
            first = audit.first[conversion.record.subset]
            untried = [p for p in [first, *profiles] if p.name not in missing]
            return Round([(conversion, untried[0])] if untried else [], 1, True)
        if round_no == 2:
            pairs = [(c, p) for c, p in every_profile([conversion], profiles) if p.name not in missing]
            return Round(pairs, repeats, True)
        if round_no == 3:
            return Round(alternative_pairs([conversion], rows, profiles), repeats, True)
        return Round(seed_pairs([conversion], rows, profiles), SEED_REPEATS, False)

    def final(self, round_no: int) -> Callable[[Conversion, list[AuditRow]], bool]:
        """Whether a label's rows after ``round_no`` are final (no later round revisits it)."""
        if round_no == 1:
            return lambda c, mine: any(r.audit_class in REPRODUCED for r in mine)
        if round_no == 2:
            return self.no_alternatives
        return lambda c, mine: not awaits_pinning(c, mine)

    @staticmethod
    def no_alternatives(conversion: Conversion, mine: list[AuditRow]) -> bool:
        """Final after round 2 when no other reading is left to try, and no seed to pin."""
        if awaits_pinning(conversion, mine):
            return False
        return len(conversion.plan.candidates()) < 2 or all(r.audit_class in REPRODUCED for r in mine)

    def queue(self, label: int, planned: Round) -> None:
        """The round's requests: new ones queued (or read, where the store holds them), the label waiting
        for those not landed yet."""
        audit = self.audit
        requests = audit.split(audit.identified(plan_pairs(planned.pairs, audit.policy, planned.repeats)))
        fresh = {r.run_id: r for r in requests if r.run_id not in self.requested}
        audit.count_round(planned, list(fresh.values()))
        self.requested.update(fresh)
        stored = audit.store.stored_run_ids(list(fresh))
        self.planned += len(fresh)
        self.found_stored += len(stored)
        expected_s = audit.expected(planned.pairs, list(fresh.values()))
        for run_id, request in fresh.items():
            self.toolchain_of[run_id] = request.toolchain_id
            if run_id not in stored:
                guess_s = expected_s.get(run_id, 0.0)
                cost_s = max(guess_s, self.floor_s(request))
                scout = request.toolchain_id not in self.scouted
                self.scouted.add(request.toolchain_id)
                later = not scout and request.toolchain_id not in self.lacking
                queued = Queued(later, -cost_s, next(self.order), request, guess_s)
                heapq.heappush(self.queued[request.backend], queued)
                self.queued_s[request.backend] += cost_s
        waiting = {r.run_id for r in requests} - self.landed_ids - stored
        self.waiting[label] = waiting
        for run_id in waiting:
            self.waiters[run_id].append(label)
        if stored:
            audit.read(list(stored))
            self.learn_missing(list(stored))
            self.arrived(list(stored))
        if not waiting:
            self.ready.append(label)
