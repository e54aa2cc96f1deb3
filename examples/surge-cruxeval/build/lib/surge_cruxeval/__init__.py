"""CRUXEval (github.com/facebookresearch/cruxeval) made auditable by surge, from a package of its own.

CRUXEval's 800 records are Python functions ``f``, each with an input (the text of the call's arguments)
and the ``repr`` of its output, judged upstream by ``assert f(<input>) == <output>``. This package gives
surge what it needs to re-execute and score them, through two entry points (pyproject.toml):

- ``surge.subsets``: ``cruxeval`` (subset.py), with its reader (records.py), its program and metric
  (scoring.py) and its prompts (prompts.py);
- ``surge.sources``: ``cruxeval`` (source.py), so `surge pull cruxeval` reads upstream's data/cruxeval.jsonl.

``BUNDLED`` is the first 20 upstream records (data/README.txt names the commit and licence).
"""

from __future__ import annotations

from pathlib import Path

BUNDLED = Path(__file__).resolve().parent / "data" / "cruxeval.jsonl"
