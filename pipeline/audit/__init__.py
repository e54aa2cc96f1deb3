"""Label audit: re-execute SURGE's released records and explain every disagreement (issues 6, 15).

convert   released record (sources.surge_release, the one reader) -> its subset spec's program, an
          unrunnable record with its named cause, or a refusal with its reason
classify  one class per label, with a short diff as evidence; causes: the named causes it asks
plan      requests to run (limits from the record), audit rows from the results, best per label/profile
profiles  which profiles run, each on its backend (`--profile all`)
report    summary (--json), terminal table and a self-contained HTML page
Metrics live in pipeline/scoring (SURGE's eval/, shared with export).
"""
