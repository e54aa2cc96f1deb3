"""Lean 4 proof checking in SURGE's fl format, from a warm pool of leanprover-community/repl processes.

    source.py    header/body split with exact line offsets
    protocol.py  one REPL process: JSON commands and responses, deadline, output cap, RLIMIT_AS
    pool.py      warm REPLs per header: reuse, start, evict, wait, retire, kill on failure
    result.py    REPL messages -> SURGE's fl label; the axiom audit
    backend.py   LeanBackend (the one method of a backend, over the pool) -> RunResult
    checker.py   the lean4 language spec's checker: every batch's proofs go to LeanBackend
See docs/lean.md. Importing the package imports nothing: the language registry reaches checker.py.
"""
