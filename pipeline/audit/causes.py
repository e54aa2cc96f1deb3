"""Named causes for a disagreement that is not the label's fault.

Each detector looks at the evidence (the program text, the plan made from the record, our run's output,
the other records) and returns a reason that quotes what it found, or None. `classify` asks them only
after the labels disagree; what none of them explains stays a `mismatch`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from pipeline.records import Program, RunResult, Verdict
from sandboxes.languages import spec_for

# ---------------------------------------------------------------------------------------------
# Non-determinism read from the code: unseeded randomness, clocks, addresses
# ---------------------------------------------------------------------------------------------

# (pattern that makes output vary, pattern that pins it down or None, what to call it)
_NONDETERMINISM: list[tuple[re.Pattern[str], re.Pattern[str] | None, str]] = [
    (re.compile(r"\brandom\.(?!seed\b)\w+\("), re.compile(r"\brandom\.seed\(\s*[^)\s]"), "unseeded random"),
    (
        re.compile(r"\bnp\.random\.(?!seed\b|default_rng\b)\w+\("),
        re.compile(r"\bnp\.random\.seed\(\s*[^)\s]"),
        "unseeded np.random",
    ),
    (re.compile(r"\bdefault_rng\(\s*\)"), None, "np.random.default_rng() without a seed"),
    (re.compile(r"\b(?:time\.time|time\.perf_counter|time\.monotonic)\(\)"), None, "a clock (time.time)"),
    (re.compile(r"\bdatetime(?:\.datetime)?\.(?:now|today)\(|\bdate\.today\("), None, "the current date"),
    (re.compile(r"\bos\.urandom\(|\buuid\.uuid[14]\("), None, "os.urandom/uuid"),
    (re.compile(r"\bprint\([^)]*\bid\("), None, "an object address (id())"),
    (re.compile(r"(?<![\w.])s?rand\(\s*\)"), re.compile(r"\bsrand\(\s*\d+\s*\)"), "unseeded rand()"),
    (re.compile(r"\bsrand\(\s*(?:time|clock)\s*\("), None, "rand() seeded with the clock"),
    (re.compile(r"\brandom_device\b|\bmt19937\s+\w+\s*;"), None, "std::random_device / unseeded mt19937"),
    (
        re.compile(r"\bchrono::\w+_clock::now\(|\btime\(\s*(?:NULL|0|nullptr)\s*\)|\bclock\(\)"),
        None,
        "a clock",
    ),
    (re.compile(r"%p\b|<<\s*\(void\s*\*\)|<<\s*&\w+\s*(?:<<|;)"), None, "a printed pointer address"),
    (re.compile(r"\bMath\.random\(|\bnew\s+Random\(\s*\)"), None, "unseeded Math.random / new Random()"),
    (
        re.compile(r"\bSystem\.(?:currentTimeMillis|nanoTime)\(|\bDate\.now\(|\bnew\s+Date\(\s*\)"),
        None,
        "a clock",
    ),
    (
        re.compile(r"\bLocal(?:Date|DateTime|Time)\.now\(|\bDateTime\.(?:Now|UtcNow|Today)\b"),
        None,
        "the current date",
    ),
    (
        re.compile(r"\bGuid\.NewGuid\(|\bthread_rng\(|\bSystemTime::now\(|\bInstant::now\("),
        None,
        "randomness or a clock",
    ),
]


def code_nondeterminism(program: Program) -> list[str]:
    """What in the program's text can make its output vary between runs or machines, quoted."""
    text = "\n".join(f.content for f in program.files)
    found = []
    for varies, pinned, name in _NONDETERMINISM:
        match = varies.search(text)
        if match and not (pinned and pinned.search(text)):
            found.append(f"{name}: `{match.group(0).strip()}`")
    return found


# What else can make two runs of one program differ. Too common to suspect a label for (most programs
# that build a set or start a thread print the same thing every time), so these are named only once our
# own repeats have disagreed: then they say which part of the code the variation can come from. The third
# field names the runtime seed that governs it (a language spec's ``seed_environment``): such a cause is
# named only in that language (a C++ `{"a", "b"}` is an array, no set), and no longer once pinning that
# seed left the output varying (the audit's seed round, pipeline/audit/seeds.py).
_RUN_TO_RUN: list[tuple[re.Pattern[str], str, str | None]] = [
    (
        # set(...), a set comprehension, a set display of strings ({"a", "b"}; a dict has a colon there)
        re.compile(
            r"\bset\(|\bfrozenset\(|\{\s*\w+\s+for\s|\.keys\(\)\s*[-&|^]|\{\s*(['\"])[^'\"\n]*\1\s*[,}]"
        ),
        "the iteration order of a set, which for strings follows the per-run hash seed (PYTHONHASHSEED)",
        "PYTHONHASHSEED",
    ),
    (
        re.compile(r"\bhash\(\s*['\"\w]"),
        "hash() of a value, salted per run (PYTHONHASHSEED)",
        "PYTHONHASHSEED",
    ),
    (
        re.compile(r"\b(?:keys|values|each)\s*\(?\s*%"),
        "the order of a Perl hash's keys, which follows the per-run hash seed (PERL_HASH_SEED)",
        "PERL_HASH_SEED",
    ),
    (
        re.compile(
            r"\b(?:threading|multiprocessing|concurrent\.futures|asyncio\.gather|std::thread|pthread_create)"
        ),
        "threads or processes, whose order of completion varies",
        None,
    ),
    (re.compile(r"\bos\.listdir\(|\bglob\.glob\(|\bos\.walk\("), "a directory listing's order", None),
]


def run_to_run_causes(program: Program, *, seed_ruled_out: bool = False) -> list[str]:
    """Every part of the program that can make its output vary between two runs, quoted: the
    suspicions of `code_nondeterminism`, then hashing order (its language's), threads and directory
    listings; hashing order is left out once pinning the hash seed did not pin the output
    (``seed_ruled_out``)."""
    text = "\n".join(f.content for f in program.files)
    runtime_seed = spec_for(program.language).seed_environment
    found = code_nondeterminism(program)
    for varies, name, seed in _RUN_TO_RUN:
        if seed is not None and (seed != runtime_seed or seed_ruled_out):
            continue
        if match := varies.search(text):
            found.append(f"{name}: `{match.group(0).strip()}`")
    return found


# ---------------------------------------------------------------------------------------------
# A program that cannot build or run as released
# ---------------------------------------------------------------------------------------------

_MISSING_IN_OUTPUT = [
    re.compile(r"No rule to make target '([^']+)'"),
    re.compile(r"fatal error: ([^:\s]+): No such file or directory"),
    re.compile(
        r"(?:g\+\+|gcc|clang\+\+|clang|cc1plus): (?:fatal )?error: ([^:\s]+): No such file or directory"
    ),
    re.compile(r"can't open file '([^']+)'"),
    re.compile(r"(?:^|\s)(\./[\w.+-]+): (?:No such file or directory|not found)", re.MULTILINE),
    re.compile(r"make: \*\*\* No targets specified and no makefile found"),
    re.compile(r"undefined reference to `([^']+)'"),
]


def build_failure(result: RunResult, missing: Iterable[str]) -> str | None:
    """Why the program could not be built or started as released, quoting the missing piece."""
    failed = result.verdict in (Verdict.COMPILE_ERROR, Verdict.RUNTIME_ERROR)
    pieces = list(missing)
    if pieces and failed:
        return "cannot build as released: missing " + "; ".join(pieces)
    output = "\n".join(p.stdout + "\n" + p.stderr for p in (result.compile, result.run) if p is not None)
    for pattern in _MISSING_IN_OUTPUT if failed else ():
        match = pattern.search(output)
        if match:
            what = match.group(1) if match.groups() else match.group(0)
            return f"cannot build as released: `{match.group(0).strip()}` (missing {what!r})"
    return None


_MISSING_MODULE = re.compile(
    r"(?:ModuleNotFoundError|ImportError): (No module named '[^']+'|cannot import name .*)"
)


def missing_dependency(result: RunResult, gt: str) -> str | None:
    """A library our environment lacks (and the label did not fail on)."""
    phase = result.run or result.compile
    if phase is None or result.verdict is Verdict.OK:
        return None
    match = _MISSING_MODULE.search(phase.stderr + phase.stdout)
    if match and match.group(1) not in gt:
        return f"our environment lacks a dependency: {match.group(1)}"
    return None


# ---------------------------------------------------------------------------------------------
# Labels that cannot all be right
# ---------------------------------------------------------------------------------------------


def conflicting_labels(keyed: Iterable[tuple[str, str, str, str]]) -> dict[str, str]:
    """(record id, location, program+setting key, gt) -> {record id: why its label conflicts}.

    Records that run the very same program under the very same setting must share one label;
    where they do not, at most one of them can be right.
    """
    groups: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for record_id, location, key, gt in keyed:
        groups[key].append((record_id, location, gt))
    conflicts: dict[str, str] = {}
    for members in groups.values():
        if len({gt.strip() for _, _, gt in members}) < 2:
            continue
        for record_id, _, gt in members:
            others = [where for _, where, other in members if other.strip() != gt.strip()]
            conflicts[record_id] = f"the same program as {', '.join(others[:3])} carries a different label"
    return conflicts


def timeout_reason(result: RunResult, recorded_time_s: float | None, cpu_limit_s: float | None) -> str:
    """Which limit ended the run, what it used, and what SURGE recorded for the label."""
    phase = result.run or result.compile
    used_s = (phase.cpu_user_s + phase.cpu_sys_s) if phase else 0.0
    limits = result.provenance.limits.run
    if result.verdict is Verdict.WALL_TIME_LIMIT:
        used = f"{used_s:.2f} s CPU used: a slow or loaded machine?"
        what = f"wall_time_limit (run limit {limits.wall_s:g} s wall, {used})"
    else:
        what = f"cpu_time_limit (run limit {cpu_limit_s or limits.cpu_s:g} s CPU)"
    if recorded_time_s is None:
        return f"{what}; the record carries no recorded time"
    return f"{what}; SURGE recorded {recorded_time_s:g} s for this label"
