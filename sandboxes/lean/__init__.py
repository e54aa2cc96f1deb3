"""Lean 4 proof checking in SURGE's fl format, from a warm pool of leanprover-community/repl processes.

    source.py    header/body split with exact line offsets
    protocol.py  one REPL process: JSON commands and responses, deadline, output cap, RLIMIT_AS
    pool.py      warm REPLs per header: reuse, start, evict, wait, retire, kill on failure
    result.py    REPL messages -> SURGE's fl label; the axiom audit
    backend.py   LeanBackend (the Backend protocol) -> RunResult
    router.py    lean4 requests of any batch go to LeanBackend
See docs/lean.md.
"""

from sandboxes.lean.settings import LeanSettings

__all__ = ["LeanSettings"]
