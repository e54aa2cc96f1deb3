"""sources: upstream adapters (one spec each plus a registry line) and the bundled samples.

``SAMPLES`` holds small, real, byte-exact samples of every upstream and of SURGE's released JSON, each
folder with a README.txt naming upstream, commit and licence. Tests, benchmarks and ``make demo`` read
them from here: the repository needs nothing beside it.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent / "samples"
