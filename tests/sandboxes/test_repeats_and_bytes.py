"""Ground truth at the edges, on the real bwrap sandbox: repeats are compared over everything the row
claims (the composed label, byte for byte, and how each repeat ended), and output that is not valid UTF-8
is kept as written.

The programs draw from the kernel's random source, with enough repeats that every repeat agreeing by
chance is out of reach (the odds are given with each test); none depends on timing but the wall limit,
which a sleeping program passes by seconds."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from pipeline.records import Limits, PhaseLimits, Program, Verdict
from pipeline.store import Store
from tests.sandboxes.conftest import SMALL_LIMITS, run_one

# exit status 1..255 at random: five repeats agree by chance once in 255**4 (4e9)
RANDOM_EXIT = "import os, sys\nsys.exit(1 + os.urandom(1)[0] % 255)\n"
# the same stdout every time, a random number on stderr
RANDOM_STDERR = "import os, sys\nprint('same')\nprint(os.urandom(8).hex(), file=sys.stderr)\n"
# one byte 0x80..0xff, never valid UTF-8 alone: every repeat's text is '\ufffd', its bytes differ
RANDOM_INVALID_BYTE = "import os, sys\nsys.stdout.buffer.write(bytes([0x80 | os.urandom(1)[0]]))\n"

# A coin from the kernel per repeat: heads sleeps far past the wall limit, tails ends at once. Twenty
# repeats all land the same way once in 2**19 (5e5). C, so that tails ends well inside the limit.
COIN_TIMEOUT = """#include <sys/random.h>
#include <unistd.h>
int main(void) {
  unsigned char coin = 0;
  if (getrandom(&coin, 1, 0) != 1) return 2;
  if (coin & 1) sleep(10);
  return 0;
}
"""
COIN_REPEATS = 20
COIN_LIMITS = Limits(compile=SMALL_LIMITS.compile, run=PhaseLimits(cpu_s=1, wall_s=0.5, memory_mib=256))


def test_a_random_exit_status_makes_the_row_non_deterministic(backend: object) -> None:
    result = run_one(backend, Program.single("python", RANDOM_EXIT), repeats=5)
    assert not result.deterministic and result.distinct_outputs > 1
    assert result.varied == ("exit_code",), result.varied  # stdout empty and runtime_error every time
    assert result.verdict is Verdict.RUNTIME_ERROR


def test_a_random_stderr_varies_the_combined_label_but_not_the_stdout_one(backend: object) -> None:
    combined = Program.single("python", RANDOM_STDERR, protocol="combined_with_prefix")
    result = run_one(backend, combined, repeats=3)
    assert not result.deterministic and result.distinct_outputs == 3
    assert result.varied == ("stderr",)
    # under the stdout protocol stderr is no part of the label: the label is deterministic
    plain = run_one(backend, Program.single("python", RANDOM_STDERR), repeats=3)
    assert plain.deterministic and plain.varied == () and plain.label == "same\n"


def test_a_limit_hit_on_some_repeats_only_is_recorded_as_a_varying_verdict(backend: object) -> None:
    program = Program.single("c", COIN_TIMEOUT)
    result = run_one(backend, program, repeats=COIN_REPEATS, limits=COIN_LIMITS)
    assert result.repeats == COIN_REPEATS and result.compile.verdict is Verdict.OK, result.compile
    assert not result.deterministic and result.distinct_outputs == 2
    assert result.varied == ("exit_code", "signal", "verdict"), result.varied
    assert result.verdict is result.run.verdict  # the row keeps the first repeat's facts
    assert result.verdict in (Verdict.OK, Verdict.WALL_TIME_LIMIT)


def test_bytes_that_are_not_utf8_are_kept_and_tell_the_rows_apart(backend: object, tmp_path: Path) -> None:
    raw = run_one(backend, Program.single("python", "import sys\nsys.stdout.buffer.write(b'A\\xff\\xfeB')\n"))
    text = run_one(backend, Program.single("python", "print('A\\ufffd\\ufffdB', end='')\n"))
    assert raw.verdict is Verdict.OK and text.verdict is Verdict.OK
    assert raw.label == text.label == "A\ufffd\ufffdB"  # as text, the two cannot be told apart
    assert raw.label_bytes == b"A\xff\xfeB" and raw.run.stdout_bytes == b"A\xff\xfeB"
    assert text.label_bytes is None and text.run.stdout_bytes is None

    store = Store(tmp_path)
    with store.runs as runs:
        runs.append([raw, text])
    (part,) = store.runs.part_files()
    stored = {row["run_id"]: row for row in pq.read_table(part).to_pylist()}  # any Parquet reader
    assert stored[raw.run_id]["label_bytes"] == b"A\xff\xfeB"
    assert stored[text.run_id]["label_bytes"] is None
    assert stored[raw.run_id]["run"]["stdout_bytes"] == b"A\xff\xfeB"
    read = {result.run_id: result for result in store.runs.records()}
    assert read[raw.run_id].run.raw("stdout") == b"A\xff\xfeB" and read[raw.run_id] == raw
    assert read[text.run_id].run.raw("stdout") == "A\ufffd\ufffdB".encode()


def test_outputs_that_differ_only_in_invalid_bytes_are_not_deterministic(backend: object) -> None:
    # five repeats draw the same byte by chance once in 128**4 (3e8)
    result = run_one(backend, Program.single("python", RANDOM_INVALID_BYTE), repeats=5)
    assert not result.deterministic and result.varied == ("stdout",)
    assert result.run.stdout == "\ufffd" and result.run.stdout_bytes is not None
