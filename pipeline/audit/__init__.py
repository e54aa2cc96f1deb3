"""Label audit: re-execute SURGE's released records and explain every disagreement.

stage     run_audit(options, execute) -> AuditSummary: one job over the caller's engine, the report, the
          errata (pipeline/stages/audit.py gives it Prefect's; the CLI, pipeline/commands/audit.py, calls
          that stage and renders)
feed      each label's rounds (adaptive or exhaustive) as a feed of the engine: its next round as its own
          runs land, every round's runs longest first, its rows written as it finishes
summary   AuditOptions (the flags, field for field; their limits as the stage's policy), AuditSummary
convert   released record (sources.surge_release, the one reader) -> its subset spec's program, an
          unrunnable record with its named cause, or a refusal with its reason
plan      requests (limits from the record), each label's first profile and expected time, other readings
verdicts  rows from results (keyed by answer key), best reading per label and profile
ranking   best row per label, profiles that reproduce it, best profile
classify  one class per label, with a short diff as evidence; causes: the named causes it asks
profiles  which profiles run, each on its backend (`--profile all`)
figures   the typed figures from the rows: per subset, language and profile, the headline
html      the self-contained HTML report and the facts it states first
errata    errata.jsonl, the corrected dataset in SURGE's format, a summary per subset (`--errata`)
Metrics live in pipeline/scoring (SURGE's eval/, shared with export).
"""
