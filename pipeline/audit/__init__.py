"""Label audit: re-execute SURGE's released records and explain every disagreement.

stage     run_audit(options, execute) -> AuditSummary: the rounds (adaptive or exhaustive), rows written
          as waves finish, the report, the errata; the CLI (pipeline/commands/audit.py) is a thin layer
convert   released record (sources.surge_release, the one reader) -> its subset spec's program, an
          unrunnable record with its named cause, or a refusal with its reason
plan      requests (limits from the record), each label's first profile and expected time, other readings
verdicts  rows from results (keyed by answer key), best reading per label and profile
ranking   best row per label, profiles that reproduce it, best profile
classify  one class per label, with a short diff as evidence; causes: the named causes it asks
profiles  which profiles run, each on its backend (`--profile all`)
report    summary figures, terminal table and a self-contained HTML page
errata    errata.jsonl, the corrected dataset in SURGE's format, a summary per subset (`--errata`)
Metrics live in pipeline/scoring (SURGE's eval/, shared with export).
"""
