"""How many times the fault tests repeat: once in `make test`, SURGE_SOAK_ROUNDS times under `make soak`.

A fault test is marked ``soak`` (``make soak`` runs ``pytest -m soak``) and parametrized over
``range(SOAK_ROUNDS)`` rounds (each round its own seed, its own folder and store)."""

from __future__ import annotations

import os

SOAK_ROUNDS = int(os.environ.get("SURGE_SOAK_ROUNDS") or 1)
