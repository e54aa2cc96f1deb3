"""CRUXEval-X (github.com/CRUXEVAL-X/cruxeval-x): CRUXEval's functions translated into 19 languages, each
program checking its own output, made auditable by surge as the ``cruxeval-x`` subset (subset.py).

``BUNDLED`` is a folder of test records of our own in upstream's format (data/cruxeval-x/README.txt).
"""

from __future__ import annotations

from pathlib import Path

BUNDLED = Path(__file__).resolve().parents[1] / "data" / "cruxeval-x"
