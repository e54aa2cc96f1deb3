"""The documented range of every number a stage takes, and the default store: one place, below the stages.

A number outside its range is refused before any work: by the options models (pipeline/stages/options.py,
pipeline/audit/summary.py), and by the CLI while it parses the flags (exit 2, one line naming the flag and
the range), never carried into the work: `--wall-s 1e12` once overflowed a thread wait mid-batch,
`--cpu-s inf` reached the sandbox as a limit it could not set.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_STORE = Path(".surge/store")

MAX_LIMIT_S = 86_400.0  # one day of CPU or wall time per phase
MAX_MEMORY_MIB = 1 << 20  # 1 TiB
MAX_OUTPUT_BYTES = 1 << 30  # 1 GiB kept per stream
MAX_REPEATS = 100
MAX_WORKERS = 256
MAX_BATCH_SIZE = 1_000
MAX_COUNT = 10_000_000  # --limit and the like: items, records
MAX_SEED = (1 << 63) - 1  # stored as a signed 64-bit integer
MAX_PORT = 65_535
MAX_PRICE_USD = 1_000.0
MAX_TIME_MARGIN = 100.0
MAX_ROUNDS = 20  # LLM answers per item before a refactor is failed
MAX_NAMED_RUNS = 10_000  # non-deterministic runs `surge stats` names in its text
